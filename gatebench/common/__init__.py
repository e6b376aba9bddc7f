"""Standard-library helpers every layer shares: every default (`defaults`), atomic writes and JSONL
(`util`), processes (`proc`), text trimming and path scrubbing (`text`), the fast JSON codec (`jsonfast`).

Imports: the standard library only, nothing of gatebench but `gatebench/__init__`.
"""
