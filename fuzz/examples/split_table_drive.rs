//! The split relay table's checks (`fuzz/src/split_table.rs`) on one table for many operations,
//! from a seeded PCG instead of libFuzzer's inputs: what a table that runs for days meets (its
//! remembered connections and its relays coming and going), which one fuzzer input of 200
//! operations cannot reach. Deterministic: the same seed drives the same operations.
//!
//!     cargo run --profile drive --example split_table_drive -- [OPERATIONS] [SEED] [TABLES]
//!
//! runs TABLES tables (default 10) of OPERATIONS / TABLES operations each (default 10 million in
//! all), each with its own settings from the generator, and prints the operations, the relays
//! made and left unsplit, and the process's peak resident set (VmHWM).

use rand_core::{RngCore, SeedableRng};
use rand_pcg::Pcg64Mcg;
use snooplab_fuzz::split_table::{config, ByteSource, Table};

struct Pcg(Pcg64Mcg);

impl ByteSource for Pcg {
    fn byte(&mut self) -> u8 {
        self.0.next_u32() as u8
    }
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        let mut v = vec![0; n];
        self.0.fill_bytes(&mut v);
        v
    }
    fn done(&self) -> bool {
        false
    }
}

fn arg(n: usize, default: u64) -> u64 {
    match std::env::args().nth(n) {
        None => default,
        Some(a) => a.parse().unwrap_or_else(|_| {
            eprintln!("error: argument {n} is not a whole number: {a}");
            std::process::exit(2)
        }),
    }
}

/// The process's peak resident set, from /proc (kB), or 0 where it cannot be read.
fn peak_rss_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

fn main() {
    let (ops, seed, tables) = (arg(1, 10_000_000), arg(2, 1), arg(3, 10).max(1));
    let mut rng = Pcg(Pcg64Mcg::seed_from_u64(seed));
    let (mut done, mut relays, mut unsplit, mut most) = (0, 0, 0, 0);
    for t in 0..tables {
        let mut table = Table::new(config(&mut rng));
        for _ in 0..ops / tables {
            table.step(&mut rng);
        }
        let s = table.agent.stats();
        done += table.ops;
        relays += s.relays;
        unsplit += s.unsplit;
        most = most.max(s.relays_most);
        eprintln!(
            "table {t}: {} operations, {} relays (at most {} at once), {} unsplit, peak RSS {} kB",
            table.ops,
            s.relays,
            s.relays_most,
            s.unsplit,
            peak_rss_kb()
        );
    }
    println!(
        "{done} operations on {tables} tables (seed {seed}): {relays} relays, at most {most} at \
         once, {unsplit} connections unsplit, no check failed; peak RSS {} kB",
        peak_rss_kb()
    );
}
