//! Command-line definitions.

use clap::{Args, Parser, Subcommand};

pub use crate::live_args::LiveArgs;

#[derive(Parser, Debug)]
#[command(
    name = "snooplab",
    version,
    about = "TCP over lossy wireless links: the snoop agent, its link-layer family and the end-to-end \
             TCP variants, in a deterministic simulator of the papers' testbed",
    after_help = "Examples:\n  \
        snooplab reproduce                      # every built paper: 000, 001, 002 and 004, each its trials\n  \
        snooplab reproduce table2 --seeds 20 --out results/\n  \
        snooplab run --protocol e2e --env lan --buffer 32k --error-every 64k --seed 1\n  \
        snooplab run --scenario examples/lan-32k.toml --json\n  \
        snooplab sweep --protocol e2e --env lan,wan --buffer 8k,32k --seeds 10\n  \
        snooplab protocols\n  \
        snooplab bench\n  \
        snooplab live --protocol e2e,ll-tcp-aware --runs 5   # as root: real Linux TCP through snoop\n\n\
Exit codes: 0 done; 2 bad input or a failure (one line starting 'error:'); 3 a run whose transfer\n\
did not complete or whose checks failed (`run`: the result is printed as usual and says why)."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// The command line clap parses: the derived one, with `reproduce --help` naming each paper of
/// [`snooplab_papers::PAPERS`] and its parts (so a paper added there is listed without an edit
/// here).
pub fn command() -> clap::Command {
    use clap::CommandFactory;
    Cli::command().mut_subcommand("reproduce", |c| {
        let examples = c
            .get_after_help()
            .map(|h| h.to_string())
            .unwrap_or_default();
        c.after_help(format!("{examples}\n\n{}", papers_help()))
    })
}

/// The arguments, parsed by [`command`].
pub fn parse() -> Result<Cli, clap::Error> {
    parse_from(std::env::args_os())
}

/// The arguments of `args` (the program's name first), as [`parse`].
pub fn parse_from<I, T>(args: I) -> Result<Cli, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    use clap::FromArgMatches;
    let m = command().try_get_matches_from(args)?;
    let mut cli = Cli::from_arg_matches(&m)?;
    if let (Command::Live(a), Some(sub)) = (&mut cli.command, m.subcommand_matches("live")) {
        a.given = LiveArgs::SCENARIO_FLAGS
            .iter()
            .copied()
            .filter(|id| sub.value_source(id) == Some(clap::parser::ValueSource::CommandLine))
            .collect();
    }
    Ok(cli)
}

