"""What a source tree says its tests need, read from its own files (plain data, no subprocess).

Test extras of its metadata, requirement files for development and tests, tox's `deps`, PEP 735 dependency
groups, the pytest plugins its pytest configuration names (an option such as `--cov` in `addopts` needs
pytest-cov, or pytest stops with "unrecognized arguments"), its supported Python versions, and whether
its version comes from the VCS (setuptools-scm, hatch-vcs, ...), which a `.git`-less copy cannot give.
"""

from __future__ import annotations

import configparser
import re
import tomllib
from pathlib import Path

TEST_EXTRAS = ("test", "tests", "testing")
FALLBACK_EXTRAS = ("dev",)  # only when none of TEST_EXTRAS exists
REQUIREMENT_FILES = (
    "requirements-dev.txt", "requirements_dev.txt", "dev-requirements.txt", "requirements-test.txt",
    "requirements_test.txt", "requirements-tests.txt", "test-requirements.txt", "test_requirements.txt",
    "tests-requirements.txt", "requirements-testing.txt", "requirements/test.txt", "requirements/tests.txt",
    "requirements/dev.txt", "requirements/testing.txt", "tests/requirements.txt", "test/requirements.txt",
)
GROUPS = ("test", "tests", "testing", "dev")
# Development tools a requirements-dev file lists that no test run needs; leaving them out keeps the
# environment small and the resolution quick.
NOT_FOR_TESTS = re.compile(r"^(sphinx\w*|black|mypy|flake8\w*|pylint|isort|tox|nox|pre-commit|twine|build|wheel"
                           r"|ruff|bump2version|bumpversion|check-manifest|readme-renderer|ipython|ipdb|pip-tools"
                           r"|types-\w+|codecov|coveralls|furo|myst-parser|docutils|setuptools|towncrier)$", re.I)
# Options (in `addopts`) and ini keys that belong to a pytest plugin, and the distribution providing it.
OPTION_PLUGINS = (
    (re.compile(r"^--(no-)?cov"), "pytest-cov"),
    (re.compile(r"^(-n\b|-n\d|--numprocesses|--dist\b|--maxprocesses)"), "pytest-xdist"),
    (re.compile(r"^--timeout"), "pytest-timeout"),
    (re.compile(r"^--benchmark"), "pytest-benchmark"),
    (re.compile(r"^--(randomly|random-order)"), "pytest-randomly"),
    (re.compile(r"^--reruns"), "pytest-rerunfailures"),
    (re.compile(r"^--hypothesis"), "hypothesis"),
    (re.compile(r"^--asyncio"), "pytest-asyncio"),
    (re.compile(r"^--mypy$"), "pytest-mypy"),
    (re.compile(r"^--flake8$"), "pytest-flake8"),
    (re.compile(r"^--black$"), "pytest-black"),
    (re.compile(r"^--doctest-rst"), "pytest-doctestplus"),
    (re.compile(r"^--doctest-plus"), "pytest-doctestplus"),
)
INI_PLUGINS = {"asyncio_mode": "pytest-asyncio", "timeout": "pytest-timeout", "mock_use_standalone_module": "pytest-mock",
               "env": "pytest-env", "doctest_plus": "pytest-doctestplus", "trio_mode": "pytest-trio"}
PLUGIN_NAMES = {"pytest_cov": "pytest-cov", "xdist": "pytest-xdist", "timeout": "pytest-timeout",
                "pytest_mock": "pytest-mock", "asyncio": "pytest-asyncio", "pytest_asyncio": "pytest-asyncio",
                "anyio": "anyio", "hypothesis": "hypothesis", "pytest_benchmark": "pytest-benchmark"}
SCM_BACKENDS = ("setuptools_scm", "setuptools-scm", "hatch-vcs", "hatch_vcs", "flit_scm", "flit-scm",
                "versioningit", "dunamai", "poetry-dynamic-versioning", "pdm-backend", "setuptools-git-versioning",
                "pbr")
# The variables that make each of those build with a given version and no VCS metadata.
PRETEND_VERSION_VARS = ("SETUPTOOLS_SCM_PRETEND_VERSION", "PDM_BUILD_SCM_VERSION", "PBR_VERSION",
                        "POETRY_DYNAMIC_VERSIONING_BYPASS", "VERSIONINGIT_VERSION")


