"""Every public function's arguments checked at the boundary (issue 49): a wrong type raises
TypeError, a value out of range or unknown ValueError, each naming the argument (or the setting's
key) and what it may be; an engine error arrives as a one-line ValueError. Each check raises
before any run starts, so these tests run none but where they say so."""

import re

import numpy as np
import pytest
import ray

import snooplab
import snooplab.ray
from snooplab import _native

U64 = 2**64 - 1
SMALL = {"transfer": "64k"}


def raises(exc, message, f, *args, **kwargs):
    """``f(*args, **kwargs)`` raises ``exc`` whose text is ``message`` (a str: the whole text; a
    compiled pattern: a match at its start), on one line."""
    with pytest.raises(exc) as e:
        f(*args, **kwargs)
    text = str(e.value)
    assert type(e.value) is exc, (type(e.value), text)
    assert "\n" not in text, text
    if isinstance(message, str):
        assert text == message
    else:
        assert message.match(text), text
    return text


# -- the new-user test's four failures -------------------------------------------------------


def test_negative_threads_say_what_threads_may_be():
    # was OverflowError: can't convert negative int to unsigned
    raises(
        ValueError,
        "threads must be a positive integer (1 to 256), got -1",
        snooplab.sweep, SMALL, seeds=1, threads=-1,
    )


def test_a_part_given_as_a_string_is_one_part():
    # was ValueError: unknown part 'f' (the string taken as the parts f, i, g, 1, 2)
    raises(
        ValueError,
        re.compile(r"unknown part 'table9' \(known: "),
        snooplab.reproduce, "paper000", "table9",
    )
    one = snooplab.reproduce("paper000", "table2", seeds=1)
    assert one == snooplab.reproduce("paper000", ["table2"], seeds=1)
    assert one["claims"], sorted(one)


def test_runs_frame_of_none_says_what_it_takes():
    # was a bare NotImplementedError from pandas
    raises(
        TypeError,
        "runs must be a list of dicts, sweep --json's 'runs', got NoneType None",
        snooplab.runs_frame, None,
    )


def test_a_negative_seed_in_a_dict_names_the_key():
    # was ValueError: invalid value: integer `-1`, expected u64 at line 1 column 11
    raises(
        ValueError,
        f"seed: expected a whole number from 0 to {U64}, got -1",
        snooplab.run, {"seed": -1},
    )


# -- snooplab.sweep (and the grid) ---------------------------------------------------------

THREADS = "threads must be a positive integer (1 to 256)"
SEEDS = "seeds must be a positive integer (1 to 100000)"
SEED_BASE = f"seed_base must be an integer (0 to {U64})"


@pytest.mark.parametrize(
    "kwargs, exc, message",
    [
        ({"threads": 0}, ValueError, f"{THREADS}, got 0"),
        ({"threads": 257}, ValueError, f"{THREADS}, got 257"),
        ({"threads": 2**70}, ValueError, f"{THREADS}, got {2**70}"),
        ({"threads": "2"}, TypeError, f"{THREADS} or None, got str '2'"),
        ({"threads": 1.5}, TypeError, f"{THREADS} or None, got float 1.5"),
        ({"threads": True}, TypeError, f"{THREADS} or None, got bool True"),
        ({"seeds": 0}, ValueError, f"{SEEDS}, got 0"),
        ({"seeds": -1}, ValueError, f"{SEEDS}, got -1"),
        ({"seeds": 100_001}, ValueError, f"{SEEDS}, got 100001"),
        ({"seeds": 2.5}, TypeError, f"{SEEDS}, got float 2.5"),
        ({"seeds": "3"}, TypeError, f"{SEEDS}, got str '3'"),
        ({"seeds": None}, TypeError, f"{SEEDS}, got NoneType None"),
        ({"seeds": False}, TypeError, f"{SEEDS}, got bool False"),
        ({"seed_base": -1}, ValueError, f"{SEED_BASE}, got -1"),
        ({"seed_base": 2**64}, ValueError, f"{SEED_BASE}, got {2**64}"),
        ({"seed_base": 1.0}, TypeError, f"{SEED_BASE}, got float 1.0"),
        ({"with_summary": "no"}, TypeError, "with_summary must be True or False, got str 'no'"),
        ({"with_summary": None}, TypeError, "with_summary must be True or False, got NoneType None"),
        ({"with_summary": 1}, TypeError, "with_summary must be True or False, got int 1"),
        (
            {"progress": "yes"},
            TypeError,
            "progress must be True, False or a callable f(done, total), got str 'yes'",
        ),
    ],
)
def test_sweep_arguments(kwargs, exc, message):
    args = {"seeds": 1, **kwargs}
    raises(exc, message, snooplab.sweep, SMALL, **args)


