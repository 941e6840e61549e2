//! The command line's JSON held byte for byte: each file under `tests/snapshots/` is the exact
//! stdout of one command, run from the workspace root:
//!
//! - `reproduce-paperNNN.json`: `snooplab reproduce paperNNN --seeds 1 --json`, for papers 000,
//!   001, 002 and 004 (the same with `--threads 1` must print the same bytes);
//! - `run-PROTOCOL.json`: `snooplab run --json --protocol PROTOCOL` (the default scenario) for
//!   every protocol `snooplab protocols` lists, and `run-PROTOCOL-direction-up.json` the same with
//!   `--direction up` for the protocols whose base station serves a mobile sender (`bs-eln`,
//!   `bs-nack`);
//! - `run-scenario-NAME.json`: `snooplab run --json --scenario examples/NAME.toml` for every file
//!   `examples/*.toml` (each runs in well under a second).
//!
//! Taken at commit de373cc (main), before the refactor of issue 25, as its safety net. Nothing is
//! stripped: none of these outputs holds a wall time, a thread count or an absolute path (checked
//! by running each twice, and `reproduce` with `--threads 1`, 2, 7 and the default). The one path,
//! a trace file's in `run-scenario-fading.json` (`"down":"trace examples/fading.trace"`), is the
//! scenario file's directory as given on the command line joined with the file it names: relative,
//! because the commands run from the workspace root with relative paths, as a user types them.
//!
//! On a mismatch the test names the snapshot, the first line and column that differ with some
//! context, and writes the new output beside a temporary copy (the path is printed) for `diff` or
//! `jq`. To regenerate on purpose, after a change meant to move results (say why in the commit):
//!
//! ```text
//! scripts/bless
//! ```
//!
//! writes every snapshot from the binary as it is instead of comparing, and removes the files no
//! command makes any more; it regenerates the papers' golden tables with them (the snapshots alone:
//! `SNOOPLAB_BLESS=1 cargo test --release -p snooplab --test snapshots`).
//!
//! Regenerated since, on purpose:
//!
//! - issue 26's undefined values (the four `reproduce-*.json`): every `ci95` of one seed is `null`
//!   (was 0), and so are paper 001's `fast_per_timeout` with no timeout and `gain_ci95_pct` of one
//!   trial, paper 002's Reno series whose every run failed and its split crash row with no intact
//!   run; claims say `± n/a`; paper 002's sweep rows gain `reno_failures`, `snoop_failures` and
//!   `snoop_handoff_failures`. No measured value moved (checked leaf by leaf).
//! - issue 26's snoop that sees its own transmit queue (`reproduce-paper000.json`): the runs
//!   of `crates/papers/tests/paper000_fixed.rs` regenerated there moved paper 000's means for seed 1
//!   (link-layer agents under bursts and at 1 error / 16 KB); see that file and
//!   docs/snoop-scaling.md.
//! - issue 26's split relay that reserves before it reads (`reproduce-paper000.json`): Table IV's
//!   WAN cells moved (SPLIT 1.258 -> 1.223, SPLIT-SMART 1.3303 -> 1.3300 Mb/s for seed 1); see
//!   `crates/papers/tests/paper000_fixed.rs` and docs/fuzzing.md, finding 4.
//! - issue 28's readings (`reproduce-paper002.json`): paper 002's report gains `readings`, Table 1
//!   and Fig. 10 under the window reading `os-default-8k` (runs added after every default run).
//!   Everything else is identical (checked with `jq 'del(.. | .readings?)'` against the old file).
//!   `reproduce-paper001.json` likewise gains `readings`: every run again under the MAC reading
//!   `berkeley-ns2`, its whole report under `readings[0].report`; the rest identical (same check).
//! - issue 28's channel-delay collision rule (`reproduce-paper001.json`): `berkeley-ns2` now
//!   carries ns-2's 4 us channel delay as the medium's sense delay, so `readings[0].report` moved;
//!   everything outside `readings` is identical (same check).
//! - issue 28's one card of a mobile host in two cells (`reproduce-paper002.json`,
//!   `run-scenario-paper002-handoff.json`): its frames leave one at a time in the order queued,
//!   whichever cell each is for, so the runs whose mobile host held frames for both cells at once
//!   moved (see `crates/papers/tests/paper002_fixed.rs`; the example, with bit errors and a
//!   handoff every 5 s, 1.3133 -> 1.3185 Mb/s). Its keys are unchanged. `readings` in the
//!   reproduce snapshot now holds Table 1 and Fig. 10 under every other combination of the
//!   `window` and `old-primary-queue` readings, each entry naming both.
//! - issue 29's mixed networks: `run-scenario-mixed-eln-sender.json` added for the new example
//!   (`snooplab run` models both its hosts; no other snapshot changed).
//! - issue 27's foreseen CSMA outcomes (`run-scenario-paper001-2-hosts.json`,
//!   `run-scenario-paper001-3-hosts.json`): a CSMA cell no longer wakes up for a load or wait that
//!   ends while a frame it hears is on the air (`crates/sim/src/medium/csma/foresight.rs`), so
//!   `events` fell (92,100 -> 68,480 and 117,445 -> 83,621); every other value is identical
//!   (checked key by key).
//! - issue 50's SACK recovery as a host detail (every `run-*.json`): `host_details` gains
//!   `sack-recovery` (`fall-floyd` in every BSD profile); no other value moved (checked key by
//!   key).
//! - issue 50's other Linux details (every `run-*.json`): `host_details` gains
//!   `congestion-control` (`bsd`), `initial-window` (1), `timer-clock` (`bsd-ticks`),
//!   `timestamps` and `window-scaling` (`off`), and `sack` (`by-protocol`), each its BSD value;
//!   no other value moved (checked key by key on run-e2e.json, and the files grew by these keys
//!   only).
//! - issue 50's RACK-TLP detail (every `run-*.json`): `host_details` gains `rack-tlp` (`off`), its
//!   BSD value; no other value moved (checked key by key on run-e2e.json).
//! - Linux's undo by timestamps (every `run-*.json`): `host_details` gains `undo` (`off`), its
//!   BSD value; no other value moved (checked key by key on all 33 files).
//! - DSACK and F-RTO (every `run-*.json`): `host_details` gains `dsack` and `frto` (`off`), their
//!   BSD values; no other value moved (each file's new output compared byte for byte with the old
//!   one plus the two keys, all 33 files).
//! - Linux's `next-seg` (every `run-*.json`): `host_details` gains `next-seg` (`rfc6675`), its
//!   BSD value; no other value moved (each file's new output compared byte for byte with the old
//!   one plus the key, all 36 files; no snapshot runs a Linux host).
//! - Linux's PRR reading (every `run-*.json`): `host_details` gains `prr` (`rfc6937`), its BSD
//!   value; no other value moved (each file's new output, the key removed, compared byte for byte
//!   with the old one, all 36 files).
//! - Linux's SACK compression (every `run-*.json`): `host_details` gains `sack-compress` (`off`),
//!   its BSD value; no other value moved (each file's new output, the key removed, compared byte
//!   for byte with the old one, all 36 files).

