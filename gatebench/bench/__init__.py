"""The bench runner: prep a cell, run a worker in it, finalize (score) it, and the matrix of cells.

Heavy (pydantic, yaml); never imported on the hook's path.
"""
