"""The cell: one prepared (task, config, rep), run, judged and recorded."""
