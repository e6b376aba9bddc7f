"""Standard-library helpers every layer shares."""
