#!/usr/bin/env python3
"""The Python package's overheads (figures in docs/python.md):

1. a 1000-run sweep from Python (snooplab.sweep, the DataFrame included) against the command line's
   `snooplab sweep --json` for the same runs, alternated, --repeat each: the best wall time (the
   machine is shared; the best is the run least disturbed) and the CPU time (user + system, all
   threads; what load does not change much);
2. Ray's overhead per task: snooplab.ray.sweep on a local cluster of --cpus workers against
   snooplab.sweep on as many threads, for the same 1000 runs (one combination per task) and for
   tasks that do almost nothing (1 KB transfers), per task.

    scripts/python-env && target/py-venv/bin/python crates/py/bench/bench.py [--repeat 7]
        [--threads N] [--no-ray]
"""

import argparse
import json
import os
import pathlib
import resource
import subprocess
import time

import snooplab

REPO = pathlib.Path(__file__).resolve().parents[3]
# 4 schemes x 5 error rates x 50 seeds = 1000 runs of paper 000's 8 MB LAN transfer
GRID = {
    "protocol": ["e2e", "ll-tcp-aware", "e2e-smart", "split-smart"],
    "error_every": ["16k", "32k", "64k", "128k", "256k"],
}
FLAGS = ["--protocol", "e2e,ll-tcp-aware,e2e-smart,split-smart",
         "--error-every", "16k,32k,64k,128k,256k"]
SEEDS = 50


def wall(f):
    t = time.perf_counter()
    f()
    return time.perf_counter() - t


def cpu_of(f, child):
    """(wall, CPU seconds) of f: this process's CPU or its children's."""
    who = resource.RUSAGE_CHILDREN if child else resource.RUSAGE_SELF
    r0 = resource.getrusage(who)
    w = wall(f)
    r1 = resource.getrusage(who)
    return w, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def fmt(ts):
    return ", ".join(f"{t:.3f}" for t in ts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--cpus", type=int, default=os.cpu_count())
    ap.add_argument("--threads", type=int, default=None, help="sweep threads [default: --cpus]")
    ap.add_argument("--no-ray", action="store_true", help="only the comparison with the CLI")
    ap.add_argument("--bin", default=str(REPO / "target" / "release" / "snooplab"))
    a = ap.parse_args()
    threads = a.threads or a.cpus

    cli_cmd = [a.bin, "sweep", *FLAGS, "--seeds", str(SEEDS), "--json", "--threads", str(threads)]

    def cli():
        subprocess.run(cli_cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def py():
        snooplab.sweep(GRID, seeds=SEEDS, threads=threads)

    py(), cli()  # warm-up: page cache, rayon's pool
    c, p = [], []
    for _ in range(a.repeat):
        c.append(cpu_of(cli, True))
        p.append(cpu_of(py, False))
    w_cli, w_py = min(w for w, _ in c), min(w for w, _ in p)
    u_cli, u_py = min(u for _, u in c), min(u for _, u in p)
    print(f"1000-run sweep, {threads} threads, best of {a.repeat} (wall) and least CPU:")
    print(f"  CLI sweep --json  wall {w_cli:.3f} s, CPU {u_cli:.3f} s  (walls: {fmt(w for w, _ in c)})")
    print(f"  snooplab.sweep    wall {w_py:.3f} s, CPU {u_py:.3f} s  (walls: {fmt(w for w, _ in p)})")
    # each pair ran back to back, under much the same load from anything else on the machine
    pairs = sorted(pw / cw for (cw, _), (pw, _) in zip(c, p))
    print(f"  Python / CLI      wall {w_py / w_cli:.3f} (best against best), "
          f"{pairs[len(pairs) // 2]:.3f} (median of the {len(pairs)} back-to-back pairs), "
          f"CPU {u_py / u_cli:.3f}")
    # where Python's extra time goes: the native sweep's JSON, then the DataFrame
    from snooplab import _grid, _native, runs_frame

    g = _grid(GRID)
    t_native = min(wall(lambda: _native.sweep(g, SEEDS, 1, threads)) for _ in range(a.repeat))
    text = _native.sweep(g, SEEDS, 1, threads)
    t_frame = min(wall(lambda: runs_frame(json.loads(text)["runs"])) for _ in range(a.repeat))
    print(f"  of which: native sweep to JSON {t_native:.3f} s, JSON to DataFrame {t_frame:.3f} s")

    if a.no_ray:
        return
    import ray

    import snooplab.ray as sray

    ray.init(num_cpus=a.cpus, include_dashboard=False, log_to_driver=False)
    try:
        sray.sweep(GRID, seeds=1)  # warm-up: worker processes started, module imported
        tasks = len(GRID["protocol"]) * len(GRID["error_every"])
        t_ray = [wall(lambda: sray.sweep(GRID, seeds=SEEDS)) for _ in range(a.repeat)]
        m_ray = min(t_ray)
        print(f"Ray, local cluster of {a.cpus} workers, the same 1000 runs in {tasks} tasks, best of "
              f"{a.repeat}:")
        print(f"  ray.sweep         {m_ray:.3f} s  (walls: {fmt(t_ray)}); snooplab.sweep {w_py:.3f} s")
        print(f"  overhead per task {(m_ray - w_py) / tasks * 1000:.1f} ms of wall time")
        tiny = {"transfer": "1k", "error_every": [f"{k}k" for k in range(16, 16 + 200)]}
        n = len(tiny["error_every"])
        t_tiny = [wall(lambda: sray.sweep(tiny, seeds=1)) for _ in range(a.repeat)]
        t_tiny_local = [wall(lambda: snooplab.sweep(tiny, seeds=1, threads=threads))
                        for _ in range(a.repeat)]
        m_tiny, m_tiny_local = min(t_tiny), min(t_tiny_local)
        print(f"  {n} tasks of one 1 KB run: ray.sweep {m_tiny:.3f} s, local {m_tiny_local:.3f} s, "
              f"{(m_tiny - m_tiny_local) / n * 1000:.2f} ms per task "
              f"({(m_tiny - m_tiny_local) / n * a.cpus * 1000:.2f} ms of a worker's time)")
    finally:
        ray.shutdown()


if __name__ == "__main__":
    main()
