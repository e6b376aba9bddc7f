"""Read YAML/JSON files into pydantic models, with errors that name the file and the field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from gatebench.errors import UsageError

M = TypeVar("M", bound=BaseModel)
# libyaml's parser when PyYAML has it (the wheels do): the same documents and errors, several times faster than
# the pure-Python one (task.yaml, configs and sim policies are read at every prep and finalize of a cell).
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class FileFormatError(UsageError):
    """A file exists but is not valid: the message names the file and each bad field."""


def describe(err: ValidationError) -> str:
    lines = []
    for e in err.errors():
        loc = ".".join(str(p) for p in e["loc"]) or "(top level)"
        msg = e["msg"]
        if e["type"] == "extra_forbidden":
            msg = "unknown key"
        lines.append(f"  {loc}: {msg}")
    return "\n".join(lines)


def read_data(path: Path) -> object:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FileFormatError(f"{path}: file not found")
    except (OSError, UnicodeDecodeError) as e:
        raise FileFormatError(f"{path}: cannot read: {e}")
    try:
        if path.suffix == ".json":
            return json.loads(text)
        return yaml.load(text, Loader=_Loader)  # a safe loader, C or Python
    except (yaml.YAMLError, json.JSONDecodeError) as e:
        raise FileFormatError(f"{path}: not valid {'JSON' if path.suffix == '.json' else 'YAML'}: {e}")


def load_model(path: Path, model: type[M], **overrides: object) -> M:
    data = read_data(path)
    if not isinstance(data, dict):
        raise FileFormatError(f"{path}: expected a mapping at the top level, got {type(data).__name__}")
    data.update(overrides)
    try:
        return model.model_validate(data)
    except ValidationError as e:
        raise FileFormatError(f"{path}: invalid {model.__name__}:\n{describe(e)}")
