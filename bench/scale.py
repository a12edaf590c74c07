"""Part 3 — scale: the same probe on the small dataset and the big one, in the same run."""

from __future__ import annotations

from bench.data import big_dataset_ensure, small_dataset_ensure
from bench.env import SMALL_SCHEMA, python_module


def run(*, fresh: bool, quick: bool, log=print) -> dict:
    args = ["--customers", "20" if quick else "60", "--repeat", "10" if quick else "30"]
    log("  small dataset …")
    ds_small = small_dataset_ensure(fresh=fresh, log=log)
    ds_big = big_dataset_ensure(log=log)
    log("  probe on the small dataset …")
    small = python_module("bench.scale_probe", *args, schema=SMALL_SCHEMA)
    log("  probe on the big dataset …")
    big = python_module("bench.scale_probe", *args, schema=None)
    return {"dataset_small": ds_small, "dataset_big": ds_big, "small": small, "big": big}
