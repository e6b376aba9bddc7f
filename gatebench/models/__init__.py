"""Pydantic models: the one source of truth for every file format gatebench reads or writes.

Heavy (pydantic); never imported on the hook's path.
"""
