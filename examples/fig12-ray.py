#!/usr/bin/env python3
"""Paper 000's Fig. 12 swept on Ray: throughput of six schemes across wireless error rates in the
LAN with 32 KB buffers (the paper's 8 MB transfers, 1400-byte segments, BSD/OS 2.1 hosts), the
mean over seeds with its 95% interval, as a table, a CSV and a plot.

    pip install 'snooplab[ray]' matplotlib        # or: scripts/python-env, then pip install matplotlib
    python examples/fig12-ray.py --seeds 10 --plot fig12.png
    python examples/fig12-ray.py --address auto   # on a running cluster (docs/python.md)

The same sweep without Ray: snooplab.sweep(GRID, seeds) on one machine gives the same numbers.
"""

import argparse

import snooplab
import snooplab.ray

# Fig. 12's schemes and error rates (one bit error every N bytes on average, each direction)
PROTOCOLS = ["e2e", "ll-tcp-aware", "ll-smart-tcp-aware", "e2e-smart", "e2e-ietf-sack", "split-smart"]
ERRORS = [16384, 32768, 65536, 131072, 262144]
GRID = {"env": "lan", "buffer": "32k", "protocol": PROTOCOLS, "error_every": ERRORS}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=10, help="seeds per point (the paper's 10)")
    ap.add_argument("--address", default=None, help="a Ray cluster [default: a local one]")
    ap.add_argument("--csv", default="fig12.csv", help="where to write the summary table")
    ap.add_argument("--plot", default=None, help="draw the figure into this file (matplotlib)")
    a = ap.parse_args()

    runs, summary = snooplab.ray.sweep(GRID, seeds=a.seeds, address=a.address, with_summary=True)
    table = summary.pivot(index="error_every_bytes", columns="protocol", values="throughput_mbps.mean")
    table = table[PROTOCOLS]
    print(f"Fig. 12 (throughput Mb/s, mean of {a.seeds} seeds, {len(runs)} runs):")
    print(table.round(3).to_string())
    summary.to_csv(a.csv, index=False)
    print(f"wrote {a.csv}")

    if a.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(7, 4.5))
        for p in PROTOCOLS:
            s = summary[summary["protocol"] == p].sort_values("error_every_bytes")
            ax.errorbar(
                s["error_every_bytes"] / 1024,
                s["throughput_mbps.mean"],
                yerr=s["throughput_mbps.ci95"],
                marker="o",
                capsize=3,
                label=p,
            )
        ax.set_xscale("log", base=2)
        ax.set_xlabel("bytes between errors (KB)")
        ax.set_ylabel("throughput (Mb/s)")
        ax.set_title("Paper 000, Fig. 12: LAN, 32 KB buffers")
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(a.plot, dpi=120)
        print(f"wrote {a.plot}")


if __name__ == "__main__":
    main()