/// Each built paper, its citation and the words that name its parts.
fn papers_help() -> String {
    let mut s = String::from("Papers (docs/paper000.md ...):\n");
    for p in snooplab_papers::PAPERS {
        let a = p.about();
        s.push_str(&format!(
            "  {}  {}\n    parts: {}\n",
            a.name, a.citation, a.parts
        ));
    }
    s.push_str("There is no paper003: it is seminar slides summarising paper 000.");
    s
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run the papers' experiments and print each table with the paper's numbers beside ours.
    Reproduce(ReproduceArgs),
    /// Simulate one transfer and print its metrics.
    Run(RunArgs),
    /// Run many seeds and combinations in parallel; print mean and 95% confidence interval.
    Sweep(SweepArgs),
    /// List the protocol names with a one-line description each.
    #[command(after_help = "Examples:\n  \
        snooplab protocols                       # every name --protocol takes, and which run live\n  \
        snooplab protocols | grep -i snoop       # snoop is ll-tcp-aware\n  \
        snooplab run --protocol ll-tcp-aware     # then run one")]
    Protocols,
    /// List the host profiles (the TCP implementation of the papers' hosts) and their details.
    #[command(after_help = "Examples:\n  \
        snooplab hosts                                   # each profile and its details\n  \
        snooplab run --host freebsd-2.2                  # paper 001's hosts\n  \
        snooplab run --host bsdos-2.1 --host-detail reader=instant   # one detail changed")]
    Hosts,
    /// Measure simulator speed: wall time and events per second of one LAN-32k E2E 8 MB run.
    Bench(BenchArgs),
    /// Draw the sequence and congestion-window plots of a traced run (PNG and SVG).
    Plot(PlotArgs),
    /// Run the base-station agents on real Linux TCP: two network namespaces, a TUN device in
    /// each, snooplab between them as the base station (needs root).
    Live(LiveArgs),
    /// Run a base-station agent (snoop, ...) between two real interfaces of this machine as a
    /// transparent middlebox (needs root; docs/live.md).
    BaseStation(crate::base_station::BaseStationArgs),
    /// Write a channel trace for `--down trace:FILE`: from a Gilbert-Elliott process or a `ping`
    /// log (docs/channels.md).
    ChannelTrace(crate::channel_cmd::ChannelTraceArgs),
    /// Fit a two-state model to a channel trace: `channel fit TRACE` (docs/channels.md).
    #[command(subcommand)]
    Channel(crate::channel_fit::ChannelCommand),
    /// The kernel check: measure the grid live with kernel hosts into its data file
    /// (`kernel-check measure`, needs root; docs/kernel-check.md).
    #[command(subcommand)]
    KernelCheck(crate::kernel_check::KernelCheckCommand),
    /// Serve a Web workload's objects: GET /<n> answered with n bytes (the live mode's HTTP
    /// server, for --exec or any host; docs/live.md).
    WebServer(crate::web_cmd::WebServerArgs),
    /// Replay a scenario's Web workload flow against a web-server and print its page latencies
    /// (the live mode's HTTP client; docs/live.md).
    WebClient(crate::web_cmd::WebClientArgs),
}

/// The settings of one run. Each flag overrides the scenario file, which overrides the default
/// (paper 000's LAN, 32 KB buffers, 1400-byte segments, 8 MB, one error every 64 KB).
#[derive(Args, Debug, Default)]
#[command(after_help = "Examples:\n  \
    snooplab run                                   # paper 000 LAN, 32k buffers, E2E, 1 error/64 KB\n  \
    snooplab run --env wan --buffer 32k --seed 7 --json\n  \
    snooplab run --error-every 0                   # calibration: no errors\n  \
    snooplab run --env lan --buffer 64k --mss 1460 --error-every 0   # paper 002's setting\n  \
    snooplab run --burst 4                         # each error event destroys 4 frames\n  \
    snooplab run --protocol snoop --plot plots/snoop   # trace, CSVs and plots of one run\n  \
    snooplab run --pcap caps/ && wireshark caps/wireless.pcap\n  \
    snooplab run --host bsd44-lite                 # the TCP as modelled before host profiles\n  \
    snooplab run --scenario examples/cell-3-senders.toml   # a network: 3 mobile senders, one cell\n  \
    snooplab run --error-every-down 64k --error-every-up 0  # errors on the downlink only\n  \
    snooplab run --buffer 8k --host-detail read-delay=5ms   # a reader that runs 5 ms late\n  \
    snooplab run --down gilbert-elliott:good-every=0,bad-every=2k,good-time=1s,bad-time=50ms\n  \
    snooplab run --down trace:examples/fading.trace --up none   # a recorded channel\n  \
    snooplab run --direction up --env wan --protocol bs-eln   # a mobile sender, ELN from the base station\n\n\
