"""Sweeps on a Ray cluster: ``snooplab.ray.sweep(grid, seeds, address=None)``.

The grid's combinations are split into tasks (``combinations_per_task`` each); every task runs its
combinations with all their seeds through the same native sweep as :func:`snooplab.sweep`, and the
parts are joined in order, so the frame is the local sweep's for the same seeds. Needs the extra:
``pip install snooplab[ray]``. See docs/python.md for a cluster of several machines.
"""

import json

from . import _grid, _native, runs_frame, summary_frame

__all__ = ["sweep"]


def _part(grid, seeds, seed_base, first, count, threads):
    """One task: combinations ``first .. first+count`` on the worker, as JSON text."""
    from snooplab import _native as native

    return native.sweep(grid, seeds, seed_base, threads, first, count)


def sweep(
    grid=None,
    seeds=10,
    seed_base=1,
    address=None,
    combinations_per_task=1,
    threads_per_task=1,
    with_summary=False,
):
    """The sweep of :func:`snooplab.sweep` on Ray. ``address``: a running cluster
    (``"auto"``, ``"ray://head:10001"``, ``"10.0.0.1:6379"``); ``None`` joins the cluster this
    process already started or starts a local one. Each task asks Ray for ``threads_per_task``
    CPUs and uses that many threads."""
    import ray

    if combinations_per_task < 1 or threads_per_task < 1:
        raise ValueError("combinations_per_task and threads_per_task must be at least 1")
    g = _grid(grid)
    seeds, seed_base = str(seeds), str(seed_base)
    # checks the grid here, before any task starts, with the local sweep's messages
    n = _native.combinations(g, seeds, seed_base)
    if not ray.is_initialized():
        ray.init(address=address)
    task = ray.remote(num_cpus=threads_per_task)(_part)
    refs = [
        task.remote(g, seeds, seed_base, first, combinations_per_task, threads_per_task)
        for first in range(0, n, combinations_per_task)
    ]
    runs, summaries = [], []
    for text in ray.get(refs):
        part = json.loads(text)
        runs.extend(part["runs"])
        summaries.extend(part["summaries"])
    frame = runs_frame(runs)
    if with_summary:
        return frame, summary_frame(summaries)
    return frame
