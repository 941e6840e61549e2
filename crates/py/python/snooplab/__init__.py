"""snooplab from Python: TCP over lossy wireless links, simulated.

A scenario is a dict with the keys of a scenario file (``{"protocol": "snoop", "buffer": "8k"}``;
``error_every`` and ``error-every`` alike) or the TOML text of one. Every function runs the
simulator in Rust, in parallel, with the GIL released, and returns what the command line's
``--json`` prints, as dicts and pandas DataFrames. Every argument is checked on the way in: a
wrong type raises ``TypeError``, a value out of range or unknown ``ValueError``, each naming the
argument (or the setting's key) and what it may be; bad settings raise ``ValueError`` with the
command line's message, and so does anything the engine refuses. See docs/python.md.
"""

import json
import math
import numbers
import operator
import os
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence

from . import _native

__all__ = ["run", "sweep", "summary_frame", "runs_frame", "trace", "reproduce", "protocols"]


#: The whole numbers JSON carries to the engine exactly: its settings are at most u64 (a seed)
#: and at least i64 (a size, refused later if negative); past them serde_json reads a float.
_INT_RANGE = (-(2**63), 2**64 - 1)


def _found(value):
    """What a value is, for a message: its type and repr, cut short."""
    r = repr(value)
    return f"{type(value).__name__} {r if len(r) <= 60 else r[:60] + '...'}"


def _plain(value, where="", kebab=True, top="scenario"):
    """``value`` as plain JSON data for the native module, every dict key as a scenario file spells
    it (``error_every`` -> ``error-every``) when ``kebab``. What JSON cannot carry is refused
    naming the key's path (``host-details.read-delay``, ``error-every[1]``), where the JSON
    encoder or parser would say "Object of type set is not JSON serializable" or "expected value
    at line 1 column 14": a NaN or an infinity, a whole number past u64 or i64, a key that is not
    a string, a value that is not a number, string, bool, None, list or dict. NumPy numbers are
    numbers, a tuple, a range, a NumPy array or a pandas Series of them a list, and a path
    (``pathlib.Path``) is its string; a set, which has no order, is refused."""
    name = where or top
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{name}: {value} is not a finite number")
        return value
    if isinstance(value, Mapping):
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise TypeError(f"{name}: a key must be a string, got {_found(k)}")
            key = k.replace("_", "-") if kebab else k
            out[key] = _plain(v, f"{where}.{key}" if where else key, kebab, top)
        return out
    if isinstance(value, Sequence) and not isinstance(value, (bytes, bytearray)):
        return [_plain(v, f"{where}[{i}]", kebab, top) for i, v in enumerate(value)]
    if getattr(value, "ndim", 0) == 1 and hasattr(value, "tolist"):  # a NumPy array, a Series
        return _plain(value.tolist(), where, kebab, top)
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if type(value).__module__ == "numpy" and type(value).__name__ in ("bool", "bool_"):
        return bool(value)  # numpy's bool is no int, and its int() would lose that it is one
    try:
        n = operator.index(value)  # int, numpy integers
    except TypeError:
        pass
    else:
        low, high = _INT_RANGE
        if not low <= n <= high:
            raise ValueError(
                f"{name}: {n} is out of range (a whole number here is {low} to {high})"
            )
        return n
    if isinstance(value, numbers.Real):  # numpy's float32 (float64 is a float), a Fraction
        return _plain(float(value), where, kebab, top)
    raise TypeError(
        f"{name}: expected a number, a string, True/False, None, a list or a dict, "
        f"got {_found(value)}"
    )


def _dumps(value, kebab=True):
    """``value`` as JSON for the native module (see ``_plain``)."""
    return json.dumps(_plain(value, kebab=kebab), allow_nan=False)


def _scenario(scenario):
    """The scenario as the text and format the native module reads."""
    if scenario is None:
        return "{}", "json"
    if isinstance(scenario, str):
        return scenario, "toml"
    if isinstance(scenario, Mapping):
        return _dumps(scenario), "json"
    raise TypeError(
        "scenario must be a dict of settings, a scenario file's TOML text or None, "
        f"got {_found(scenario)}"
    )


