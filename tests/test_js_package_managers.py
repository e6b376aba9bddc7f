"""The report flags reach the runner through the real pnpm 9, pnpm 10 and yarn 1 (installed from npm into
.cache/npm/, skipped with the reason when the registry is unreachable), as `runners.detect` and `place` put
them. The runner is a stand-in `jest`/`vitest` on the project's `node_modules/.bin` that writes a one-test
Jest JSON report where `--outputFile` says and records the argv it got, so each case costs a package manager's
start, not a test run (scripts/bench_js_real.py and the report of issue 34 ran the real Jest and Vitest the same
way). Found with them: pnpm 9's own `pnpm test` refuses `--json` ("Unknown options") while pnpm 10 passes a `--`
on to the runner, so `pnpm test` is run as `pnpm run test`, which both pass flags through."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from conftest import ROOT
from test_installed_npm import _npm

from gatebench.testguard import runners

MANAGERS = {"pnpm@9.15.9": "pnpm", "pnpm@10.14.0": "pnpm", "yarn@1.22.22": "yarn"}
FAKE = """#!/usr/bin/env node
const fs = require('fs');
const argv = process.argv.slice(2);
const out = argv.find((a) => a.startsWith('--outputFile'));
const title = require('path').basename(process.argv[1]);
fs.writeFileSync(process.env.ARGV_LOG, JSON.stringify(argv));
if (out) fs.writeFileSync(out.split('=')[1], JSON.stringify({testResults: [{name: process.cwd() + '/test/a.test.js',
  assertionResults: [{ancestorTitles: ['format'], title: title, status: 'passed'}]}]}));
"""


def manager(spec: str) -> Path:
    prefix = ROOT / ".cache" / "npm" / spec.replace("@", "-")
    bin_ = prefix / "node_modules" / ".bin" / MANAGERS[spec]
    if not bin_.exists():
        prefix.mkdir(parents=True, exist_ok=True)
        _npm("install", "--prefix", str(prefix), spec, cwd=prefix)
    return bin_


@pytest.mark.slow
def test_report_flags_reach_jest_and_vitest_through_real_pnpm_9_pnpm_10_and_yarn_1(tmp_path):
    repo = tmp_path / "p"
    (repo / "node_modules" / ".bin").mkdir(parents=True)
    (repo / "package.json").write_text(json.dumps({"name": "p", "private": True, "scripts": {
        "test": "jest", "vt": "vitest run", "both": "jest && vitest run"}}))
    for name in ("jest", "vitest"):
        (repo / "node_modules" / ".bin" / name).write_text(FAKE)
        (repo / "node_modules" / ".bin" / name).chmod(0o755)
    seen = {}
    for spec, tool in MANAGERS.items():
        path = os.pathsep.join([str(manager(spec).parent), os.environ["PATH"]])
        for sub in ("test", "vt", "both"):
            command = f"{tool} {sub}"
            name, way = runners.detect(command, str(repo))
            report, log = tmp_path / f"r-{spec}-{sub.replace(' ', '-')}.json", tmp_path / "argv.json"
            log.unlink(missing_ok=True)
            asked = runners.get(name).prepare(command, str(report), way)
            if asked is None:  # `both`: the flags would reach jest, not the runner that runs last
                seen[(spec, sub)] = (name, way, None)
                continue
            r = subprocess.run(asked[0], shell=True, cwd=repo, capture_output=True, text=True, timeout=120,
                               env={**os.environ, "PATH": path, "ARGV_LOG": str(log), "COREPACK_ENABLE_STRICT": "0"})
            got = runners.get(name).results(str(report), r.stdout + r.stderr, str(repo))
            argv = json.loads(log.read_text()) if log.exists() else r.stderr[-300:]
            seen[(spec, sub)] = (name, way, got and got[0]["id"], argv)
    for spec in MANAGERS:
        assert seen[(spec, "test")][2:] == ("test/a.test.js::format > jest", ["--json", f"--outputFile={tmp_path}/r-{spec}-test.json"]), seen
        assert seen[(spec, "vt")][2:] == ("test/a.test.js::format > vitest", [
            "run", "--reporter=default", "--reporter=json", f"--outputFile.json={tmp_path}/r-{spec}-vt.json"]), seen
        assert seen[(spec, "both")] == ("jest", "", None), seen
