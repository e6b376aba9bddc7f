"""`suites/real/<ID>.yaml`: a task of the real suite as a recipe (`gatebench schema recipe`).

Only what is ours is committed: where the project and its fix are (provenance), which PyPI sdists hold the
base and the fix (pinned by hash), which files make up the fix and its hidden tests, a prompt written here,
and what an earlier import measured. `gatebench task materialize` lays the task from the sdists.
"""

from __future__ import annotations

import re

from pydantic import Field, model_validator

from gatebench.models.config import Strict
from gatebench.models.task import GateName, InjectKind

RELEASE_DIFF = "release diff, no commit"


class Sdist(Strict):
    version: str = Field(min_length=1)
    file: str = Field(pattern=r"^[A-Za-z0-9_.+-]+\.(tar\.gz|zip|tar\.bz2)$", description="the file PyPI serves")
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$", description="a download that hashes otherwise is refused")


class Mutation(Strict):
    file: str
    op: str = Field(description="revert | drop | negate | compare | constant | names | returns | args | boolop | "
                    "arith | omit (gatebench/suite/mutants.py) | hand (edits written while curating)")
    hunk: int = 0
    edits: list[tuple[int, int, str]] = Field(default_factory=list, description="(start, end, new text) in "
                                              "characters of the reference file: an operator, a number, a name")


class RecipeInjection(Strict):
    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    kind: InjectKind
    description: str = Field(min_length=10)
    mutant: Mutation | None = None
    delete: list[str] = Field(default_factory=list)
    fails: list[str] = Field(min_length=1)
    blocked_by: list[GateName] = Field(default_factory=list)


class ImportCost(Strict):
    seconds: float = Field(ge=0, description="the import without the environment build")
    env_seconds: float = Field(ge=0, description="building the environment (shared part and task layer)")
    disk_bytes: int = Field(ge=0, description="the task's files plus what its environment added to the cache")


class Recipe(Strict):
    id: str = Field(pattern=r"^R[0-9]+$")
    project: str = Field(description="the PyPI name")
    license: str = Field(description="an OSI licence the project's sdist states (MIT, BSD, Apache-2.0, PSF, ISC)")
    repo: str = Field(pattern=r"^https://", description="the project's public source repository")
    commit: str | None = Field(None, pattern=r"^[0-9a-f]{7,40}$", description="the fix commit there (provenance)")
    commits: list[str] = Field(default_factory=list, description="every upstream commit the reference spans, oldest "
                               "first: those that change its files between the two releases")
    provenance: str | None = Field(None, description="without commits: `release diff, no commit: ` and what is known "
                                   "(the releases on PyPI)")
    base: Sdist
    fix: Sdist
    files: list[str] = Field(min_length=1, description="the fix: these files as in the fix sdist are the reference")
    tests: list[str] = Field(min_length=1, description="test files as in the fix sdist: the hidden tests")
    test_globs: list[str] | None = Field(None, description="the project's test files (protected), if not the default")
    prompt: str = Field(min_length=40, description="written here, in our own words")
    python: str = Field(pattern=r"^3\.[0-9]+$")
    test_env: list[str] | None = Field(None, description="pip requirement specs added to the environment's resolution "
                                       "(`task import --env`): test dependencies the sdist does not declare, which "
                                       "its test modules import (dpath's nose2, hypothesis, mock)")
    requirements: list[str] = Field(default_factory=list, description="the environment, pinned")
    fail_to_pass: list[str] = Field(default_factory=list)
    pass_to_pass: list[str] = Field(default_factory=list)
    excluded: list[str] = Field(default_factory=list)
    canaries_exclude: list[str] = Field(
        default_factory=list, description="expected tests (file.py::name) that run without a canary besides those the "
        "import's proof leaves out: selftest found their twin passing beside the original on an injection")
    canaries_proof: list[str] | None = Field(
        None, description="the expected tests the import's canary proof left out, as curate measured them; given, "
        "materialize lays them without running the proof again (selftest's canary check proves them)")
    visible: str = ""
    injections: list[RecipeInjection] = Field(default_factory=list)
    few_plausible: str | None = Field(None, description="where the recipe has fewer than 2 plausible wrong fixes "
                                      "(kinds plausible, partial: they pass the visible tests): why, as measured")
    cost: ImportCost | None = None

    @model_validator(mode="after")
    def whole_provenance(self) -> Recipe:
        bad = [c for c in self.commits if not re.fullmatch(r"[0-9a-f]{7,40}", c)]
        if bad:
            raise ValueError(f"commits: {bad[0]!r} is not a commit id (7-40 hex digits)")
        if not self.commits and not (self.provenance or "").startswith(RELEASE_DIFF):
            raise ValueError(f"commits: list every upstream commit the reference spans, or say in provenance that it "
                             f"is a release diff (provenance: '{RELEASE_DIFF} ...')")
        plausible = sum(1 for i in self.injections if i.kind in ("plausible", "partial"))
        if self.injections and plausible < 2 and not self.few_plausible:
            raise ValueError(f"injections: {plausible} plausible wrong fixes (plausible, partial); a real task has at "
                             "least 2 or says why not in few_plausible")
        if self.commit and self.commits and not any(c.startswith(self.commit) or self.commit.startswith(c)
                                                    for c in self.commits):
            raise ValueError(f"commits: the fix commit {self.commit} is not among them")
        return self

    def provenance_label(self) -> str:
        """The commits the reference spans, short, or that it is a release diff: never None."""
        if self.commits:
            return ", ".join(c[:12] for c in self.commits)
        return f"{RELEASE_DIFF}: {self.project} {self.base.version}..{self.fix.version}"


class SuiteSamples(Strict):
    """`suites/real/suite.yaml`: which real tasks the bench and CI run when they do not run them all."""

    bench: list[str] = Field(description="scripts/bench's sample, beside the quick suite")
    ci: list[str] = Field(description="the selftest sample scripts/test runs")
    why: str = Field(min_length=10, description="how the samples were chosen and what they cost")
