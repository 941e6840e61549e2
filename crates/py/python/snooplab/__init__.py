"""snooplab from Python: TCP over lossy wireless links, simulated.

A scenario is a dict with the keys of a scenario file (``{"protocol": "snoop", "buffer": "8k"}``;
``error_every`` and ``error-every`` alike) or the TOML text of one. Every function runs the
simulator in Rust, in parallel, with the GIL released, and returns what the command line's
``--json`` prints, as dicts and pandas DataFrames. Bad settings raise ``ValueError`` with the
command line's message. See docs/python.md.
"""

import json
import math
import os
import sys
import tempfile
import time
from collections.abc import Mapping

from . import _native

__all__ = ["run", "sweep", "summary_frame", "runs_frame", "trace", "reproduce", "protocols"]


def _kebab(value):
    """Dict keys as a scenario file spells them (``error_every`` -> ``error-every``)."""
    if isinstance(value, Mapping):
        return {str(k).replace("_", "-"): _kebab(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_kebab(v) for v in value]
    return value


def _finite(value, where=""):
    """Raises ``ValueError`` naming the key of the first NaN or infinity in ``value``: JSON has no
    such number, and the parser's "expected value at line 1 column 14" would not say which."""
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{where or 'value'}: {value} is not a finite number")
    if isinstance(value, Mapping):
        for k, v in value.items():
            _finite(v, f"{where}.{k}" if where else str(k))
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _finite(v, f"{where}[{i}]")


def _dumps(value):
    """``value`` as JSON for the native module, its non-finite numbers refused by key."""
    _finite(value)
    return json.dumps(value, allow_nan=False)


def _scenario(scenario):
    """The scenario as the text and format the native module reads."""
    if scenario is None:
        return "{}", "json"
    if isinstance(scenario, str):
        return scenario, "toml"
    if isinstance(scenario, Mapping):
        return _dumps(_kebab(scenario)), "json"
    raise TypeError(
        f"a scenario is a dict or a scenario file's TOML text, not {type(scenario).__name__}"
    )


def _grid(grid):
    """A grid as the JSON the native module reads: the lists (``protocol``, ``env``, ``buffer``,
    ``mss``, ``error_every``, ``burst``, ``host``, ``transfer``), ``host_details`` and ``scenario``
    (the base: a dict or TOML text)."""
    if grid is None:
        return "{}"
    if not isinstance(grid, Mapping):
        raise TypeError(f"a grid is a dict, not {type(grid).__name__}")
    out = {}
    for key, value in grid.items():
        key = str(key).replace("_", "-")
        if key == "scenario" and not isinstance(value, str):
            value = _kebab(value)
        elif key == "host-details":
            value = _kebab(value)
        out[key] = value
    return _dumps(out)


def run(scenario=None):
    """One run: the result dict of ``snooplab run --json``."""
    return json.loads(_native.run(*_scenario(scenario)))


def runs_frame(runs):
    """One row per run from ``sweep --json``'s ``runs``; nested keys become dotted columns
    (``timeout_causes.multiple_losses``), per-flow lists stay lists."""
    import pandas as pd

    return pd.json_normalize(runs)


def summary_frame(summaries):
    """One row per combination from ``sweep --json``'s ``summaries`` (``throughput_mbps.mean``,
    ``throughput_mbps.ci95``, ...)."""
    import pandas as pd

    return pd.json_normalize(summaries)


class _ProgressLine:
    """``progress=True``: one line on stderr, rewritten as runs end (as ``snooplab sweep``'s
    plain progress), ended with a newline when the last run is done."""

    def __init__(self, label):
        self.label, self.start = label, time.monotonic()

    def __call__(self, done, total):
        end = "\n" if done >= total else ""
        elapsed = time.monotonic() - self.start
        sys.stderr.write(f"\r{self.label}: {done}/{total} runs done, {elapsed:.0f} s elapsed{end}")
        sys.stderr.flush()


def _progress(progress, label):
    """``progress`` as the native module takes it: ``None``, or a callable ``f(done, total)``."""
    if progress is None or progress is False:
        return None
    if progress is True:
        return _ProgressLine(label)
    if callable(progress):
        return progress
    raise TypeError(
        f"progress is True, False or a callable f(done, total), not {type(progress).__name__}"
    )


def sweep(grid=None, seeds=10, seed_base=1, threads=None, with_summary=False, progress=False):
    """Every combination of the grid's lists, each with seeds ``seed_base .. seed_base+seeds-1``,
    in parallel on this machine. Returns a DataFrame with one row per run, in the order of
    ``snooplab sweep --json``; with ``with_summary=True``, ``(runs, summaries)``, the second one row
    per combination. ``progress=True`` keeps a line on stderr up to date (``sweep: 30/100 runs
    done, 12 s elapsed``); a callable is called as ``progress(done, total)`` instead, from the
    calling thread, at most every 50 ms (an exception it raises stops the sweep). Ctrl-C stops it
    between runs."""
    doc = json.loads(
        _native.sweep(
            _grid(grid),
            str(seeds),
            str(seed_base),
            threads,
            progress=_progress(progress, "sweep"),
        )
    )
    runs = runs_frame(doc["runs"])
    if with_summary:
        return runs, summary_frame(doc["summaries"])
    return runs


def trace(scenario=None):
    """One run traced: its tables (``segments``, ``acks``, ``cwnd``, ``bs_cache``,
    ``suppressed_dupacks``, ``nodes``, as ``snooplab run --trace`` writes them) as DataFrames,
    and ``run``, the result dict."""
    import pandas as pd

    with tempfile.TemporaryDirectory(prefix="snooplab-trace-") as d:
        result = json.loads(_native.trace(*_scenario(scenario), d))
        tables = {
            name[: -len(".csv")]: pd.read_csv(os.path.join(d, name))
            for name in sorted(os.listdir(d))
            if name.endswith(".csv")
        }
    tables["run"] = result
    return tables


def reproduce(paper="paper000", parts=None, seeds=None, host=None, threads=None):
    """A paper's experiments run and set beside the paper's numbers, its claims checked: the report
    dict that ``snooplab reproduce PAPER [PART...] --json`` prints under the paper's name
    (``paper000``, ``paper001``, ``paper002``, ``paper004``; ``parts`` such as
    ``["table3", "fig12"]``).
    ``seeds`` and ``host`` default to the paper's own."""
    words = [paper, *(parts or [])]
    doc = json.loads(
        _native.reproduce(words, None if seeds is None else int(seeds), host, threads)
    )
    return doc[next(iter(doc))]


def protocols():
    """Every protocol's name and what it is, as ``snooplab protocols`` lists them."""
    return dict(_native.protocols())
