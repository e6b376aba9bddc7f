"""pytest: a JUnit XML report through PYTEST_ADDOPTS, so any command that runs pytest writes one."""

from __future__ import annotations

import os

NAME = "pytest"
SOURCE = True


def detect(words: list[str]) -> bool:
    base = [os.path.basename(w) for w in words[:4]]
    return "pytest" in base or "py.test" in base or any(words[i:i + 2] == ["-m", "pytest"] for i in range(len(words)))


def is_test_file(rel: str) -> bool:
    base = rel.rsplit("/", 1)[-1]
    return base.endswith(".py") and (base.startswith("test_") or base.endswith("_test.py"))


def prepare(command: str, report: str, last: str) -> tuple[str, dict]:
    extra = f"--junitxml={report} -o junit_family=legacy"
    prior = os.environ.get("PYTEST_ADDOPTS", "")
    return command, {"PYTEST_ADDOPTS": f"{prior} {extra}".strip()}


def results(report: str, output: str, root: str = "") -> list[dict] | None:
    import xml.etree.ElementTree as ET

    try:
        tree = ET.parse(report).getroot()
    except (OSError, ET.ParseError):
        return None
    out = []
    for case in tree.iter("testcase"):
        file = case.get("file") or ""
        cls = case.get("classname") or ""
        module = file[:-3].replace("/", ".") if file.endswith(".py") else ""
        klass = cls[len(module) + 1:] if module and cls.startswith(module + ".") else ""
        test = "::".join(filter(None, (file or cls, klass.replace(".", "::"), case.get("name") or "")))
        tags = {child.tag for child in case}
        outcome = "failed" if tags & {"failure", "error"} else "skipped" if "skipped" in tags else "passed"
        out.append({"id": test, "outcome": outcome})
    return out