Sizes accept 8192, 8k, 8K, 64KiB, 8M (k = 1024), 1.5M (whole bytes).\n\
Exit code 3 (not 0) when a transfer did not complete (a sender gave up, a flow never started, the\n\
time cap) or a run-time check failed; the result is printed all the same and says why. 2 is bad input.")]
pub struct RunArgs {
    /// TOML file with any of: protocol, env, buffer, mss, transfer, error-every,
    /// error-every-down, error-every-up, burst, down/up channel models, seed, max-time-s, host, a
    /// [host-details] table, and a network of its own ([[node]], [[link]], [[cell]], [[flow]]
    /// tables, docs/networks.md) whose flows, links and channels take these as defaults. The same
    /// keys as a JSON object when the name ends in .json (or the text starts with '{'). A regular
    /// file of at most 1 MiB that sets something (an empty one is refused).
    #[arg(long, value_name = "FILE")]
    pub scenario: Option<std::path::PathBuf>,
    /// Protocol (see `snooplab protocols`) [default: e2e].
    #[arg(long)]
    pub protocol: Option<String>,
    /// Wired path: lan (10 Mb/s Ethernet) or wan (16 more Internet hops) [default: lan].
    #[arg(long)]
    pub env: Option<String>,
    /// Socket buffer of both hosts, bounding both windows [default: 32k].
    #[arg(long, value_name = "SIZE", allow_hyphen_values = true)]
    pub buffer: Option<String>,
    /// Segment size in payload bytes [default: 1400].
    #[arg(long, value_name = "BYTES", allow_hyphen_values = true)]
    pub mss: Option<String>,
    /// Bytes each flow transfers (paper 000: the fixed host to the mobile host) [default: 8M].
    #[arg(long, value_name = "SIZE", allow_hyphen_values = true)]
    pub transfer: Option<String>,
    /// Who sends in paper 000's testbed: down (the fixed host, as papers 000 and 002) or up (the
    /// mobile host, as paper 004) [default: down].
    #[arg(long, value_name = "down|up")]
    pub direction: Option<String>,
    /// Mean bytes between bit errors on the wireless link, both directions; 0 = none [default: 64k].
    #[arg(long, value_name = "SIZE", allow_hyphen_values = true)]
    pub error_every: Option<String>,
    /// Mean bytes between bit errors from the base station to its mobile hosts only, over
    /// --error-every.
    #[arg(long, value_name = "SIZE", allow_hyphen_values = true)]
    pub error_every_down: Option<String>,
    /// Mean bytes between bit errors from the mobile hosts to the base station only, over
    /// --error-every.
    #[arg(long, value_name = "SIZE", allow_hyphen_values = true)]
    pub error_every_up: Option<String>,
    /// Frames destroyed by each error event [default: 1].
    #[arg(long, value_name = "K", allow_hyphen_values = true)]
    pub burst: Option<String>,
    /// Channel model from the base station to its mobile hosts, over the shorthand: none,
    /// exponential:every=64k[,burst=2], gilbert-elliott:good-every=1M,bad-every=2k,good-time=1s,
    /// bad-time=50ms, or trace:FILE (docs/channels.md).
    #[arg(long, value_name = "MODEL")]
    pub down: Option<String>,
    /// Channel model from the mobile hosts to the base station (as --down).
    #[arg(long, value_name = "MODEL")]
    pub up: Option<String>,
    /// Random seed [default: 1].
    #[arg(long, allow_hyphen_values = true)]
    pub seed: Option<String>,
    /// Stop at this simulated time and report the run incomplete: seconds (600, 12.5, 1e4) or a
    /// duration (1e7s, 2h, 1.5d), between 1 ns and 10000000 s [default: 3600].
    #[arg(long, value_name = "TIME", allow_hyphen_values = true)]
    pub max_time: Option<String>,
    /// TCP implementation of every host: bsd44-lite, bsdos-2.1, freebsd-2.2, or today's linux,
    /// linux-reno, linux-paper, linux-paper-sack (see `snooplab hosts`) [default: bsdos-2.1,
    /// paper 000's hosts].
    #[arg(long, value_name = "NAME")]
    pub host: Option<String>,
    /// Change one host detail, e.g. reader=instant, persist=off, read-delay=2ms (repeatable;
    /// keys: ca-increment, reader, header-prediction, persist, deflation, rtt-estimator,
    /// delayed-ack, read-delay, read-size, sack-recovery, window-scaling, timestamps,
    /// timer-clock, initial-window, congestion-control; `snooplab hosts` shows each profile's
    /// values).
    #[arg(long, value_name = "KEY=VALUE")]
    pub host_detail: Vec<String>,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Write the run's time series as CSV into DIR: segments.csv (every data segment: new, fast,
    /// timeout or local retransmission), acks.csv, cwnd.csv, bs_cache.csv, suppressed_dupacks.csv,
    /// nodes.csv and run.json; every row names its flow.
    #[arg(long, value_name = "DIR")]
    pub trace: Option<std::path::PathBuf>,
    /// Write packet captures into DIR, one per wired link and cell named after it (paper 000's
    /// testbed: wired.pcap and wireless.pcap; raw IPv4, both directions, simulated time; corrupted
    /// frames have a broken TCP checksum).
    #[arg(long, value_name = "DIR")]
    pub pcap: Option<std::path::PathBuf>,
    /// Print the scenario the flags (and --scenario) built, as a scenario file's tables
    /// (docs/networks.md: every node, link, cell and flow with all its values), and exit without
    /// running; `run --scenario` of that file runs the same network.
    #[arg(long)]
    pub print_scenario: bool,
    /// Trace the run and draw its plots into DIR: sequence, cwnd and bs_cache as PNG and SVG, one
    /// set per flow when there are several (the trace CSVs go there too).
    #[arg(long, value_name = "DIR")]
    pub plot: Option<std::path::PathBuf>,
    /// Print no progress on stderr. Without it, a run that has taken 2 s of wall time shows a
    /// progress line there (simulated time, bytes delivered, events); stdout is the same either way.
    #[arg(long)]
    pub quiet: bool,
}

