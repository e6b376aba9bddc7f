"""`gatebench schema NAME`: print the JSON Schema of a file format."""

from __future__ import annotations

import argparse
import importlib
import json

HELP = "print the JSON Schema of a gatebench file format"

# name -> (module, model): every file format has its pydantic model as the one source of truth.
MODELS = {
    "config": ("gatebench.models.config", "GateConfig"),
    "resolved": ("gatebench.models.config", "ResolvedConfig"),
    "task": ("gatebench.models.task", "Task"),
    "inject": ("gatebench.models.task", "Inject"),
    "variant": ("gatebench.models.task", "Variant"),
    "eval-task": ("gatebench.models.evaltask", "EvalTask"),
    "recipe": ("gatebench.models.recipe", "Recipe"),
    "suite": ("gatebench.models.recipe", "SuiteSamples"),
    "event": ("gatebench.models.events", "HookEvent"),
    "result": ("gatebench.models.result", "ResultRecord"),
    "sim-policy": ("gatebench.models.sim", "SimPolicy"),
    "reviewer": ("gatebench.models.reviewer", "ReviewerDef"),
    "analysis": ("gatebench.models.analysis", "Analysis"),
    "plugin-eval-export": ("gatebench.models.plugineval", "ExportManifest"),
    "plugin-eval-case": ("gatebench.models.plugineval", "CaseTemplate"),
    "plugin-eval-run": ("gatebench.models.plugineval", "PrivateRun"),
    "plugin-eval-sim": ("gatebench.models.plugineval", "SimRun"),
    "plugin-eval-aggregate": ("gatebench.models.plugineval", "Aggregate"),
}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("name", choices=sorted(MODELS), help="which format")


def run(args: argparse.Namespace) -> int:
    from gatebench.errors import UsageError

    mod, cls = MODELS[args.name]
    try:
        model = getattr(importlib.import_module(mod), cls)
    except (ModuleNotFoundError, AttributeError):
        raise UsageError(f"the {args.name} format is not part of this build yet")
    print(json.dumps(model.model_json_schema(by_alias=True), indent=2))
    return 0
