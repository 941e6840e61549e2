"""snooplab.ray.sweep on a local Ray cluster of 2 workers against the local sweep."""

import pandas as pd
import pytest
import ray

import snooplab
import snooplab.ray

GRID = {
    "protocol": ["e2e", "snoop", "efr"],
    "error_every": ["32k", "128k"],
    "buffer": ["8k", "32k"],
    "transfer": "256k",
}


@pytest.fixture(scope="module")
def cluster():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def test_the_ray_sweep_is_the_local_sweep(cluster):
    local, local_summary = snooplab.sweep(GRID, seeds=3, seed_base=11, with_summary=True)
    remote, remote_summary = snooplab.ray.sweep(GRID, seeds=3, seed_base=11, with_summary=True)
    assert len(remote) == 3 * 2 * 2 * 3
    pd.testing.assert_frame_equal(remote, local)
    pd.testing.assert_frame_equal(remote_summary, local_summary)
    # tasks of several combinations, and several threads each, give the same frame
    pd.testing.assert_frame_equal(
        snooplab.ray.sweep(
            GRID, seeds=3, seed_base=11, combinations_per_task=5, threads_per_task=2
        ),
        local,
    )


def test_a_bad_grid_fails_before_any_task(cluster):
    with pytest.raises(ValueError, match="unknown protocol 'tahoe'"):
        snooplab.ray.sweep({"protocol": "tahoe"}, seeds=1)


def test_the_fig12_example_sweeps_the_figure(tmp_path):
    """examples/fig12-ray.py (its own local cluster) writes Fig. 12's summary as the local sweep
    makes it."""
    import runpy
    import subprocess
    import sys

    from conftest import REPO

    example = REPO / "examples" / "fig12-ray.py"
    out = tmp_path / "fig12.csv"
    p = subprocess.run(
        [sys.executable, str(example), "--seeds", "2", "--csv", str(out)],
        capture_output=True,
        text=True,
    )
    assert p.returncode == 0, p.stderr
    assert "Fig. 12 (throughput Mb/s, mean of 2 seeds, 60 runs)" in p.stdout
    grid = runpy.run_path(str(example))["GRID"]
    _, want = snooplab.sweep(grid, seeds=2, with_summary=True)
    got = pd.read_csv(out)
    for col in ["protocol", "error_every_bytes", "throughput_mbps.mean", "throughput_mbps.ci95"]:
        pd.testing.assert_series_equal(got[col], want[col], check_exact=False, rtol=1e-12)
    # the figure's point: the TCP-aware link layer beats end-to-end Reno at 1 error / 16 KB
    at16k = want[want["error_every_bytes"] == 16384].set_index("protocol")["throughput_mbps.mean"]
    assert at16k["ll-tcp-aware"] > 3 * at16k["e2e"]