#[derive(Args, Debug)]
#[command(after_help = "Examples:\n  \
    snooplab plot traces/e2e                       # after: snooplab run --trace traces/e2e\n  \
    snooplab plot traces/e2e --from 10 --to 20 --out zoom/")]
pub struct PlotArgs {
    /// A trace directory written by `snooplab run --trace DIR`.
    pub trace_dir: std::path::PathBuf,
    /// Where to write the PNG and SVG files [default: the trace directory].
    #[arg(long, value_name = "DIR")]
    pub out: Option<std::path::PathBuf>,
    /// Start of the time window to draw: seconds (12.5) or a duration (2min); before the run's
    /// end, the trace's last segment or ACK [default: 0].
    #[arg(long, value_name = "TIME", allow_hyphen_values = true)]
    pub from: Option<String>,
    /// End of the time window to draw, after --from: seconds or a duration [default: the end of
    /// the run].
    #[arg(long, value_name = "TIME", allow_hyphen_values = true)]
    pub to: Option<String>,
}

#[derive(Args, Debug)]
#[command(after_help = "Examples:\n  \
    snooplab sweep --seeds 10                              # E2E, LAN 32k, 1 error/64 KB\n  \
    snooplab sweep --env lan,wan --buffer 8k,32k --seeds 10\n  \
    snooplab sweep --error-every 16k,32k,64k,128k,256k --seeds 5 --json\n  \
    snooplab sweep --host bsd44-lite,bsdos-2.1 --buffer 8k,32k --seeds 20\n  \
    snooplab sweep --scenario examples/cell-3-senders.toml --protocol e2e,efr --seeds 5\n  \
    snooplab sweep --transfer 1M,2M,4M,8M --protocol e2e,er --seeds 10\n\n\
