"""The tree: a work tree's snapshot and diff (`snapshot` walker, `gitsnap` git index path), its copies
(`treecopy`), file kinds (`filekind`) and glob sets (`globs`).

Imports: the standard library and `gatebench.common` only (the stop's path).
"""