@pytest.mark.parametrize(
    "grid, exc, message",
    [
        (5, TypeError, "grid must be a dict of lists or None, got int 5"),
        (["e2e"], TypeError, "grid must be a dict of lists or None, got list ['e2e']"),
        ({1: ["e2e"]}, TypeError, "grid: a key must be a string, got int 1"),
        (
            {"scenario": 5},
            TypeError,
            "scenario (in a grid) must be a dict of settings, a scenario file's TOML text or "
            "None, got int 5",
        ),
        (
            {"host_details": "x"},
            TypeError,
            "host_details must be a dict of host details, got str 'x'",
        ),
        (
            {"scenario": {"seed": -1}},
            ValueError,
            f"scenario.seed: expected a whole number from 0 to {U64}, got -1",
        ),
        ({"scenario": {"protocol": 5}}, ValueError, "scenario.protocol: expected a string, got 5"),
        ({"protocol": [None]}, ValueError, "protocol: expected a string or number, got null"),
        ({"protocol": []}, ValueError, "protocol: the list is empty"),
        ({"error_every": [{1}]}, TypeError, re.compile(r"error-every\[0\]: expected a number")),
        ({"buffer": 2**64}, ValueError, re.compile(r"buffer: 18446744073709551616 is out of range")),
        ({"scenario": "seed = -1\n"}, ValueError, re.compile(r"line 1: seed: expected a whole")),
    ],
)
def test_sweep_grids(grid, exc, message):
    raises(exc, message, snooplab.sweep, grid, seeds=1)


# -- snooplab.run and snooplab.trace: the scenario and its keys --------------------------------


@pytest.mark.parametrize("f", [snooplab.run, snooplab.trace])
@pytest.mark.parametrize("scenario", [42, b"seed = 1", ["seed"], 1.5])
def test_a_scenario_is_a_dict_toml_or_none(f, scenario):
    raises(
        TypeError,
        re.compile(
            r"scenario must be a dict of settings, a scenario file's TOML text or None, got "
        ),
        f, scenario,
    )


