"""snooplab.sweep against the command line's sweep, and Ctrl-C during a sweep."""

import faulthandler
import os
import re
import signal
import threading

import pandas as pd
import pytest

import snooplab

GRID = {
    "protocol": ["e2e", "snoop", "split"],
    "error_every": ["32k", "128k"],
    "buffer": "8k",
    "transfer": "256k",
}
FLAGS = [
    "--protocol", "e2e,snoop,split",
    "--error-every", "32k,128k",
    "--buffer", "8k",
    "--transfer", "256k",
]


def test_sweep_equals_the_cli_sweep_json(cli_json):
    want = cli_json("sweep", *FLAGS, "--seeds", 4, "--seed-base", 3)
    runs, summaries = snooplab.sweep(GRID, seeds=4, seed_base=3, with_summary=True)
    assert len(runs) == 3 * 2 * 4
    pd.testing.assert_frame_equal(runs, snooplab.runs_frame(want["runs"]))
    pd.testing.assert_frame_equal(summaries, snooplab.summary_frame(want["summaries"]))
    # one row per run, in the CLI's order: combinations in order, seeds within each
    assert list(runs["seed"][:5]) == [3, 4, 5, 6, 3]
    assert list(runs["protocol"][::8]) == ["e2e", "ll-tcp-aware", "split"]
    # and the threads do not change it
    pd.testing.assert_frame_equal(snooplab.sweep(GRID, seeds=4, seed_base=3, threads=1), runs)


def test_a_sweep_over_a_scenario_file_equals_the_cli(cli_json):
    from conftest import REPO

    path = REPO / "examples" / "cell-3-senders.toml"
    want = cli_json("sweep", "--scenario", path, "--protocol", "e2e,efr", "--seeds", 2)
    got = snooplab.sweep({"scenario": path.read_text(), "protocol": ["e2e", "efr"]}, seeds=2)
    pd.testing.assert_frame_equal(got, snooplab.runs_frame(want["runs"]))


def test_a_transfer_list_equals_the_cli_and_the_runs_made_alone(cli_json):
    # the 64 KB runs fork from the 192 KB ones, and er's are taken from e2e's where the rule
    # never acted: the same frames as the command line's, and as one sweep per transfer
    grid = {"protocol": ["e2e", "er"], "transfer": ["192k", "64k"], "error_every": "32k"}
    want = cli_json(
        "sweep", "--protocol", "e2e,er", "--transfer", "192k,64k", "--error-every", "32k",
        "--seeds", 3,
    )
    got = snooplab.sweep(grid, seeds=3)
    pd.testing.assert_frame_equal(got, snooplab.runs_frame(want["runs"]))
    assert list(got["transfer_bytes"][::3]) == [196608, 65536, 196608, 65536]
    alone = pd.concat(
        [snooplab.sweep({**grid, "protocol": p, "transfer": t}, seeds=3)
         for p in ["e2e", "er"] for t in ["192k", "64k"]],
        ignore_index=True,
    )
    pd.testing.assert_frame_equal(got, alone)


@pytest.mark.parametrize(
    "grid, flags",
    [
        ({"protocol": ["e2e", "tahoe"]}, ["--protocol", "e2e,tahoe"]),
        ({"buffer": ["8k", "-1"]}, ["--buffer", "8k,-1"]),
        ({"host": "win95"}, ["--host", "win95"]),
        ({"seed_base": 2**64 - 1, "seeds": 2}, ["--seed-base", str(2**64 - 1), "--seeds", "2"]),
    ],
)
def test_bad_grids_raise_value_error_with_the_cli_message(cli, grid, flags):
    grid = dict(grid)
    seeds = dict(seeds=grid.pop("seeds", 1), seed_base=grid.pop("seed_base", 1))
    code, _, err = cli("sweep", *flags, *([] if "--seeds" in flags else ["--seeds", 1]))
    assert code == 2
    with pytest.raises(ValueError) as e:
        snooplab.sweep(grid, **seeds)
    assert str(e.value) == err.strip().removeprefix("error: ")


def test_too_many_runs_are_refused_before_any_runs():
    with pytest.raises(ValueError, match="more than the limit of 100000"):
        snooplab.sweep({"error_every": [f"{k}k" for k in range(1, 21)]}, seeds=10_000)
    with pytest.raises(ValueError, match="unknown field `protocols`"):
        snooplab.sweep({"protocols": ["e2e"]}, seeds=1)


def test_ctrl_c_stops_a_sweep_and_the_next_one_runs():
    # 20000 runs of 64 MB each: minutes on any machine, so only the interrupt can end it in time
    # (a hang would be caught by the watchdog below, which fails the whole run, not by a clock in
    # an assertion)
    big = {"transfer": "64M", "error_every": "0"}
    faulthandler.dump_traceback_later(300, exit=True)
    try:
        threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()
        with pytest.raises(KeyboardInterrupt):
            snooplab.sweep(big, seeds=20_000)
    finally:
        faulthandler.cancel_dump_traceback_later()
    # the interrupted sweep left nothing behind that stops the next one
    again = snooplab.sweep({"transfer": "64k"}, seeds=2)
    assert list(again["seed"]) == [1, 2]


def test_progress_counts_every_run_and_ends_at_the_total(capsys):
    seen = []
    runs = snooplab.sweep(GRID, seeds=2, progress=lambda done, total: seen.append((done, total)))
    assert len(runs) == 12
    # counts only grow, every call has the total, the last is the end
    assert seen and all(total == 12 for _, total in seen)
    assert [d for d, _ in seen] == sorted({d for d, _ in seen})
    assert seen[-1] == (12, 12)
    # progress=True: one line on stderr, finished with a newline
    snooplab.sweep({"transfer": "64k"}, seeds=3, progress=True)
    err = capsys.readouterr().err
    assert re.search(r"\rsweep: 3/3 runs done, \d+ s elapsed\n$", err), repr(err)
    with pytest.raises(TypeError, match="progress must be True, False or a callable"):
        snooplab.sweep(GRID, seeds=1, progress="yes")


def test_an_exception_in_progress_stops_the_sweep():
    def stop(done, total):
        raise RuntimeError(f"stop at {done} of {total}")

    big = {"transfer": "64M", "error_every": "0"}
    faulthandler.dump_traceback_later(300, exit=True)
    try:
        with pytest.raises(RuntimeError, match="stop at"):
            snooplab.sweep(big, seeds=20_000, progress=stop)
    finally:
        faulthandler.cancel_dump_traceback_later()