#[path = "common/guarded.rs"]
mod guarded;

use std::path::{Path, PathBuf};

use snooplab_sim::protocol::AgentKind;
use snooplab_sim::Protocol;

/// The papers whose `reproduce --json` is held.
const PAPERS: [&str; 4] = ["paper000", "paper001", "paper002", "paper004"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn snapshots() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots")
}

/// `SNOOPLAB_BLESS=1` (any value but empty or `0`): write the snapshots instead of comparing.
fn blessing() -> bool {
    std::env::var("SNOOPLAB_BLESS").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// One command and the file that holds its stdout.
struct Case {
    file: String,
    args: Vec<String>,
}

impl Case {
    fn new(file: String, args: &[&str]) -> Case {
        Case {
            file,
            args: args.iter().map(|a| a.to_string()).collect(),
        }
    }
}

fn reproduce_cases() -> Vec<Case> {
    PAPERS
        .iter()
        .map(|p| {
            Case::new(
                format!("reproduce-{p}.json"),
                &["reproduce", p, "--seeds", "1", "--json"],
            )
        })
        .collect()
}

/// The protocol names `snooplab protocols` lists: the first word of each line before the first
/// blank one.
fn protocols() -> Vec<String> {
    let o = guarded::snooplab(&["protocols"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8(o.stdout).expect("UTF-8");
    let names: Vec<String> = text
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .map(|l| l.split_whitespace().next().expect("a name").to_string())
        .collect();
    assert!(names.len() >= 18, "protocols lists {names:?}");
    names
}

fn run_cases() -> Vec<Case> {
    let mut out = vec![];
    for p in protocols() {
        out.push(Case::new(
            format!("run-{p}.json"),
            &["run", "--json", "--protocol", &p],
        ));
        let protocol = Protocol::parse(&p).expect("a listed protocol parses");
        if matches!(protocol.agent(), AgentKind::Eln | AgentKind::Nack) {
            out.push(Case::new(
                format!("run-{p}-direction-up.json"),
                &["run", "--json", "--protocol", &p, "--direction", "up"],
            ));
        }
    }
    out
}

fn scenario_cases() -> Vec<Case> {
    let mut names: Vec<String> = std::fs::read_dir(root().join("examples"))
        .expect("examples/")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter_map(|n| n.strip_suffix(".toml").map(str::to_string))
        .collect();
    names.sort();
    assert!(!names.is_empty(), "examples/*.toml");
    names
        .iter()
        .map(|n| {
            let file = format!("examples/{n}.toml");
            Case::new(
                format!("run-scenario-{n}.json"),
                &["run", "--json", "--scenario", &file],
            )
        })
        .collect()
}

/// Where `a` and `b` first differ: line and column (from 1) and some text of each around it.
fn first_difference(expected: &[u8], got: &[u8]) -> String {
    let at = expected
        .iter()
        .zip(got)
        .position(|(a, b)| a != b)
        .unwrap_or(expected.len().min(got.len()));
    let line = expected[..at].iter().filter(|&&b| b == b'\n').count() + 1;
    let col = at
        - expected[..at]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1)
        + 1;
    let around = |s: &[u8]| {
        let from = at.saturating_sub(80);
        let to = (at + 80).min(s.len());
        String::from_utf8_lossy(&s[from.min(to)..to]).replace('\n', "\\n")
    };
    format!(
        "line {line}, column {col} (byte {at}; {} bytes expected, {} got):\n    expected ...{}...\n    got      ...{}...",
        expected.len(),
        got.len(),
        around(expected),
        around(got)
    )
}

/// Runs each case from the workspace root and compares its stdout with its snapshot (or writes
/// it); every mismatch is reported before the test fails.
fn check(cases: &[Case], extra_args: &[&str]) {
    let dir = snapshots();
    let root = root();
    let mut failures = vec![];
    for c in cases {
        let mut args = c.args.clone();
        args.extend(extra_args.iter().map(|a| a.to_string()));
        let o = guarded::snooplab_in(Some(&root), &args);
        let command = format!("snooplab {}", args.join(" "));
        if !o.status.success() {
            failures.push(format!(
                "{command}: {}\n{}",
                o.status,
                String::from_utf8_lossy(&o.stderr)
            ));
            continue;
        }
        let path = dir.join(&c.file);
        if blessing() {
            if extra_args.is_empty() {
                std::fs::create_dir_all(&dir).expect("the snapshots' directory");
                std::fs::write(&path, &o.stdout)
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            }
            continue;
        }
        let expected = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) => {
                failures.push(format!(
                    "{command}: no snapshot {} ({e}); write it with SNOOPLAB_BLESS=1",
                    path.display()
                ));
                continue;
            }
        };
        if expected != o.stdout {
            let tmp = std::env::temp_dir().join("snooplab-snapshots");
            let _ = std::fs::create_dir_all(&tmp);
            let new = tmp.join(&c.file);
            let saved = match std::fs::write(&new, &o.stdout) {
                Ok(()) => format!("the new output is in {}", new.display()),
                Err(e) => format!("(could not save the new output: {e})"),
            };
            failures.push(format!(
                "{command}: stdout differs from {} at {}\n    {saved}",
                path.display(),
                first_difference(&expected, &o.stdout)
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} commands do not match their snapshots (if the change is meant, regenerate with \
         SNOOPLAB_BLESS=1):\n\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n\n")
    );
}

#[test]
fn reproduce_json_matches_its_snapshots() {
    check(&reproduce_cases(), &[]);
}

#[test]
fn reproduce_json_is_the_same_on_one_thread() {
    if blessing() {
        return; // the snapshots are being written by the test above
    }
    check(&reproduce_cases(), &["--threads", "1"]);
}

#[test]
fn run_json_of_every_protocol_matches_its_snapshot() {
    check(&run_cases(), &[]);
}

#[test]
fn run_json_of_every_example_scenario_matches_its_snapshot() {
    check(&scenario_cases(), &[]);
}

#[test]
fn every_snapshot_has_its_command() {
    let wanted: Vec<String> = reproduce_cases()
        .into_iter()
        .chain(run_cases())
        .chain(scenario_cases())
        .map(|c| c.file)
        .collect();
    let mut stale = vec![];
    for e in std::fs::read_dir(snapshots()).into_iter().flatten() {
        let e = e.expect("an entry");
        let name = e.file_name().to_string_lossy().into_owned();
        if !wanted.contains(&name) {
            if blessing() {
                std::fs::remove_file(e.path()).expect("a stale snapshot removed");
            } else {
                stale.push(name);
            }
        }
    }
    assert!(
        stale.is_empty(),
        "snapshots no command makes (remove them, or run with SNOOPLAB_BLESS=1): {stale:?}"
    );
}
