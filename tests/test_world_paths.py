"""The agent's world as data (world.world_paths, world.wrap): what an interpreter's paths may bring in, and the
bubblewrap argv that binds only the allow-list (the real-CLI proof is tests/test_world.py)."""

from __future__ import annotations

from gatebench.cell import world


def test_an_interpreter_path_that_holds_or_lies_in_a_private_one_stays_out(tmp_path):
    b = str(tmp_path / "bench")
    spec = world.world_paths(
        rw=[f"{b}/runs/c/repo"], files=[f"{b}/runs/c/state/seal.json"], readable=[],
        interpreters=[b, f"{b}/.venv", f"{b}/.venv/lib/site-packages", "/usr/lib/python3.11", f"{b}/hidden/T1",
                      "/opt/py/lib", "/"],
        never=[b, "/tmp"], secret=[f"{b}/hidden"])
    # The checkout itself (an editable install's path entry) and the hidden tests stay out; its venv comes in.
    assert spec["ro"] == [f"{b}/.venv", f"{b}/.venv/lib/site-packages", "/opt/py/lib"]
    assert spec["rw"] == [f"{b}/runs/c/repo"] and spec["files"] == [f"{b}/runs/c/state/seal.json"]


def test_wrap_binds_parents_first_and_nothing_but_the_list(tmp_path):
    for d in ("repo", "repo/ro", "home"):
        (tmp_path / d).mkdir()
    spec = {"rw": [str(tmp_path / "repo"), str(tmp_path / "home"), str(tmp_path / "gone")],
            "ro": [str(tmp_path / "repo" / "ro")], "files": []}
    argv = world.wrap(["/x/claude", "-p", "hi"], spec, "/usr/bin/true")
    binds = [(argv[i], argv[i + 1]) for i, a in enumerate(argv[:-1]) if a in ("--bind", "--ro-bind")]
    ours = [b for b in binds if b[1].startswith(str(tmp_path))]
    assert ours == [("--bind", str(tmp_path / "home")), ("--bind", str(tmp_path / "repo")),
                    ("--ro-bind", str(tmp_path / "repo" / "ro"))]  # a missing path is not bound
    assert not [b for b in binds if b[1] not in (*world.SYSTEM_DIRS, *(x for _, x in ours))]
    assert argv[argv.index("--") + 1:][-3:] == ["/usr/bin/true", "-p", "hi"] and "--unshare-pid" in argv
    assert "--unshare-net" not in argv  # the CLI reaches its API on 127.0.0.1
