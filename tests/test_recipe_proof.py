"""`canaries_proof` in a recipe (SPEC section 12): given, materialize lays the proof's exclusions without running
the proof (its four oracle runs); absent, the proof runs as before, and the recipe's hash is what it was."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import yaml

from gatebench.suite import recipes
from gatebench.suite.taskimport import pipeline


def test_an_absent_proof_keeps_the_hash_and_a_recorded_one_is_part_of_it():
    r = recipes.load_recipe("R1").model_copy(update={"canaries_proof": None})  # as recipes curated before the field
    h = recipes.recipe_hash(r)
    assert recipes.recipe_hash(r.model_copy(update={"canaries_proof": []})) != h
    assert recipes.recipe_hash(r.model_copy(update={"canaries_proof": None})) == h


def _measure(monkeypatch, proven, curated: bool = False):
    """measure_tests with a recipe's facts (materialize), or as curate calls it: no facts, the recipe's
    canaries_exclude as the job's no_twin."""
    calls: list[tuple] = []

    def prove(*a, exclude=None):
        calls.append((*a, exclude))
        return ["t.py::from_proof"]
    monkeypatch.setattr(pipeline, "prove_canaries", prove)
    monkeypatch.setattr(pipeline, "measure", lambda *_a: (["t.py::a"], ["t.py::b"], []))
    facts = None if curated else pipeline.Facts(["t.py::a"], ["t.py::b"], "cmd", [], [], ["t.py::by_hand"], proven)
    job = SimpleNamespace(exclude=[], facts=facts, log=lambda _m: None, timeout_s=1, warnings=[],
                          no_twin=["t.py::by_hand"] if curated else [])
    c = SimpleNamespace(modules=["t.py"], sha="0" * 40)
    t = SimpleNamespace(ctree=None, ptree=None, hidden=None, command="cmd")
    b = SimpleNamespace(env=SimpleNamespace(python="py"), commit_run=None)
    return pipeline.measure_tests(job, c, t, b), calls  # type: ignore[arg-type]


@pytest.mark.parametrize("proven, runs, exclude", [
    (["t.py::recorded"], 0, ["t.py::by_hand", "t.py::recorded"]),
    (None, 1, ["t.py::by_hand", "t.py::from_proof"]),
])
def test_a_recorded_proof_is_not_run_again_and_an_absent_one_is(monkeypatch, proven, runs, exclude):
    m, calls = _measure(monkeypatch, proven)
    assert len(calls) == runs and m.no_twin == exclude


def test_curate_s_proof_gives_the_recipes_canaries_exclude_no_twin(monkeypatch):
    """R16: a twin of a parametrize case (a datetime's seconds moved to 63) broke its module's collection; the
    recipe's canaries_exclude named those tests, but curate's proof twinned them anyway and left out all 158."""
    m, calls = _measure(monkeypatch, None, curated=True)
    assert [c[-1] for c in calls] == [["t.py::by_hand"]]
    assert m.no_twin == ["t.py::by_hand", "t.py::from_proof"]


def test_a_recipes_test_env_reaches_the_import_and_an_absent_one_keeps_the_hash(tmp_path, monkeypatch):
    # dpath's sdist declares none of the test dependencies (nose2, hypothesis, mock) its test modules import.
    r = recipes.load_recipe("R1")
    assert r.test_env is None
    h = recipes.recipe_hash(r)
    assert recipes.recipe_hash(r.model_copy(update={"test_env": ["nose2"]})) != h
    seen: dict = {}

    class Stop(Exception):
        pass

    def import_task(*_a, **kw):
        seen.update(kw)
        raise Stop
    monkeypatch.setattr(recipes, "lay_history", lambda *_a: "0" * 40)
    monkeypatch.setattr(recipes, "import_task", import_task)
    path = tmp_path / "R1.yaml"
    data = r.model_dump(mode="json", exclude_none=True)
    path.write_text(yaml.safe_dump({**data, "test_env": ["nose2", "mock"]}))
    with pytest.raises(Stop):
        recipes.curate(path)
    assert seen["extra_env"] == ["nose2", "mock"]
    assert seen["canaries_exclude"] == r.canaries_exclude


def test_curate_gives_the_callers_home_back_even_when_the_import_fails(tmp_path, monkeypatch):
    """curate imports in a home of its own: the caller's GATEBENCH_HOME (a mine run, a test's home) comes back
    after it, as it was, not removed."""
    path = tmp_path / "R1.yaml"
    path.write_text(recipes.recipe_paths()["R1"].read_text(encoding="utf-8"), encoding="utf-8")
    callers = str(tmp_path / "callers")
    (tmp_path / "callers").mkdir()
    recipes.shutil.copytree(recipes.project_root() / "configs", tmp_path / "callers" / "configs")
    monkeypatch.setenv("GATEBENCH_HOME", callers)
    monkeypatch.delenv("GATEBENCH_ENV_CACHE", raising=False)
    seen = {}

    def failing_import(*_a, **_kw):
        seen["home"] = recipes.os.environ["GATEBENCH_HOME"]
        raise RuntimeError("the import failed")

    monkeypatch.setattr(recipes, "lay_history", lambda r, repo, where: "0" * 40)
    monkeypatch.setattr(recipes, "import_task", failing_import)
    with pytest.raises(RuntimeError, match="the import failed"):
        recipes.curate(path)
    assert seen["home"] != callers and seen["home"].endswith("home")
    assert recipes.os.environ["GATEBENCH_HOME"] == callers
    assert "GATEBENCH_ENV_CACHE" not in recipes.os.environ
    assert path.read_text(encoding="utf-8") == recipes.recipe_paths()["R1"].read_text(encoding="utf-8")
