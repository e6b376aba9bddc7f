"""Offline Claude Code: a fake Messages API that plays a scripted model (standard library only).

`FakeMessagesApi(brain)` serves it on 127.0.0.1; `gatebench.sim.brain` has the Brain protocol,
request readers and the declarative `ScriptBrain`; `python -m gatebench.sim --script F` runs
a script in its own process.
"""

from gatebench.sim.brain import Brain, Router, ScriptBrain, ScriptError, Turn, load_brain
from gatebench.sim.server import FakeMessagesApi

__all__ = ["Brain", "FakeMessagesApi", "Router", "ScriptBrain", "ScriptError", "Turn", "load_brain"]
