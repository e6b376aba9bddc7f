"""Gate-3 reviewers: definitions, prompts, backends, verdict parsing and panels.

Everything here but `defs` is standard library only: the review gate runs it inside the Stop hook.
"""
