"""Task environments built with uv (the fast path) or pip (the old path and the fallback): the tool is chosen as
SPEC section 12 says, a uv build is compiled (its fingerprint holds after use, as a pip build's does), copies
rather than hard-links uv's cache, and leaves the project's metadata without its code."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from gatebench.errors import UsageError
from gatebench.models.task import TaskEnv
from gatebench.suite import envbuilder, taskenv

PYPROJECT = """[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "gbtinyproj"
version = "1.2.3"

[project.scripts]
gbtiny = "gbtinyproj:main"
"""


def test_the_builder_is_uv_when_installed_pip_when_asked_and_a_bad_value_is_an_error(monkeypatch):
    monkeypatch.delenv(envbuilder.BUILDER_ENV, raising=False)
    assert envbuilder.find_uv(), "scripts/setup installs uv into the bench's venv"
    b = envbuilder.builder()
    assert b.name == "uv"
    argv = b.install("/env/bin/python", ["--no-deps", "x==1"])
    # copies, never hard links into uv's cache (an agent's in-place edit would reach later builds); compiled.
    assert argv[argv.index("--link-mode") + 1] == "copy" and "--compile-bytecode" in argv
    steps = b.venv(sys.executable, Path("/e"))
    assert steps[0] == [sys.executable, "-m", "venv", "--without-pip", "/e"]
    assert [Path(w).name.split("-")[0] for w in steps[1] if w.endswith(".whl")] == ["pip", "setuptools"]
    assert envbuilder.Builder(None).venv("/usr/bin/python3.11", Path("/e")) == [["/usr/bin/python3.11", "-m", "venv",
                                                                                 "/e"]]
    monkeypatch.setenv(envbuilder.BUILDER_ENV, "pip")
    assert envbuilder.builder().name == "pip"
    assert envbuilder.builder().install("/env/bin/python", ["x"])[:2] == ["/env/bin/python", "-m"]
    monkeypatch.setenv(envbuilder.BUILDER_ENV, "conda")
    with pytest.raises(UsageError, match="GATEBENCH_ENV_BUILDER='conda': expected uv or pip"):
        envbuilder.builder()
    monkeypatch.setenv(envbuilder.BUILDER_ENV, "uv")
    monkeypatch.setattr(envbuilder, "find_uv", lambda: None)
    with pytest.raises(UsageError, match="no uv is installed"):
        envbuilder.builder()


def test_release_of_reads_an_sdists_pkg_info(tmp_path: Path):
    assert taskenv.release_of(tmp_path) is None
    (tmp_path / "PKG-INFO").write_text("Metadata-Version: 2.1\nName: parse\nVersion: 1.20.1\n\nbody\n")
    assert taskenv.release_of(tmp_path) == ("parse", "1.20.1")


def test_a_uv_task_layer_holds_the_projects_metadata_not_its_code_and_stays_intact_after_use(tmp_path: Path,
                                                                                             monkeypatch):
    monkeypatch.delenv(envbuilder.BUILDER_ENV, raising=False)
    repo = tmp_path / "repo"
    (repo / "gbtinyproj").mkdir(parents=True)
    (repo / "pyproject.toml").write_text(PYPROJECT)
    (repo / "gbtinyproj" / "__init__.py").write_text("def main():\n    return 0\n")
    cache = tmp_path / "envs"
    spec = TaskEnv(python=f"{os.sys.version_info[0]}.{os.sys.version_info[1]}", requirements=["iniconfig==2.3.1"],
                   deps=taskenv.dep_files(repo))
    info = taskenv.ensure_env(repo, spec, cache)
    assert info.built and info.shared_built
    site = taskenv.site_packages(info.dir)
    assert (site / "iniconfig").is_dir() and list(site.glob("gbtinyproj-1.2.3.dist-info"))
    assert not (site / "gbtinyproj").exists(), "the project's code is the work copy's, never the environment's"
    assert (info.dir / "bin" / "gbtiny").is_file()  # its entry points stay
    shared = cache / info.shared
    ready = __import__("json").loads((shared / "ready.json").read_text())
    assert ready["builder"] == "uv" and "iniconfig==2.3.1" in ready["packages"]
    # Copies: no file of the shared environment is a hard link into uv's cache (only the layer links to it).
    ini = next((taskenv.site_packages(shared) / "iniconfig").glob("*.py"))
    assert os.stat(ini).st_nlink == 2  # the shared file and the layer's link, nothing else
    # Compiled at install: using the environment writes no __pycache__, so it is still intact.
    r = subprocess.run([info.python, "-c", "import iniconfig, pkg_resources, pip"], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    assert taskenv.intact(info.dir) and taskenv.intact(shared)
    again = taskenv.ensure_env(repo, spec, cache)
    assert not again.built and again.key == info.key
