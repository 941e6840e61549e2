//! The binary on random argument vectors (the real subcommands and flags with right, wrong and
//! garbage values): it never panics or aborts, exits 0, 2 or 3 (a run that ended incomplete), and
//! an exit 2 says `error:` (or shows the usage). Only `run`, `sweep`, `protocols`, `hosts` and `plot`, with a few kilobytes to
//! transfer and no flags that write files, so every case ends in milliseconds;
//! `src/args_proptest.rs` checks the parsing and settings of every subcommand, `live`, `bench` and
//! `reproduce` included, in many more cases.

mod common;

use common::argv::{argv, Spec};
use proptest::prelude::*;

fn spec(name: &str, flags: &[&str], switches: &[&str]) -> Spec {
    Spec {
        name: name.into(),
        flags: flags
            .iter()
            .map(|f| (f.to_string(), true))
            .chain(switches.iter().map(|f| (f.to_string(), false)))
            .collect(),
    }
}

fn specs() -> Vec<Spec> {
    let settings = [
        "--scenario",
        "--protocol",
        "--env",
        "--buffer",
        "--mss",
        "--transfer",
        "--error-every",
        "--burst",
        "--host",
        "--host-detail",
    ];
    let mut run: Vec<&str> = settings.to_vec();
    run.extend([
        "--error-every-down",
        "--error-every-up",
        "--seed",
        "--max-time",
    ]);
    let mut sweep: Vec<&str> = settings.to_vec();
    sweep.extend(["--seeds", "--seed-base", "--threads"]);
    vec![
        spec("run", &run, &["--json"]),
        spec("sweep", &sweep, &["--json"]),
        spec("protocols", &[], &[]),
        spec("hosts", &[], &[]),
        // the trace directory (positional), never written to: no --out
        spec("plot", &["", "--from", "--to"], &[]),
    ]
}

fn snooplab(args: &[String]) -> std::process::Output {
    common::guarded::snooplab(args)
}

#[test]
fn the_flags_are_the_real_ones() {
    for s in specs() {
        let help = String::from_utf8_lossy(&snooplab(&[s.name.clone(), "--help".into()]).stdout)
            .into_owned();
        for (f, _) in s.flags.iter().filter(|(f, _)| !f.is_empty()) {
            assert!(
                help.contains(&format!("{f} ")),
                "{} has no {f}: {help}",
                s.name
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn the_binary_exits_0_or_2_and_never_panics(args in argv(specs(), true)) {
        let o = snooplab(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        prop_assert!(matches!(o.status.code(), Some(0) | Some(2) | Some(3)), "{args:?}: {:?} {err}", o.status);
        // exit 3: a run that ended incomplete (a short --max-time), its result printed
        if o.status.code() == Some(3) {
            prop_assert!(!o.stdout.is_empty() && err.contains("exit code 3"), "{args:?}: {err}");
        }
        prop_assert!(!err.contains("panicked"), "{args:?}: {err}");
        // exit 2: our one `error:` line, or clap's error or usage (no subcommand at all)
        if o.status.code() == Some(2) {
            prop_assert!(err.contains("error:") || err.contains("Usage:"), "{args:?}: {err}");
        }
    }
}