@pytest.mark.parametrize(
    "scenario, exc, message",
    [
        ({"seed": "3"}, ValueError, f"seed: expected a whole number from 0 to {U64}, got '3'"),
        ({"seed": 1.5}, ValueError, f"seed: expected a whole number from 0 to {U64}, got 1.5"),
        ({"seed": True}, ValueError, f"seed: expected a whole number from 0 to {U64}, got True"),
        ({"seed": 2**64}, ValueError, re.compile(r"seed: 18446744073709551616 is out of range")),
        ({"seed": {1}}, TypeError, re.compile(r"seed: expected a number, a string")),
        ({"seed": float("nan")}, ValueError, "seed: nan is not a finite number"),
        ({1: 2}, TypeError, "scenario: a key must be a string, got int 1"),
        ({"protocol": 5}, ValueError, "protocol: expected a string, got 5"),
        ({"protocol": "tahoe"}, ValueError, re.compile(r"unknown protocol 'tahoe' \(known: ")),
        ({"env": "x"}, ValueError, "unknown env 'x' (known: lan, wan)"),
        ({"host": 5}, ValueError, "host: expected a string, got 5"),
        ({"buffer": True}, ValueError, "buffer: expected a size like 32k or 32768, got a boolean"),
        ({"buffer": -1}, ValueError, "buffer -1 is negative"),
        ({"transfer": 0}, ValueError, "transfer 0 is out of range: use 1 byte to 1G"),
        ({"burst": -1}, ValueError, "burst -1 is out of range"),
        ({"max_time_s": "x"}, ValueError, re.compile(r"max-time-s 'x' is not a duration \(a number and a unit: ")),
        ({"max_time_s": -1}, ValueError, "max-time-s '-1' must be between 1 ns and 10000000 s"),
        ({"host_details": "x"}, ValueError, "host-details: expected a dict, got 'x'"),
        (
            {"host_details": {"reader": "x"}},
            ValueError,
            "host detail reader = 'x': use instant or process",
        ),
        ({"down": {"model": "exponential", "every": -1}}, ValueError, "down.every -1 is negative"),
        ({"node": {"name": "a"}}, ValueError, "node: expected a list, got a dict"),
        ({"node": [{"name": 5}]}, ValueError, re.compile(r"node\[0\]\.name: expected a string")),
    ],
)
def test_scenario_keys(scenario, exc, message):
    raises(exc, message, snooplab.run, scenario)


def test_numpy_numbers_and_paths_are_numbers_and_strings(tmp_path):
    trace = tmp_path / "t.trace"
    trace.write_text("time\n0.5 0.6\n")
    plain = {"seed": 3, "transfer": "64k", "down": {"model": "trace", "file": str(trace)}}
    numpy = {"seed": np.int64(3), "transfer": "64k", "down": {"model": "trace", "file": trace}}
    assert snooplab.run(numpy) == snooplab.run(plain)
    runs = snooplab.sweep(SMALL, seeds=np.int64(2), seed_base=np.uint8(4), threads=np.int32(1))
    assert list(runs["seed"]) == [4, 5]
    # lists of a grid as a tuple, a range, an array or a Series: the same runs as a list
    import pandas as pd

    want = snooplab.sweep({**SMALL, "burst": [1, 2], "buffer": [8192, 16384]}, seeds=1)
    for burst, buffer in [
        ((1, 2), np.array([8192, 16384])),
        (range(1, 3), pd.Series([8192, 16384])),
    ]:
        got = snooplab.sweep({**SMALL, "burst": burst, "buffer": buffer}, seeds=1)
        pd.testing.assert_frame_equal(got, want)
    raises(TypeError, re.compile(r"buffer: expected a number, .* got set \{8192\}"),
           snooplab.sweep, {"buffer": {8192}}, seeds=1)
    raises(TypeError, re.compile(r"seed: expected a number, .* got bytes b'1'"),
           snooplab.run, {"seed": b"1"})


# -- engine errors: ValueError with the engine's one line -------------------------------------


def test_a_missing_channel_trace_is_a_value_error(tmp_path):
    missing = tmp_path / "missing.trace"
    scenario = {"down": {"model": "trace", "file": str(missing)}}
    msg = raises(ValueError, re.compile(r"down: cannot read channel trace "), snooplab.run, scenario)
    assert str(missing) in msg
    raises(ValueError, msg, snooplab.trace, scenario)
    raises(ValueError, msg, snooplab.sweep, {"scenario": scenario}, seeds=1)


def test_a_bad_channel_trace_is_a_value_error(tmp_path):
    bad = tmp_path / "bad.trace"
    bad.write_text("time\n0.5 0.6\nnot a period\n3 2\n")
    raises(ValueError, re.compile(r"down: .*bad\.trace"), snooplab.run,
           {"down": {"model": "trace", "file": str(bad)}})
    empty = tmp_path / "empty.trace"
    empty.write_text("")
    raises(ValueError, re.compile(r"down: .*empty channel trace"), snooplab.run,
           {"down": {"model": "trace", "file": str(empty)}})


