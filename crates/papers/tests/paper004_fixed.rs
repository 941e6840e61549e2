//! Paper 004 held fixed: the exact throughput and event count of each run `snooplab reproduce
//! paper004` makes for seeds 1 and 2, in its order: every point of Fig. 2 (a mobile host sending
//! 8 MB over the WAN path, one error every 8 to 512 KB), with Reno (`e2e`), Reno+ELN (`bs-eln`)
//! and the NACK scheme (`bs-nack`), the hosts on `bsdos-2.1`. 42 runs, one flow each.
//!
//! Taken at commit de373cc (main), before the refactor of issue 25, as its safety net: a change to
//! the engine or the planning of the runs must leave every value as it is. A change to the model
//! must regenerate the table on purpose and say here why:
//!
//! ```text
//! scripts/bless
//! ```
//!
//! rewrites the rows between the marker comments from the code as it is (`git diff` then shows the
//! rows that moved), and every other golden table and snapshot with them (this table alone:
//! `SNOOPLAB_BLESS=1 cargo test --release -p snooplab-papers --test paper004_fixed`). A row compares its throughput bit for bit. The values agree with `snooplab
//! reproduce paper004 --seeds 2 --out DIR` (`DIR/paper004/runs.json`).

mod golden;

use snooplab_papers::paper004::{jobs, Paper004};
use snooplab_sim::{run, Direction};

/// (KB between errors, protocol, seed, throughput in Mb/s, events), in `reproduce`'s order.
#[rustfmt::skip]
const GOLDEN: &[(u64, &str, u64, f64, u64)] = &[
    // golden rows: begin
    (8, "e2e", 1, 0.02402978927070631, 25126),
    (8, "e2e", 2, 0.022845792946209358, 25256),
    (8, "bs-eln", 1, 0.053920052138135915, 24970),
    (8, "bs-eln", 2, 0.04345954254040998, 25107),
    (8, "bs-nack", 1, 0.09364990916538976, 29471),
    (8, "bs-nack", 2, 0.0848307254251537, 30011),
    (16, "e2e", 1, 0.08120864698506759, 22534),
    (16, "e2e", 2, 0.0819361164028116, 22457),
    (16, "bs-eln", 1, 0.15896356818717752, 22783),
    (16, "bs-eln", 2, 0.15536433076084744, 22754),
    (16, "bs-nack", 1, 0.17232219502225438, 24615),
    (16, "bs-nack", 2, 0.17304236090796826, 24877),
    (32, "e2e", 1, 0.23894387661862024, 20706),
    (32, "e2e", 2, 0.18982164702220922, 20854),
    (32, "bs-eln", 1, 0.3169626719528612, 21015),
    (32, "bs-eln", 2, 0.3066163528911933, 21197),
    (32, "bs-nack", 1, 0.2983200252416435, 21634),
    (32, "bs-nack", 2, 0.2927668439341367, 22014),
    (64, "e2e", 1, 0.41804434452971323, 19766),
    (64, "e2e", 2, 0.38012390551343106, 20087),
    (64, "bs-eln", 1, 0.5080447605631436, 20053),
    (64, "bs-eln", 2, 0.4646896636774843, 20291),
    (64, "bs-nack", 1, 0.46919602329896276, 20566),
    (64, "bs-nack", 2, 0.43264853576942824, 20720),
    (128, "e2e", 1, 0.6949753142809985, 19179),
    (128, "e2e", 2, 0.5729273045394898, 19488),
    (128, "bs-eln", 1, 0.7216047019856896, 19310),
    (128, "bs-eln", 2, 0.6141339701391403, 19708),
    (128, "bs-nack", 1, 0.7150891030544504, 19636),
    (128, "bs-nack", 2, 0.5925880579307744, 20070),
    (256, "e2e", 1, 0.8641504878789754, 18967),
    (256, "e2e", 2, 0.8968973523324458, 18850),
    (256, "bs-eln", 1, 0.8746095301560365, 19070),
    (256, "bs-eln", 2, 0.8961082078811389, 18977),
    (256, "bs-nack", 1, 0.8737014595701161, 19508),
    (256, "bs-nack", 2, 0.9189085032124262, 19197),
    (512, "e2e", 1, 1.050107890565055, 18747),
    (512, "e2e", 2, 1.1494952248536745, 18375),
    (512, "bs-eln", 1, 1.0431789906899387, 18853),
    (512, "bs-eln", 2, 1.2022028323951868, 18372),
    (512, "bs-nack", 1, 1.0533279952906047, 19032),
    (512, "bs-nack", 2, 1.213075123899452, 18575),
    // golden rows: end
];

fn line(kb: u64, protocol: &str, seed: u64, tput: f64, events: u64) -> String {
    format!("    ({kb}, {protocol:?}, {seed}, {tput:?}, {events}),")
}

#[test]
fn every_fig2_run_keeps_its_exact_throughput_and_events() {
    let paper = Paper004::load().expect("paper data");
    let js = jobs(&paper, 2);
    // reproduce sets every host to the paper's profile (`Plan004::jobs`): the jobs'
    // own, so these are the scenarios it runs
    for j in &js {
        assert_eq!(j.host_preset, snooplab_papers::paper004::ABOUT.default_host);
        assert_eq!(j.direction, Direction::Up, "a mobile sender");
    }
    let results = golden::run_all(&js, run);
    let measured: Vec<(u64, &str, u64, f64, u64)> = js
        .iter()
        .zip(&results)
        .map(|(j, r)| {
            (
                j.error_every / 1024,
                j.protocol.name(),
                j.seed,
                r.flow().throughput_mbps,
                r.events,
            )
        })
        .collect();
    let same: Vec<bool> = GOLDEN
        .iter()
        .zip(&measured)
        .map(|(&(gk, gp, gs, gt, ge), &(k, p, s, t, e))| {
            (gk, gp, gs, gt.to_bits(), ge) == (k, p, s, t.to_bits(), e)
        })
        .collect();
    let lines = |rows: &[(u64, &str, u64, f64, u64)]| -> Vec<String> {
        rows.iter()
            .map(|&(k, p, s, t, e)| line(k, p, s, t, e))
            .collect()
    };
    golden::settle(
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests/paper004_fixed.rs"),
        &lines(GOLDEN),
        &lines(&measured),
        &same,
    );
}
