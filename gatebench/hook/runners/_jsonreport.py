"""The Jest JSON report (Vitest's json reporter writes the same shape)."""

from __future__ import annotations

import json
import os

OUTCOMES = {"passed": "passed", "failed": "failed", "pending": "skipped", "skipped": "skipped", "todo": "skipped",
            "disabled": "skipped", "focused": "passed"}


def read(report: str, root: str | None = None) -> list[dict] | None:
    try:
        with open(report, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError):
        return None
    out = []
    for file in doc.get("testResults") or []:
        name = file.get("name") or file.get("testFilePath") or ""
        rel = os.path.relpath(name, root) if root and os.path.isabs(name) else name
        for a in file.get("assertionResults") or file.get("testResults") or []:
            title = " > ".join([*(a.get("ancestorTitles") or []), a.get("title") or a.get("fullName") or ""])
            out.append({"id": f"{rel}::{title}", "outcome": OUTCOMES.get(a.get("status"), "failed")})
    return out