def test_a_network_the_engine_refuses_is_a_value_error():
    # a flow between nodes the network does not have
    scenario = {"node": [{"name": "a"}], "flow": [{"from": "a", "to": "b"}]}
    raises(ValueError, re.compile(r".*\bb\b"), snooplab.run, scenario)


# -- snooplab.reproduce ---------------------------------------------------------------------

PAPER_SEEDS = "seeds must be a positive integer (1 to 10000)"


@pytest.mark.parametrize(
    "args, kwargs, exc, message",
    [
        ([5], {}, TypeError, "paper must be a paper's name such as 'paper000', got int 5"),
        ([None], {}, TypeError, "paper must be a paper's name such as 'paper000', got NoneType None"),
        (
            ["fig12"],
            {},
            ValueError,
            re.compile(r"paper must be one of paper000, .* \(a part such as 'fig12' goes in parts\), "
                       r"got 'fig12'$"),
        ),
        (["paper009"], {}, ValueError, re.compile(r"unknown paper 'paper009' \(built: paper000")),
        (
            ["paper000", [5]],
            {},
            TypeError,
            "parts[0] must be a part's name such as 'fig12', got int 5",
        ),
        (
            ["paper000", ["fig12", None]],
            {},
            TypeError,
            "parts[1] must be a part's name such as 'fig12', got NoneType None",
        ),
        (
            ["paper000", {"fig12"}],
            {},
            TypeError,
            "parts must be a part's name such as 'fig12', a list of them or None, got set {'fig12'}",
        ),
        (
            ["paper000", ["paper001"]],
            {},
            ValueError,
            re.compile(r"parts: 'paper001' is a paper, not a part of paper000 \(one paper per call"),
        ),
        (["paper000", "fig12"], {"seeds": 0}, ValueError, f"{PAPER_SEEDS}, got 0"),
        (["paper000", "fig12"], {"seeds": -1}, ValueError, f"{PAPER_SEEDS}, got -1"),
        (["paper000", "fig12"], {"seeds": 10_001}, ValueError, f"{PAPER_SEEDS}, got 10001"),
        (["paper000", "fig12"], {"seeds": "x"}, TypeError, f"{PAPER_SEEDS} or None, got str 'x'"),
        (["paper000", "fig12"], {"seeds": 2.0}, TypeError, f"{PAPER_SEEDS} or None, got float 2.0"),
        (
            ["paper000", "fig12"],
            {"host": 5},
            TypeError,
            "host must be a host profile's name such as 'bsdos-2.1' or None, got int 5",
        ),
        (["paper000", "fig12"], {"threads": -1}, ValueError, f"{THREADS}, got -1"),
        (["paper000", "fig12"], {"threads": "all"}, TypeError, f"{THREADS} or None, got str 'all'"),
    ],
)
def test_reproduce_arguments(args, kwargs, exc, message):
    raises(exc, message, snooplab.reproduce, *args, **kwargs)


# -- runs_frame and summary_frame -------------------------------------------------------------


@pytest.mark.parametrize("f, name", [(snooplab.runs_frame, "runs"),
                                     (snooplab.summary_frame, "summaries")])
@pytest.mark.parametrize(
    "rows, message",
    [
        (5, "{n} must be a list of dicts, sweep --json's '{n}', got int 5"),
        ("x", "{n} must be a list of dicts, sweep --json's '{n}', got str 'x'"),
        ([{"a": 1}, 1], "{n}[1] must be a dict, got int 1"),
        (
            {"runs": [], "summaries": []},
            "{n} must be a list of dicts, sweep --json's '{n}', got dict {{'runs': [], "
            "'summaries': []}} (for a whole sweep --json document, pass its ['{n}'])",
        ),
    ],
)
def test_frames_take_lists_of_dicts(f, name, rows, message):
    raises(TypeError, message.format(n=name), f, rows)


def test_frames_still_take_lists_and_tuples():
    assert list(snooplab.runs_frame([{"a": {"b": 1}}]).columns) == ["a.b"]
    assert len(snooplab.summary_frame(({"x": 1}, {"x": 2}))) == 2
    assert len(snooplab.runs_frame([])) == 0


