"""Putting the gate into a repo: config loading and resolution, the settings.json merge, the state dir."""
