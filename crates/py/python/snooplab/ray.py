"""Sweeps on a Ray cluster: ``snooplab.ray.sweep(grid, seeds, address=None)``.

The grid's combinations are split into tasks (``combinations_per_task`` each); every task runs its
combinations with all their seeds through the same native sweep as :func:`snooplab.sweep`, and the
parts are joined in order, so the frame is the local sweep's for the same seeds. Needs the extra:
``pip install snooplab[ray]``. See docs/python.md for a cluster of several machines.
"""

import json

from . import _flag, _found, _grid, _native, runs_frame, summary_frame

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
    CPUs and uses that many threads (1 to 256). Every argument is checked here, before Ray starts
    or any task does, with the local sweep's messages."""
    import ray

    if address is not None and not isinstance(address, str):
        raise TypeError(
            f"address must be a cluster's address (a string) or None, got {_found(address)}"
        )
    per_task = _native.check_integer(combinations_per_task, "combinations_per_task", 1)
    threads = _native.check_integer(threads_per_task, "threads_per_task", 1, _native.MAX_THREADS)
    _flag(with_summary, "with_summary")
    g = _grid(grid)
    # the grid and the seeds, with the local sweep's messages
    n = _native.combinations(g, seeds, seed_base)
    if not ray.is_initialized():
        ray.init(address=address)
    task = ray.remote(num_cpus=threads)(_part)
    refs = [
        task.remote(g, seeds, seed_base, first, per_task, threads)
        for first in range(0, n, per_task)
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