# -- snooplab.ray.sweep: checked before Ray starts ----------------------------------------------


@pytest.mark.parametrize(
    "kwargs, exc, message",
    [
        ({"address": 5}, TypeError, "address must be a cluster's address (a string) or None, got int 5"),
        ({"combinations_per_task": 0}, ValueError,
         "combinations_per_task must be a positive integer (1 or more), got 0"),
        ({"combinations_per_task": "2"}, TypeError,
         "combinations_per_task must be a positive integer (1 or more), got str '2'"),
        ({"threads_per_task": 0}, ValueError,
         "threads_per_task must be a positive integer (1 to 256), got 0"),
        ({"threads_per_task": 300}, ValueError,
         "threads_per_task must be a positive integer (1 to 256), got 300"),
        ({"with_summary": "yes"}, TypeError, "with_summary must be True or False, got str 'yes'"),
        ({"seeds": -1}, ValueError, f"{SEEDS}, got -1"),
        ({"seed_base": "1"}, TypeError, f"{SEED_BASE}, got str '1'"),
    ],
)
def test_ray_sweep_arguments_fail_before_ray_starts(kwargs, exc, message):
    was = ray.is_initialized()
    raises(exc, message, snooplab.ray.sweep, SMALL, **{"seeds": 1, **kwargs})
    assert ray.is_initialized() == was


# -- the native functions themselves ----------------------------------------------------------


@pytest.mark.parametrize(
    "call, exc, message",
    [
        (lambda: _native.sweep("{}", 1, 1, -1), ValueError, f"{THREADS}, got -1"),
        (lambda: _native.sweep("{}", 1, 1, None, -1), ValueError,
         "first must be an integer (0 or more), got -1"),
        (lambda: _native.sweep("{}", 1, 1, None, 0, "x"), TypeError,
         "count must be an integer (0 or more) or None, got str 'x'"),
        (lambda: _native.sweep("{}", 1, 1, progress=5), TypeError,
         "progress must be a callable f(done, total) or None, got int 5"),
        (lambda: _native.sweep("{}", "1", 1), TypeError, f"{SEEDS}, got str '1'"),
        (lambda: _native.combinations("{}", 0, 1), ValueError, f"{SEEDS}, got 0"),
        (lambda: _native.reproduce("paper000", "fig12", -1), ValueError, f"{PAPER_SEEDS}, got -1"),
        (lambda: _native.run("{}", "yaml"), ValueError,
         "unknown scenario format 'yaml' (known: json, toml)"),
        (lambda: _native.run('{"seed": -1}', "json"), ValueError,
         f"seed: expected a whole number from 0 to {U64}, got -1"),
        (lambda: _native.run(5, "json"), TypeError,
         re.compile(r"argument 'scenario_text': 'int' object is not an instance of 'str'")),
        (lambda: _native.combinations(None, 1, 1), TypeError, re.compile(r"argument 'grid': ")),
        (lambda: _native.check_integer(-3, "n", 1, 9), ValueError,
         "n must be a positive integer (1 to 9), got -3"),
        (lambda: _native.check_integer(3, "n", 0, 2), ValueError,
         "n must be an integer (0 to 2), got 3"),
    ],
)
def test_native_arguments(call, exc, message):
    raises(exc, message, call)


def test_a_sweep_part_runs_its_combinations():
    # the Ray tasks' call: combinations 1 and 2 of 3, with the seeds given as ints
    grid = snooplab._grid({"protocol": ["e2e", "snoop", "split"], "transfer": "64k"})
    import json

    part = json.loads(_native.sweep(grid, 2, 5, 1, 1, 2))
    assert [r["protocol"] for r in part["runs"]] == ["ll-tcp-aware"] * 2 + ["split"] * 2
    assert [r["seed"] for r in part["runs"]] == [5, 6, 5, 6]
