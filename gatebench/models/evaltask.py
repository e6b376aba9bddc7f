"""`tasks/<ID>/eval.yaml`: the `claude plugin eval` case a task was imported from and its own graders (SPEC.md
section 18, "Importing a suite"). Finalize grades every cell of the task by them (`cell/evalimport/cellgrade.py`)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from gatebench.models.config import Strict


class EvalTask(Strict):
    suite: str = Field(description="the eval directory the case was read from")
    case: str = Field(description="the case's name")
    case_hash: str = Field(description="content hash of the case folder at import")
    graders: list[dict[str, Any]] = Field(min_length=1, description="the case's graders as `task read-eval` reads "
                                          "them (name, type, weight, arm, the kind's options); `unscored` (a reason) "
                                          "keeps one out of the score; checked on load by evalimport/cases.check_grader")

