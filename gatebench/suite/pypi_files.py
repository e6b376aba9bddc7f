"""A release's sdist straight from the index's file list (PEP 691 JSON simple API), no build step.

`pip download --no-binary P P==V` prepares the sdist's metadata before it keeps the file: it installs the build
backend and runs it, 60-150 s an sdist at load 15-30 (SPEC 12), where the file itself is a few hundred KB. The
index lists every file with its sha256, so the sdist can be fetched and checked directly; pip stays the fallback
where the index cannot be read (another index, no network)."""

from __future__ import annotations

import hashlib
import json
import os
import re
import urllib.request
from pathlib import Path

INDEX = "https://pypi.org/simple"
ACCEPT = "application/vnd.pypi.simple.v1+json"
SUFFIXES = (".tar.gz", ".zip", ".tar.bz2")
TIMEOUT_S = 60


def normalize(name: str) -> str:
    """PEP 503: runs of -_. are one -, lower case."""
    return re.sub(r"[-_.]+", "-", name).lower()


def sdist_of(files: list[dict], project: str, version: str, name: str | None = None) -> dict | None:
    """The index entry of `project` `version`'s sdist (the one named `name` when given), or None."""
    for f in files:
        fn = f.get("filename", "")
        if name is not None:
            if fn == name:
                return f
            continue
        suffix = next((s for s in SUFFIXES if fn.endswith(s)), None)
        if suffix is None or f.get("yanked") not in (None, False):
            continue
        stem, _, ver = fn[: -len(suffix)].rpartition("-")
        if normalize(stem) == normalize(project) and ver == version:
            return f
    return None


def files_of(project: str, index: str = INDEX) -> list[dict]:
    req = urllib.request.Request(f"{index}/{normalize(project)}/", headers={"Accept": ACCEPT})
    with urllib.request.urlopen(req, timeout=TIMEOUT_S) as r:
        return json.load(r).get("files") or []


def fetch(project: str, version: str, dest: Path, name: str | None = None, index: str = INDEX) -> Path | None:
    """The sdist downloaded into folder `dest`, its sha256 the index's; None when the index has no such file or
    cannot be read (the caller falls back to pip). Bytes whose hash differs are never written: a ValueError."""
    try:
        entry = sdist_of(files_of(project, index), project, version, name)
    except (OSError, ValueError):
        return None
    if entry is None or not entry.get("url"):
        return None
    path = dest / entry["filename"]
    try:
        with urllib.request.urlopen(entry["url"], timeout=TIMEOUT_S) as r:
            data = r.read()
    except OSError:
        return None
    want = (entry.get("hashes") or {}).get("sha256")
    if want and hashlib.sha256(data).hexdigest() != want:
        raise ValueError(f"{entry['url']}: sha256 {hashlib.sha256(data).hexdigest()}, the index lists {want}")
    part = path.with_name(f".{path.name}.{os.getpid()}.part")
    part.write_bytes(data)
    os.replace(part, path)
    return path
