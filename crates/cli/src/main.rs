//! The `snooplab` command line.

#[cfg(test)]
mod args_proptest;
mod bench;
mod channel_cmd;
mod cli;
mod files;
mod live_cmd;
mod message;
mod parallel;
mod plot;
mod plot_cmd;
mod progress;
mod report;
mod reproduce;
mod run_cmd;
mod run_progress;
mod settings;
mod sweep;
mod units;

use clap::Parser;

fn main() {
    // `snooplab run | head` ends quietly, as a Unix filter should, instead of panicking on the
    // closed pipe.
    // SAFETY: restoring the default disposition of SIGPIPE before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = cli::Cli::parse();
    let result = match cli.command {
        cli::Command::Run(a) => run_cmd::run(a),
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
        cli::Command::ChannelTrace(a) => channel_cmd::channel_trace(&a),
    };
    if let Err(msg) = result {
        eprintln!("error: {}", message::one_line(&msg));
        std::process::exit(2);
    }
}
