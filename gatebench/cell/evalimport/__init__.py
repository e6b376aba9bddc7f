"""Reading an existing `claude plugin eval` suite (SPEC.md section 18, "Importing a suite"): `cases` finds and
parses its cases (case.yaml, or prompt.md with graders/*.md), `graders` grades a finished run offline the way the
CLI does (regex, tool_used, tool_order, file_exists; llm and baseline marked unscored without a key)."""
