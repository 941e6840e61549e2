//! The `snooplab` command line.

#[cfg(test)]
mod args_proptest;
mod base_station;
mod bench;
mod bench_hot;
mod channel_cmd;
mod channel_fit;
mod cli;
mod files;
mod html_parts;
mod kernel_check;
mod live_args;
mod live_cmd;
mod live_exec;
mod live_flags;
mod live_progress;
mod live_scenario;
mod live_text;
mod message;
mod parallel;
mod plot;
mod plot_cmd;
mod progress;
mod render;
mod reproduce;
mod result_text;
mod run_cmd;
mod run_progress;
mod settings;
mod sweep;
mod web_cmd;

/// clap's own errors (an unknown flag, a missing value, a number it parses itself) as our one
/// `error:` line: its message and its tips, the values they echo shortened as ours are, and which
/// `--help` to read. Help and version print as clap prints them.
fn clap_error(e: clap::Error) -> ! {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        e.exit();
    }
    let text = e.render().to_string();
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("error:") || l.starts_with("tip:"))
        .map(|l| l.strip_prefix("error:").unwrap_or(l).trim())
        .collect();
    // the subcommand named first, whose --help lists its flags (clap's usage line is not always
    // there to say it)
    let sub = std::env::args_os()
        .nth(1)
        .and_then(|a| a.into_string().ok())
        .filter(|a| cli::command().find_subcommand(a).is_some());
    let help = match sub {
        Some(s) => format!("snooplab {s} --help"),
        None => "snooplab --help".to_string(),
    };
    eprintln!(
        "error: {} (see '{help}')",
        message::one_line(&lines.join("; "))
    );
    std::process::exit(EXIT_ERROR);
}

/// Exit codes, as `snooplab --help` and the README give them: 0 done; 2 bad input or a failure,
/// after one `error:` line; 3 a `run` whose transfer did not complete or whose checks failed, its
/// result printed as usual (a script that only looks at the code must not take it for a good run).
const EXIT_ERROR: i32 = 2;
const EXIT_INCOMPLETE: i32 = 3;

fn main() {
    // `snooplab run | head` ends quietly, as a Unix filter should, instead of panicking on the
    // closed pipe.
    // SAFETY: restoring the default disposition of SIGPIPE before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = cli::parse().unwrap_or_else(|e| clap_error(e));
    let mut code = 0;
    let result = match cli.command {
        cli::Command::Run(a) => run_cmd::run(a).map(|o| {
            if o == run_cmd::Outcome::Incomplete {
                code = EXIT_INCOMPLETE;
            }
        }),
        cli::Command::Sweep(a) => sweep::sweep(a),
        cli::Command::Protocols => {
            run_cmd::protocols();
            Ok(())
        }
        cli::Command::Hosts => {
            run_cmd::hosts();
            Ok(())
        }
        cli::Command::Bench(a) => bench::bench(a),
        cli::Command::Reproduce(a) => reproduce::reproduce(a),
        cli::Command::Plot(a) => plot_cmd::plot(a),
        cli::Command::Live(a) => live_cmd::live(a),
        cli::Command::BaseStation(a) => base_station::base_station(a),
        cli::Command::ChannelTrace(a) => channel_cmd::channel_trace(&a),
        cli::Command::Channel(c) => channel_fit::channel(&c),
        cli::Command::KernelCheck(c) => kernel_check::kernel_check(&c),
        cli::Command::WebServer(a) => web_cmd::web_server(&a),
        cli::Command::WebClient(a) => web_cmd::web_client(&a),
    };
    if let Err(msg) = result {
        eprintln!("error: {}", message::one_line(&msg));
        std::process::exit(EXIT_ERROR);
    }
    if code != 0 {
        use std::io::Write as _;
        // exit skips the destructors that would flush it
        let _ = std::io::stdout().flush();
        std::process::exit(code);
    }
}
