"""The Jest JSON report (Vitest's json reporter writes the same shape)."""

from __future__ import annotations

import json

from gatebench.testguard import runners

OUTCOMES = {"passed": "passed", "failed": "failed", "pending": "skipped", "skipped": "skipped", "todo": "skipped",
            "disabled": "skipped", "focused": "passed"}


def read(report: str, root: str = "") -> list[dict] | None:
    """Results with ids `path relative to root::ancestor > title` (the runners write absolute paths)."""
    try:
        with open(report, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict):
        return None
    out = []
    for file in doc.get("testResults") or []:
        name = file.get("name") or file.get("testFilePath") or ""
        rel = runners.relative(name, root)
        for a in file.get("assertionResults") or file.get("testResults") or []:
            title = " > ".join([*(a.get("ancestorTitles") or []), a.get("title") or a.get("fullName") or ""])
            out.append({"id": f"{rel}::{title}", "outcome": OUTCOMES.get(a.get("status"), "failed")})
    return out