Lists are comma-separated, each value once; every combination runs with seeds seed-base ..\n\
seed-base+seeds-1. Runs that differ only in their transfers are made as one run that forks\n\
where the smaller one's last bytes are written, and an Early Retransmit run (er, er-lt) takes\n\
the result of the run without it where the rule never acted: every result is its own run's.\n\
A sweep plans at most 100000 runs (combinations x seeds).")]
pub struct SweepArgs {
    /// A scenario file (as `snooplab run --scenario`; a network file too) whose settings are the
    /// base of every combination; the list flags below replace them.
    #[arg(long, value_name = "FILE")]
    pub scenario: Option<std::path::PathBuf>,
    /// Protocols, comma-separated [default: e2e, or the scenario file's].
    #[arg(long)]
    pub protocol: Option<String>,
    /// Environments, comma-separated [default: lan, or the scenario file's].
    #[arg(long)]
    pub env: Option<String>,
    /// Socket buffers, comma-separated [default: 32k, or the scenario file's].
    #[arg(long, allow_hyphen_values = true)]
    pub buffer: Option<String>,
    /// Segment sizes, comma-separated [default: 1400, or the scenario file's].
    #[arg(long, allow_hyphen_values = true)]
    pub mss: Option<String>,
    /// Transfer sizes of every flow, comma-separated [default: 8M, or the scenario file's].
    #[arg(long, allow_hyphen_values = true)]
    pub transfer: Option<String>,
    /// Mean bytes between errors, comma-separated; 0 = none [default: 64k, or the scenario
    /// file's].
    #[arg(long, allow_hyphen_values = true)]
    pub error_every: Option<String>,
    /// Frames per error event, comma-separated [default: 1, or the scenario file's].
    #[arg(long, allow_hyphen_values = true)]
    pub burst: Option<String>,
    /// Host profiles, comma-separated: bsd44-lite, bsdos-2.1, freebsd-2.2, linux, linux-reno,
    /// linux-paper, linux-paper-sack [default: bsdos-2.1, or the scenario file's].
    #[arg(long, value_name = "NAMES")]
    pub host: Option<String>,
    /// Change one host detail in every run, e.g. reader=instant (repeatable).
    #[arg(long, value_name = "KEY=VALUE")]
    pub host_detail: Vec<String>,
    /// Number of seeds per combination, 1 to 100000.
    #[arg(long, default_value = "10", allow_hyphen_values = true)]
    pub seeds: String,
    /// First seed.
    #[arg(long, default_value = "1", allow_hyphen_values = true)]
    pub seed_base: String,
    /// Worker threads (default: all cores; at most one per run and 256). Results do not depend
    /// on it.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Print JSON (every run and the summaries) instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Print no progress on stderr (the bar or the runs-done lines, and the closing rate line);
    /// stdout is the same either way.
    #[arg(long)]
    pub quiet: bool,
}

#[derive(Args, Debug)]
#[command(after_help = "Examples:\n  \
    snooplab reproduce                        # every paper that is built\n  \
    snooplab reproduce paper000               # Tables II-V and Fig. 12 of paper 000\n  \
    snooplab reproduce table3 --seeds 20      # one part of paper 000 (a part alone is paper 000's)\n  \
    snooplab reproduce paper000 table2 table5 # two parts\n  \
    snooplab reproduce paper001 fig18 --seeds 10   # EFR on a shared WaveLAN: aggregate throughput\n  \
    snooplab reproduce paper002 table1        # snoop and the multicast handoff: Table 1\n  \
    snooplab reproduce paper004               # Fig. 2: Reno vs Reno+ELN (and NACKs) for a mobile sender\n  \
    snooplab reproduce --out results/         # results/paper000/runs.json, runs.csv, report.json\n  \
    snooplab reproduce --report report/       # report/index.html: tables, figures, claims\n  \
    snooplab reproduce table2 --json\n  \
    snooplab reproduce --host bsd44-lite      # every host with the TCP as modelled before profiles\n  \
    snooplab reproduce --ablation --seeds 20  # = paper000 ablation: what each host detail is worth")]