def _toml(tree: Path) -> dict:
    p = tree / "pyproject.toml"
    try:
        return tomllib.loads(p.read_text(encoding="utf-8")) if p.is_file() else {}
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):
        return {}


def _ini(path: Path) -> configparser.RawConfigParser | None:
    if not path.is_file():
        return None
    cp = configparser.RawConfigParser(strict=False, interpolation=None)
    try:
        cp.read_string(path.read_text(encoding="utf-8", errors="replace"))
    except configparser.Error:
        return None
    return cp


def requirement_lines(text: str) -> list[str]:
    """Requirement specifiers of a requirements file or a tox `deps` value: options, `-r`/`-c` lines,
    local paths and editable installs of the project itself are left out."""
    out = []
    for raw in text.splitlines():
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith(("#", "-", ".", "/", "{")) or "://" in line:
            continue
        name = re.split(r"[\s\[<>=!~;@]", line, maxsplit=1)[0]
        if name and not NOT_FOR_TESTS.match(name):
            out.append(line)
    return out


def requirement_files(tree: Path) -> list[str]:
    return [n for n in REQUIREMENT_FILES if (tree / n).is_file()]


def file_requirements(tree: Path) -> list[str]:
    """Test requirements from requirement files, tox's [testenv] deps and dependency groups."""
    out: list[str] = []
    for name in requirement_files(tree):
        out += requirement_lines((tree / name).read_text(encoding="utf-8", errors="replace"))
    tox = _ini(tree / "tox.ini")
    if tox is not None and tox.has_option("testenv", "deps"):
        # A factor-conditional line (`py38: mock`, `py{37,38}-django: x`, `!pypy3: y`) counts unconditionally.
        out += requirement_lines(re.sub(r"^\s*[!\w{}.,-]+:(?!//)\s*", "", tox.get("testenv", "deps"), flags=re.M))
    data = _toml(tree)
    groups = data.get("dependency-groups", {})
    for g in GROUPS:
        for item in groups.get(g, []) if isinstance(groups, dict) else []:
            if isinstance(item, str):
                out += requirement_lines(item)
    # Poetry's development dependencies (its version constraints are not pip's: the names alone).
    poetry = data.get("tool", {}).get("poetry", {})
    tables = [poetry.get("dev-dependencies", {})] + [poetry.get("group", {}).get(g, {}).get("dependencies", {})
                                                      for g in GROUPS]
    for table in tables:
        if isinstance(table, dict):
            out += [name for name in table if name != "python" and not NOT_FOR_TESTS.match(name)]
    return list(dict.fromkeys(out))


def pytest_config(tree: Path) -> tuple[str, dict[str, str]]:
    """(the file pytest reads its configuration from, its ini keys), found as pytest finds it in the root."""
    for name in ("pytest.toml", ".pytest.toml"):
        if (tree / name).is_file():
            try:
                data = tomllib.loads((tree / name).read_text(encoding="utf-8")).get("pytest", {})
                return name, {k: " ".join(map(str, v)) if isinstance(v, list) else str(v) for k, v in data.items()}
            except (tomllib.TOMLDecodeError, UnicodeDecodeError):
                return name, {}
    for name, section in (("pytest.ini", "pytest"), (".pytest.ini", "pytest"), ("tox.ini", "pytest"),
                          ("setup.cfg", "tool:pytest")):
        cp = _ini(tree / name)
        if cp is not None and cp.has_section(section):
            return name, dict(cp.items(section))
        if name in ("pytest.ini", ".pytest.ini") and cp is not None:
            return name, {}
    data = _toml(tree).get("tool", {}).get("pytest", {}).get("ini_options")
    if isinstance(data, dict):
        return "pyproject.toml", {k: " ".join(map(str, v)) if isinstance(v, list) else str(v) for k, v in data.items()}
    return "", {}


def plugin_requirements(tree: Path) -> list[str]:
    """The pytest plugins the tree's pytest configuration needs: named by an option in `addopts`, by an ini
    key, by `-p NAME`, or listed in `required_plugins`."""
    _, ini = pytest_config(tree)
    out: list[str] = []
    words = ini.get("addopts", "").split()
    for i, w in enumerate(words):
        for pat, dist in OPTION_PLUGINS:
            if pat.match(w):
                out.append(dist)
        if w == "-p" and i + 1 < len(words) and words[i + 1] in PLUGIN_NAMES:
            out.append(PLUGIN_NAMES[words[i + 1]])
    out += [dist for key, dist in INI_PLUGINS.items() if key in ini]
    out += [r for r in ini.get("required_plugins", "").split() if r]
    return list(dict.fromkeys(out))


