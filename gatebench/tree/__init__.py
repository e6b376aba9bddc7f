"""The tree: snapshots of a work tree and copies of it."""
