"""The task suite: tasks, recipes, import, variants, mutants, selftest."""
