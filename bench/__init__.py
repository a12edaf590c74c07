"""Benchmarks: how close the system runs to the limit the model sets. Entry point: `python -m bench`."""