def build_requires(tree: Path) -> list[str]:
    req = _toml(tree).get("build-system", {}).get("requires", [])
    return [r for r in req if isinstance(r, str)]


def vcs_versioned(tree: Path) -> bool:
    """Whether the build takes its version from the VCS (a copy without .git then fails to build)."""
    names = " ".join(build_requires(tree)).lower()
    if any(b.lower() in names for b in SCM_BACKENDS):
        return True
    tool = _toml(tree).get("tool", {})
    if any(k in tool for k in ("setuptools_scm", "hatch-vcs", "versioningit", "poetry-dynamic-versioning")):
        return True
    hatch = tool.get("hatch", {}).get("version", {})
    if isinstance(hatch, dict) and hatch.get("source") == "vcs":
        return True
    setup_py = tree / "setup.py"
    if setup_py.is_file():
        text = setup_py.read_text(encoding="utf-8", errors="replace")
        return "use_scm_version" in text or "setuptools_scm" in text or "pbr=True" in text.replace(" ", "")
    return False


def pretend_version_env(version: str) -> dict[str, str]:
    """Variables that make a VCS-versioned build use `version` (ignored by every other backend)."""
    env = {k: version for k in PRETEND_VERSION_VARS}
    env["POETRY_DYNAMIC_VERSIONING_BYPASS"] = version
    return env


def pkg_info_version(tree: Path) -> str | None:
    """An sdist's own version (its PKG-INFO), which setuptools-scm and friends read without a VCS."""
    p = tree / "PKG-INFO"
    if not p.is_file():
        return None
    m = re.search(r"^Version:\s*(\S+)", p.read_text(encoding="utf-8", errors="replace"), re.M)
    return m.group(1) if m else None


def python_versions(tree: Path) -> tuple[list[str], str | None]:
    """(X.Y versions named by the `Programming Language :: Python :: X.Y` classifiers, newest first;
    `requires-python` as written, or None), from pyproject.toml, setup.cfg or setup.py."""
    texts = []
    project = _toml(tree).get("project", {})
    texts += [c for c in project.get("classifiers", []) if isinstance(c, str)]
    requires = project.get("requires-python")
    cfg = _ini(tree / "setup.cfg")
    if cfg is not None and cfg.has_section("metadata") and cfg.has_option("metadata", "classifiers"):
        texts.append(cfg.get("metadata", "classifiers"))
    if cfg is not None and cfg.has_option("options", "python_requires"):
        requires = requires or cfg.get("options", "python_requires")
    for name in ("setup.py", "PKG-INFO"):
        if (tree / name).is_file():
            text = (tree / name).read_text(encoding="utf-8", errors="replace")
            texts.append(text)
            m = re.search(r"python_requires\s*=\s*['\"]([^'\"]+)['\"]|^Requires-Python:\s*(.+)$", text, re.M)
            if m and not requires:
                requires = (m.group(1) or m.group(2)).strip()
    found = set(re.findall(r"Programming Language :: Python :: (3\.\d+)", "\n".join(texts)))
    return sorted(found, key=lambda v: int(v.split(".")[1]), reverse=True), requires


def allows(requires: str | None, version: str) -> bool:
    """Whether `requires-python` admits X.Y (the common forms: >=, >, <, <=, ==X.*, !=, ~=)."""
    if not requires:
        return True
    v = tuple(int(x) for x in version.split("."))
    for clause in requires.split(","):
        m = re.match(r"\s*(>=|<=|==|!=|~=|>|<)\s*([0-9]+(?:\.[0-9]+)*)(\.\*)?\s*$", clause)
        if not m:
            continue
        op, target, star = m.group(1), tuple(int(x) for x in m.group(2).split(".")), m.group(3)
        t2 = (*target, 0, 0)[:2]
        ok = {">=": v >= t2, ">": v > t2 if len(target) <= 2 else v >= t2, "<": v < t2, "<=": v <= t2,
              "==": v[:len(target)] == target[:2] if star or len(target) <= 2 else v == t2,
              "!=": v[:len(target)] != target[:2] if star or len(target) <= 2 else True,
              "~=": v >= t2}[op]
        if not ok:
            return False
    return True
