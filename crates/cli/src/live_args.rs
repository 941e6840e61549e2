//! `snooplab live`'s flags ([`LiveArgs`]), apart from the other commands' in `cli.rs`: the
//! largest set, and the one that knows which of them describe a network (`--scenario`'s
//! overrides, `live_scenario.rs`).

use clap::Args;

#[derive(Args, Debug)]
#[command(
    after_help = "Examples (as root; sudo often resets PATH: `sudo \"$(command -v snooplab)\" live`):\n  \
    snooplab live                                  # snoop, paper profile, LAN, 32k, 1 error/64 KB, 8 MB\n  \
    snooplab live --protocol plain,ll-tcp-aware --runs 5      # the comparison, mean and 95% CI\n  \
    snooplab live --linux-profile modern --protocol plain,ll-tcp-aware --runs 5\n  \
    snooplab live --env wan --protocol plain,ll-tcp-aware --runs 5   # over the 16-hop WAN path\n  \
    snooplab live --error-every 0 --transfer 2M    # calibration: the emulated link's capacity\n  \
    snooplab live --env off --protocol plain,ll-tcp-aware --transfer 1G \\\n      \
         --linux-profile modern --buffer 4M --mss 1460     # speed of the agents, no emulation\n  \
    snooplab live --protocol plain --rto-min kernel --runs 5   # plain with Linux's 200 ms RTO floor\n  \
    snooplab live --pcap caps/ && wireshark caps/wireless.pcap\n  \
    snooplab live --exec fh='iperf3 -s -1' --exec mh='iperf3 -c 10.0.0.1 -R -n 1M'\n      \
         # your own programs through snoop: fh 10.0.0.1 sends (-R) to mh 10.0.1.2\n  \
    snooplab live --protocol plain,ll-tcp-aware,split   # split: the base station relays the bytes\n  \
    snooplab live --scenario examples/mixed-eln-sender.toml   # a modelled BSD/OS ELN sender, a Linux receiver\n\n\
Linux profiles: paper = reno without SACK, DSACK, timestamps, RACK, early retransmit, F-RTO, window\n\
scaling, with 4.4BSD's 1 s minimum RTO and 1-segment initial window (4.4BSD as closely as Linux\n\
goes); paper-sack = the same with SACK and DSACK; modern = the kernel's defaults with cubic.\n\
The namespaces (snooplab-<pid>-<n>-fh/-mh) are removed at the end, on error and on SIGINT (Ctrl-C),\n\
SIGTERM or SIGHUP; each run holds a lock in /run/snooplab while they exist, and a later run removes\n\
those whose lock nobody holds (a run that was killed). Interrupted or failed, an invocation still\n\
prints the runs that completed (with --json too) and exits 2. A run whose engine released packets\n\
late (a busy machine) carries a warning. Sizes: 8k, 32k, 8M (k = 1024)."
)]
pub struct LiveArgs {
    /// A scenario file to run live (as `snooplab run --scenario`): every host a kernel host in a
    /// namespace of its own (or, with `stack = "model"` in its table, the engine's own TCP on the
    /// real clock), the simulator's engine on the real clock between them (links, cells, agents,
    /// handoffs, split relays), each flow carried by snooplab's sender and receiver (or by
    /// --exec's commands). The file sets the network, the agents and the flows; as with `snooplab
    /// run --scenario`, --protocol (one), --env (lan or wan), --buffer, --mss, --transfer,
    /// --error-every, --burst, --down, --up and --seed given on the command line override the
    /// file's values; --linux-profile, --cc, --rto-min, --max-time, --pcap (one capture per link
    /// and cell, named as `snooplab run --pcap` names them), --json and --exec apply; --runs is one.
    #[arg(long, value_name = "FILE")]
    pub scenario: Option<std::path::PathBuf>,
    /// Protocols, comma-separated, by the names `snooplab run` takes (`snooplab protocols`
    /// marks them [live]): e2e, ll, ll-tcp-aware (snoop), ll-smart-tcp-aware, split, split-smart,
    /// snoop-sack-vl, snoop-sack,
    /// those whose every change is the base station's agent, the kernels being both hosts.
    /// plain is an alias of e2e (the base station only routes), this mode's old name for it;
    /// results name it e2e.
    #[arg(long, default_value = "ll-tcp-aware")]
    pub protocol: String,
    /// Link emulation: lan (10 Mb/s Ethernet to the base station), wan (the simulator's 16-hop
    /// path), both with the 2 Mb/s WaveLAN hop; or off (no rate limit, no delay, no errors).
    #[arg(long, default_value = "lan")]
    pub env: String,
    /// How the Linux endpoints are set up: paper, paper-sack or modern.
    #[arg(long, default_value = "paper")]
    pub linux_profile: String,
    /// Congestion control of the sender: reno, cubic or bbr [default: reno for the paper
    /// profiles, cubic for modern].
    #[arg(long)]
    pub cc: Option<String>,
    /// Lower bound of the endpoints' retransmission timeout (route rto_min), e.g. 1s or 200ms, or
    /// 'kernel' for Linux's own 200 ms [default: 1s for the paper profiles, kernel for modern].
    #[arg(long, value_name = "TIME", allow_hyphen_values = true)]
    pub rto_min: Option<String>,
    /// The receiver's largest advertised window: no window the mobile host advertises exceeds it,
    /// so neither do the sender's bytes in flight (TCP_WINDOW_CLAMP, held after the kernel's own
    /// adjustments; Linux rounds unscaled windows down to whole segments: 32k gives 32,200 at MSS
    /// 1400). 2k to 256k for the paper profiles (their hosts' limit, 4.4BSD sb_max; without window
    /// scaling at most 65,535 of it is advertised, as the modelled hosts do), 2k to 64M for modern.
    #[arg(
        long,
        default_value = "32k",
        value_name = "SIZE",
        allow_hyphen_values = true
    )]
    pub buffer: String,
    /// Segment payload without TCP options; the devices' MTU is this plus 40.
    #[arg(
        long,
        default_value = "1400",
        value_name = "BYTES",
        allow_hyphen_values = true
    )]
    pub mss: String,
    /// Bytes the fixed host sends to the mobile host.
    #[arg(
        long,
        default_value = "8M",
        value_name = "SIZE",
        allow_hyphen_values = true
    )]
    pub transfer: String,
    /// Mean bytes between bit errors on the wireless hop, both directions; 0 = none.
    #[arg(
        long,
        default_value = "64k",
        value_name = "SIZE",
        allow_hyphen_values = true
    )]
    pub error_every: String,
    /// Frames destroyed by each error event.
    #[arg(
        long,
        default_value = "1",
        value_name = "K",
        allow_hyphen_values = true
    )]
    pub burst: String,
    /// Channel model of the wireless hop towards the mobile host, over --error-every/--burst: none,
    /// exponential:every=64k[,burst=2], gilbert-elliott:good-every=0,bad-every=1k,good-time=1s,
    /// bad-time=50ms, or trace:FILE (the simulator's models, docs/channels.md).
    #[arg(long, value_name = "MODEL")]
    pub down: Option<String>,
    /// Channel model from the mobile host (as --down).
    #[arg(long, value_name = "MODEL")]
    pub up: Option<String>,
    /// Seed of the error processes and of the transferred bytes (run i uses seed + i).
    #[arg(long, default_value = "1", allow_hyphen_values = true)]
    pub seed: String,
    /// Runs per protocol; with more than one, mean and 95% confidence interval are printed. At
    /// most 1000 runs in all (protocols x runs).
    #[arg(long, default_value = "1", allow_hyphen_values = true)]
    pub runs: String,
    /// Give up on a run after this much real time, connecting included: seconds (600) or a
    /// duration (10min).
    #[arg(
        long,
        default_value = "600",
        value_name = "TIME",
        allow_hyphen_values = true
    )]
    pub max_time: String,
    /// Where the kernel hosts take in the packets the engine writes into their devices: auto
    /// steers every host of a run whose cells are all full duplex (--env off; a scenario file
    /// of wires and full-duplex cells) to the other cores (Receive Packet Steering on its
    /// device), and pins the engine's thread to its own core for the run, where the machine has
    /// two cores or more; a run with a half-duplex or CSMA cell stays inline, as its cell waits
    /// for a host's answer in the write's call. inline takes every host's input in the engine's
    /// write call, on the engine's core. The hosts see the same packets at the same engine times
    /// either way; steered is faster (docs/live.md, "The hosts' input on the other cores"). The
    /// JSON's live.host_input says what each run did.
    #[arg(long, default_value = "auto", value_name = "auto|inline")]
    pub host_input: String,
    /// Write wired.pcap and wireless.pcap into DIR (one subdirectory per run when there are
    /// several), as the simulator's captures. A DIR another snooplab live is writing is refused.
    #[arg(long, value_name = "DIR")]
    pub pcap: Option<std::path::PathBuf>,
    /// Print JSON: every run and the summaries.
    #[arg(long)]
    pub json: bool,
    /// Run COMMAND in HOST's network namespace for the run (repeatable, at most 16), e.g.
    /// --exec fh='iperf3 -s -1' --exec mh='iperf3 -c 10.0.0.1 -R -n 1M'. With any --exec, snooplab
    /// starts none of the flows (no sender or receiver of its own): the commands carry the
    /// traffic. They start in the order given, 300 ms apart (servers first); the run ends when
    /// the last one exits, and the others are then stopped. Their output is printed after the
    /// run, each line prefixed [HOST]; the exit code is nonzero if the last one failed. Hosts and
    /// addresses: without --scenario, fh is 10.0.0.1 (the fixed host) and mh 10.0.1.2 (the
    /// mobile host, behind the wireless hop); with --scenario, the hosts' names and addresses
    /// are the file's. Every run with --exec prints the hosts and their addresses on stderr as it
    /// starts (those a file leaves out are assigned). Traffic stays within the run's namespaces. One protocol, one run.
    #[arg(long, value_name = "HOST=COMMAND")]
    pub exec: Vec<String>,
    /// Print no progress on stderr. Without it, each run prints a line there as it starts and
    /// one as it ends (`live: run 2/5 ll-tcp-aware seed 2 done in 45.1 s, 1.23 Mb/s`), and a run
    /// that has taken 2 s one while it runs (time elapsed and bytes delivered); stdout is the
    /// same either way.
    #[arg(long)]
    pub quiet: bool,
    /// Which of [`LiveArgs::SCENARIO_FLAGS`] the command line gave (not their defaults): with
    /// --scenario they override the file's values, as `snooplab run --scenario`'s flags do.
    #[arg(skip)]
    pub given: Vec<&'static str>,
}

impl LiveArgs {
    /// The flags that describe the network and its flows, by their clap ids: without --scenario
    /// they build paper 000's testbed; with it they override the file (`live_scenario.rs`).
    pub const SCENARIO_FLAGS: [&'static str; 11] = [
        "protocol",
        "env",
        "buffer",
        "mss",
        "transfer",
        "error_every",
        "burst",
        "down",
        "up",
        "seed",
        "runs",
    ];

    /// Whether the command line gave flag `id` (one of [`LiveArgs::SCENARIO_FLAGS`]).
    pub fn gave(&self, id: &str) -> bool {
        self.given.contains(&id)
    }
}