pub struct ReproduceArgs {
    /// What to run: paper names (paper000), each optionally followed by its parts; a part with no
    /// paper before it is paper 000's [default: every paper, every part].
    #[arg(value_name = "PAPER|PART")]
    pub what: Vec<String>,
    /// Seeds per configuration [default: the paper's number of trials: 10 for papers 000, 002 and
    /// 004, 50 for paper 001].
    #[arg(long, allow_hyphen_values = true)]
    pub seeds: Option<String>,
    /// Directory for every run and the report, one subdirectory per paper (DIR/paper000/runs.json,
    /// runs.csv, report.json).
    #[arg(long, value_name = "DIR")]
    pub out: Option<std::path::PathBuf>,
    /// Print the reports as JSON instead of tables: one object, a key per paper.
    #[arg(long)]
    pub json: bool,
    /// Write a self-contained HTML report to DIR/index.html, a section per paper: every table and
    /// figure beside the paper's, the configurations, the claims, and traces of example runs (PNG
    /// and SVG beside, in DIR/paper000/ and so on).
    #[arg(long, value_name = "DIR")]
    pub report: Option<std::path::PathBuf>,
    /// Worker threads (default: all cores; at most one per run and 256). Results do not depend
    /// on it.
    #[arg(long)]
    pub threads: Option<usize>,
    /// TCP implementation of every host (bsd44-lite, bsdos-2.1, freebsd-2.2, or today's linux,
    /// linux-reno, linux-paper, linux-paper-sack) [default: each paper's hosts: bsdos-2.1 for
    /// papers 000, 002 and 004, freebsd-2.2 for paper 001, linux for the kernel check].
    #[arg(long, value_name = "NAME")]
    pub host: Option<String>,
    /// Instead of the tables: run Tables III and IV with each host detail switched, one at a
    /// time, between --host and --against, and print how much each moves each cell.
    #[arg(long)]
    pub ablation: bool,
    /// The other profile of --ablation.
    #[arg(long, default_value = "bsd44-lite", value_name = "NAME")]
    pub against: String,
    /// Print no progress on stderr (each paper's bar or runs-done lines, and its rate line);
    /// stdout and --out are the same either way.
    #[arg(long)]
    pub quiet: bool,
}

#[derive(Args, Debug)]
#[command(after_help = "Examples:\n  \
    snooplab bench                            # 20 timed runs of LAN-32k E2E, 8 MB: wall time, events/s\n  \
    snooplab bench --runs 5 --with trace,pcap # what recording costs\n  \
    snooplab bench --host bsd44-lite --json   # another host profile, as JSON\n  \
    snooplab bench --protocol ll-tcp-aware    # the same run through snoop\n  \
    snooplab bench --scenario examples/paper001-3-hosts.toml --runs 10   # a CSMA cell of 3 senders\n  \
    snooplab bench --hot-paths                # event queue, TCP, snoop, CSMA one at a time")]
pub struct BenchArgs {
    /// Timed runs (after one warm-up run), 1 to 100000.
    #[arg(long, default_value_t = 20)]
    pub runs: u32,
    /// Record during the runs, to measure what it costs: none, trace, pcap or trace,pcap (each
    /// once).
    #[arg(long, default_value = "none", value_name = "WHAT")]
    pub with: String,
    /// Host profile of the benchmarked runs (`snooplab hosts`: bsd44-lite, bsdos-2.1,
    /// freebsd-2.2, linux, ...) [default: bsdos-2.1, or the scenario file's].
    #[arg(long, value_name = "NAME")]
    pub host: Option<String>,
    /// Protocol of the benchmarked runs (`snooplab protocols`) [default: e2e, or the scenario
    /// file's].
    #[arg(long, value_name = "NAME")]
    pub protocol: Option<String>,
    /// Benchmark this scenario file (TOML or JSON, as `run --scenario`) instead of paper 000's
    /// LAN-32k run; each timed run uses the next seed.
    #[arg(long, value_name = "FILE")]
    pub scenario: Option<std::path::PathBuf>,
    /// Time the hot paths one at a time instead of a run: the event queue, TCP per segment, snoop
    /// per segment, the CSMA/CA access rule per frame (ns per operation).
    #[arg(long)]
    pub hot_paths: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    /// Print no progress on stderr. Without it, a bench that has taken 2 s of wall time shows a
    /// progress line there (the run it is at, that run's simulated time and bytes delivered); the
    /// figures on stdout are the same either way.
    #[arg(long)]
    pub quiet: bool,
}