def _grid(grid):
    """A grid as the JSON the native module reads: the lists (``protocol``, ``env``, ``buffer``,
    ``mss``, ``error_every``, ``burst``, ``host``, ``transfer``), ``host_details`` and ``scenario``
    (the base: a dict or TOML text). The lists' values keep their spelling; the keys of
    ``scenario`` and ``host_details`` are spelled as a scenario file's."""
    if grid is None:
        return "{}"
    if not isinstance(grid, Mapping):
        raise TypeError(f"grid must be a dict of lists or None, got {_found(grid)}")
    out = {}
    for key, value in grid.items():
        if not isinstance(key, str):
            raise TypeError(f"grid: a key must be a string, got {_found(key)}")
        key = key.replace("_", "-")
        if key == "scenario":
            if not (value is None or isinstance(value, (str, Mapping))):
                raise TypeError(
                    "scenario (in a grid) must be a dict of settings, a scenario file's TOML "
                    f"text or None, got {_found(value)}"
                )
            value = _plain(value, key)
        elif key == "host-details":
            if not (value is None or isinstance(value, Mapping)):
                raise TypeError(f"host_details must be a dict of host details, got {_found(value)}")
            value = _plain(value, key)
        else:
            value = _plain(value, key, kebab=False)
        out[key] = value
    return json.dumps(out, allow_nan=False)


def _flag(value, name):
    """A True/False argument (``with_summary="no"`` would read as True)."""
    if value is True or value is False:
        return value
    raise TypeError(f"{name} must be True or False, got {_found(value)}")


def _rows(rows, name, what):
    """The list of dicts a frame is made of, checked: ``pd.json_normalize(None)`` raises a bare
    ``NotImplementedError``."""
    hint = ""
    if isinstance(rows, Mapping) and what in rows:
        hint = f" (for a whole sweep --json document, pass its [{what!r}])"
    if not isinstance(rows, (list, tuple)) or hint:
        raise TypeError(
            f"{name} must be a list of dicts, sweep --json's {what!r}, got {_found(rows)}{hint}"
        )
    for i, row in enumerate(rows):
        if not isinstance(row, Mapping):
            raise TypeError(f"{name}[{i}] must be a dict, got {_found(row)}")
    return list(rows)


def run(scenario=None):
    """One run: the result dict of ``snooplab run --json``."""
    return json.loads(_native.run(*_scenario(scenario)))


def runs_frame(runs):
    """One row per run from ``sweep --json``'s ``runs`` (a list of dicts); nested keys become
    dotted columns (``timeout_causes.multiple_losses``), per-flow lists stay lists."""
    import pandas as pd

    return pd.json_normalize(_rows(runs, "runs", "runs"))


def summary_frame(summaries):
    """One row per combination from ``sweep --json``'s ``summaries`` (a list of dicts;
    ``throughput_mbps.mean``, ``throughput_mbps.ci95``, ...)."""
    import pandas as pd

    return pd.json_normalize(_rows(summaries, "summaries", "summaries"))


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
        f"progress must be True, False or a callable f(done, total), got {_found(progress)}"
    )


def sweep(grid=None, seeds=10, seed_base=1, threads=None, with_summary=False, progress=False):
    """Every combination of the grid's lists, each with seeds ``seed_base .. seed_base+seeds-1``,
    in parallel on this machine. Returns a DataFrame with one row per run, in the order of
    ``snooplab sweep --json``; with ``with_summary=True``, ``(runs, summaries)``, the second one row
    per combination. ``progress=True`` keeps a line on stderr up to date (``sweep: 30/100 runs
    done, 12 s elapsed``); a callable is called as ``progress(done, total)`` instead, from the
    calling thread, at most every 50 ms (an exception it raises stops the sweep). Ctrl-C stops it
    between runs. ``seeds``: 1 to 100000; ``seed_base``: 0 to 2**64-1; ``threads``: 1 to 256, or
    None for one per core."""
    _flag(with_summary, "with_summary")
    doc = json.loads(
        _native.sweep(
            _grid(grid),
            seeds,
            seed_base,
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
    (``paper000``, ``paper001``, ``paper002``, ``paper004``; ``parts`` one part such as
    ``"fig12"`` or a list such as ``["table3", "fig12"]``, None for all of them).
    ``seeds`` (1 to 10000) and ``host`` default to the paper's own."""
    return json.loads(_native.reproduce(paper, parts, seeds, host, threads))


def protocols():
    """Every protocol's name and what it is, as ``snooplab protocols`` lists them."""
    return dict(_native.protocols())
