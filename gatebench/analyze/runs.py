"""The rows analysis reads (`Run`) and what a load returns: plain data, importing nothing of gatebench.

A leaf, so the readers `load` calls (integrity, provenance, plugineval) and `load` itself share the row
without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field

Stop = tuple  # (oracle_solved: bool | None, decision: str, gates: tuple[tuple[name, kind, verdict], ...])


@dataclass(slots=True)
class Run:
    config: str
    task: str
    rep: int
    run_id: str
    cell_id: str
    attempt_no: int
    status: str
    solved: bool
    first_stop: bool | None  # oracle at the first stop (see first_stop_outcome)
    stops: tuple
    blocks: int
    give_up: bool
    tamper: bool
    leak: bool
    cost: float
    reviewer_cost: float
    usage: dict
    turns: float
    wall_s: float
    paths: dict
    versions: dict
    source: str  # "file:line", for messages
    base_dir: str  # the ledger's folder: relative paths in `paths` are taken from there
    worker: str = ""  # provenance, read tolerantly (gatebench/analyze/provenance.py)
    sim_policy: str | None = None
    sealed: bool | None = None
    reviewer_models: tuple = ()
    origin: str = "matrix"  # what wrote the record: a gatebench ledger, or `claude plugin eval` (plugineval.py)
    error: str | None = None  # why a run is not ok, where the source says (plugin-eval runs)
    pretool: tuple = ()  # PreToolUse denials: ((tool, reason, plugin_error), ...) in order (plugin arms of a matrix)
    variant: str = "normal"  # impossible cells are scored apart (cheat and abstain rates)
    outcome: str | None = None
    outcome_by: tuple = ()
    canary: bool | None = None  # the final oracle had a contradicted canary; None: it ran none
    plugin_stop_errors: tuple = ()  # a plugin arm's Stop-hook blocks that were the plugin failing (their reasons)
    score: float | None = None  # claude plugin eval's weighted share of graders passed (plugin-eval runs only)
    graders: tuple = ()  # ((name, passed, weight), ...) as claude plugin eval gave them (plugin-eval runs only)
    oracle_ran: bool = False  # the hidden oracle judged the run (oracle_judged); set by every reader
    stop_states: tuple = ()  # sim runs: the end state at each stop ("reference", "inject:<name>", ...)


@dataclass
class LedgerInfo:
    path: str
    lines: int = 0
    used: int = 0
    skipped: int = 0


@dataclass
class Loaded:
    runs: list[Run] = field(default_factory=list)  # every record that parsed, infra errors included
    ledgers: list[LedgerInfo] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def first_stop_outcome(solved: bool, first_stop_solved: bool | None, stops: tuple) -> bool | None:
    """The run's no-gate counterfactual: the hidden oracle at its first stop attempt.

    A run that never reached a stop (a timeout or cap before the agent said "done") was never
    touched by a gate, so its counterfactual is its own final outcome. None: a stop happened but
    the oracle did not run there, so the counterfactual is unknown.
    """
    if first_stop_solved is not None:
        return first_stop_solved
    if stops:
        return stops[0][0]
    return solved
