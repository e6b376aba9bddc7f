"""`cell.json`: what `gatebench prep` made, so run / finalize / review need nothing else."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class ArmMeta(BaseModel):
    """A plugin arm's cell (`matrix --arm NAME=PLUGIN_DIR`): the plugin loaded on top of `config` (none)."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="the arm's name: the record's config")
    plugin_source: str = Field(description="the plugin folder it was copied from")
    plugin_dir: str = Field(description="its copy in the cell, which the worker loads with --plugin-dir")
    plugin_hash: str = Field(description="content hash of the plugin at prep")
    plugin_name: str | None = Field(None, description="plugin.json's name, if it has one")
    readable: list[str] = Field(default_factory=list, description="given back to the agent to read only: the copy, "
                                "and the dependency folders (node_modules) its copy links to")


class CellMeta(BaseModel):
    model_config = ConfigDict(extra="forbid")

    v: int = 1
    task: str
    config: str
    rep: int = 0
    run_id: str | None = None
    seed: int = 0
    created_at: str
    task_hash: str = Field(description="content hash of tasks/<ID> and hidden/<ID>")
    config_hash: str
    hidden_dir: str
    reference_dir: str
    inject_dir: str
    baseline_commit: str | None = None
    variant: str = Field("normal", description="normal, or impossible: the work copy's visible tests were mutated "
                         "at prep to contradict the prompt (tasks/<ID>/variants/impossible/)")
    sealed: bool | None = Field(None, description="written by the runner: the agent ran sealed (seal proven on this "
                                "machine); None until a worker ran")
    arm: ArmMeta | None = Field(None, description="a plugin arm's cell: the plugin the worker loads")
