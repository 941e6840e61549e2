//! Property test of the command line, in the binary itself so that it reaches the settings
//! builders: random argument vectors over the real subcommands and flags (clap's own list, `live`
//! included) are parsed, and what parses is checked as each command checks it before running
//! anything. Nothing runs a simulation, so it takes a moment for hundreds of cases.
//!
//! The exit code follows from this: `main` exits 2 on any `Err` of a command, prints clap's errors
//! as one `error:` line with exit 2 (help and version exit as clap does), and exits 3 only for a run
//! that ended incomplete; so no panic, clap's code 0 or 2, and errors that are one non-empty line is
//! "exit code 0, 2 or 3, one `error:` line". `tests/args_proptest.rs` runs the binary on small cases
//! too.

#[path = "../tests/common/argv.rs"]
mod argv;

use clap::CommandFactory;
use proptest::prelude::*;

use crate::cli::{Cli, Command};

/// The subcommands and their flags as clap knows them.
fn specs() -> Vec<argv::Spec> {
    Cli::command()
        .get_subcommands()
        .map(|sub| argv::Spec {
            name: sub.get_name().to_string(),
            flags: sub
                .get_arguments()
                .filter(|a| a.get_id() != "help")
                .map(|a| match a.get_long() {
                    Some(l) => (format!("--{l}"), a.get_action().takes_values()),
                    None => (String::new(), true),
                })
                .collect(),
        })
        .collect()
}

/// What each command checks before it runs anything.
fn check(cmd: &Command) -> Result<(), String> {
    match cmd {
        Command::Run(a) => crate::run_cmd::scenario_from_args(a).map(|_| ()),
        Command::Sweep(a) => crate::sweep::plan(a).map(|_| ()),
        Command::Bench(a) => crate::bench::plan(a).map(|_| ()),
        Command::Reproduce(a) => crate::reproduce::plan(a).map(|_| ()),
        Command::Plot(a) => {
            for t in [&a.from, &a.to].into_iter().flatten() {
                crate::settings::parse_seconds(t, "--from")?;
            }
            Ok(())
        }
        // live checks its settings in live_cmd (needs root to go further), channel-trace as it
        // writes, channel fit as it reads its trace, web-server and web-client as they open their
        // sockets; their parsing is here
        Command::Live(_)
        | Command::WebServer(_)
        | Command::WebClient(_)
        | Command::BaseStation(_)
        | Command::ChannelTrace(_)
        | Command::Channel(_)
        | Command::KernelCheck(_)
        | Command::Protocols
        | Command::Hosts => Ok(()),
    }
}

#[test]
fn the_real_flags_are_generated() {
    let s = specs();
    let names: Vec<&str> = s.iter().map(|s| s.name.as_str()).collect();
    for n in ["run", "sweep", "reproduce", "bench", "plot", "live"] {
        assert!(names.contains(&n), "{names:?}");
    }
    let run = s.iter().find(|s| s.name == "run").map(|s| &s.flags);
    assert!(run.is_some_and(|f| f.iter().any(|(f, v)| f == "--transfer" && *v)));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, ..ProptestConfig::default() })]

    #[test]
    fn parse_and_check_never_panic_and_errors_are_one_line(args in argv::argv(specs(), false)) {
        let argv = std::iter::once("snooplab".to_string()).chain(args.iter().cloned());
        match crate::cli::parse_from(argv) {
            Err(e) => prop_assert!(matches!(e.exit_code(), 0 | 2), "{args:?}: {e}"),
            Ok(cli) => {
                if let Err(msg) = check(&cli.command) {
                    let line = crate::message::one_line(&msg);
                    prop_assert!(!line.trim().is_empty(), "{args:?}: empty message");
                    prop_assert!(!line.contains('\n') && line.len() < 1000, "{args:?}: {line}");
                }
            }
        }
    }
}
