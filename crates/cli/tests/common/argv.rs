//! Random argument vectors for the command line's property tests: the real subcommand and flag
//! names with values that are right, nearly right, out of range or garbage, mixed with flags of
//! other subcommands and stray tokens. Shared by the parser-and-settings test inside the binary
//! (`src/args_proptest.rs`) and the test that runs the binary (`tests/args_proptest.rs`).

use proptest::prelude::*;

/// A subcommand and its options: the flag (`--buffer`; `""` for a positional argument) and whether
/// it takes a value.
#[derive(Clone, Debug)]
pub struct Spec {
    pub name: String,
    pub flags: Vec<(String, bool)>,
}

/// Values a flag of this name is given: some right, some wrong in the ways users get them wrong.
fn pool(flag: &str, tiny: bool) -> &'static [&'static str] {
    const SIZES: &[&str] = &[
        "0",
        "1",
        "64",
        "1400",
        "1k",
        "8k",
        "32k",
        "64KiB",
        "1.5k",
        "1.5M",
        "8M",
        "1G",
        "-1",
        "1.1k",
        "x",
        "",
        "1e3",
        "k",
        "1..5k",
        " 8k ",
        "18446744073709551615",
        "99999999999G",
        "8k,32k",
        "8k,,32k",
    ];
    const TINY_SIZES: &[&str] = &["1", "1k", "4k", "16k", "1.5k", "0", "-1", "1.1k", "x", ""];
    const NUMBERS: &[&str] = &[
        "0",
        "1",
        "2",
        "3",
        "10",
        "-1",
        "100000",
        "100001",
        "4294967296",
        "18446744073709551615",
        "18446744073709551616",
        "1.5",
        "x",
        "",
        "1,2",
    ];
    const TINY_NUMBERS: &[&str] = &["0", "1", "2", "3", "-1", "1.5", "x", ""];
    const THREADS: &[&str] = &["0", "1", "2", "100000", "-1", "x", ""];
    const SECONDS: &[&str] = &[
        "0", "0.001", "1", "12.5", "1e4", "1e7", "1e8", "-1", "nan", "inf", "x", "", "1e-12",
    ];
    const PROTOCOLS: &[&str] = &[
        "e2e",
        "snoop",
        "ll-tcp-aware",
        "ll-smart-tcp-aware",
        "split",
        "split-smart",
        "efr",
        "e2e-eln",
        "plain",
        "ll",
        "tahoe",
        "E2E",
        "",
        "e2e,split",
        "e2e,,snoop",
    ];
    const ENVS: &[&str] = &["lan", "wan", "off", "moon", "LAN", "", "lan,wan"];
    const HOSTS: &[&str] = &[
        "bsd44-lite",
        "bsdos-2.1",
        "freebsd-2.2",
        "solaris",
        "",
        "bsdos-2.1,freebsd-2.2",
    ];
    const DETAILS: &[&str] = &[
        "reader=instant",
        "read-delay=2ms",
        "persist=off",
        "delayed-ack=off",
        "nagle=on",
        "reader",
        "=",
        "read-size=0",
        "read-delay=1e9s",
    ];
    const PARTS: &[&str] = &["table2", "table3", "all", "fig12", "table9", ""];
    const WITH: &[&str] = &["none", "trace", "pcap", "trace,pcap", "x", ""];
    const SCENARIOS: &[&str] = &[
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/lan-32k.toml"),
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/wan-burst.toml"),
        "/dev/zero",
        "/nonexistent/x.toml",
        "/",
        "",
    ];
    const PROFILES: &[&str] = &["paper", "paper-sack", "modern", "bsd"];
    const CC: &[&str] = &["reno", "cubic", "bbr", "vegas"];
    const RTO: &[&str] = &["1s", "200ms", "kernel", "1", "0ms", "61s"];
    const DIRS: &[&str] = &["/nonexistent/dir", "/", ""];
    match flag {
        "--buffer" | "--mss" | "--error-every" | "--error-every-down" | "--error-every-up" => SIZES,
        "--transfer" if tiny => TINY_SIZES,
        "--transfer" => SIZES,
        "--threads" => THREADS,
        "--seeds" | "--runs" | "--burst" if tiny => TINY_NUMBERS,
        "--seed" | "--seeds" | "--seed-base" | "--runs" | "--burst" => NUMBERS,
        "--max-time" | "--from" | "--to" => SECONDS,
        "--protocol" => PROTOCOLS,
        "--env" => ENVS,
        "--host" | "--against" => HOSTS,
        "--host-detail" => DETAILS,
        "--with" => WITH,
        "--scenario" => SCENARIOS,
        "--linux-profile" => PROFILES,
        "--cc" => CC,
        "--rto-min" => RTO,
        "--out" | "--trace" | "--pcap" | "--plot" | "--report" => DIRS,
        _ => PARTS,
    }
}

/// One token's raw choice: which kind, an index into a pool, and a random string.
type Raw = (u8, u16, u16, String);

fn pick<'a>(items: &'a [&'a str], i: u16) -> &'a str {
    items[usize::from(i) % items.len()]
}

/// A value for `flag`. For the binary (`tiny`), two times in three from the first half of the
/// pool, where the right values are, so that more cases get past the checks and run.
fn value(flag: &str, tiny: bool, i: u16) -> String {
    let pool = pool(flag, tiny);
    if tiny && !i.is_multiple_of(3) {
        pick(&pool[..pool.len().div_ceil(2)], i / 3)
    } else {
        pick(pool, i)
    }
    .to_string()
}

/// Argument vectors (without the program name) over `specs`. `tiny`: the binary will run them, so
/// `run` and `sweep` always get one small `--transfer` and small lists, and there are no stray
/// flags of other subcommands (which could write files or run for long).
pub fn argv(specs: Vec<Spec>, tiny: bool) -> impl Strategy<Value = Vec<String>> {
    let words = "\\PC{0,12}";
    (
        any::<u8>(),
        words,
        prop::collection::vec((any::<u8>(), any::<u16>(), any::<u16>(), words), 0..7),
    )
        .prop_map(move |(which, garbage, raw)| build(&specs, tiny, which, garbage, raw))
}

fn build(specs: &[Spec], tiny: bool, which: u8, garbage: String, raw: Vec<Raw>) -> Vec<String> {
    let mut out = Vec::new();
    // mostly a real subcommand; sometimes garbage, nothing, or help and version
    let spec = match which % 16 {
        0 => {
            out.push(garbage);
            None
        }
        1 => None,
        2 => {
            out.push(["--help", "-V", "--version", "-h"][usize::from(which / 16) % 4].into());
            None
        }
        n => {
            let s = &specs[usize::from(n) % specs.len()];
            out.push(s.name.clone());
            Some(s)
        }
    };
    let all_flags: Vec<&(String, bool)> = specs.iter().flat_map(|s| &s.flags).collect();
    let own = spec.map(|s| s.flags.as_slice()).unwrap_or_default();
    for (kind, a, b, word) in raw {
        // the binary should mostly get past the parser and run: each flag once, few stray words
        if tiny && !own.is_empty() && kind % 20 < 19 {
            let (flag, _) = &own[usize::from(a) % own.len()];
            if !flag.is_empty() && out.contains(flag) {
                continue;
            }
        }
        if tiny && own.is_empty() && kind % 20 < 19 {
            continue;
        }
        match kind % 20 {
            // a flag of this subcommand with a value from its pool
            0..=15 if !own.is_empty() => {
                let (flag, takes) = &own[usize::from(a) % own.len()];
                if tiny && flag == "--transfer" {
                    continue;
                }
                if !flag.is_empty() {
                    out.push(flag.clone());
                }
                if *takes || flag.is_empty() {
                    out.push(value(flag, tiny, b));
                }
            }
            // a flag of this subcommand with a random value, or its value missing
            16 if !own.is_empty() => {
                let (flag, _) = &own[usize::from(a) % own.len()];
                if tiny && flag == "--transfer" {
                    continue;
                }
                out.push(flag.clone());
                if b % 2 == 0 {
                    out.push(word);
                }
            }
            // a flag of another subcommand
            17 if !tiny && !all_flags.is_empty() => {
                let (flag, takes) = all_flags[usize::from(a) % all_flags.len()];
                out.push(flag.clone());
                if *takes {
                    out.push(value(flag, tiny, b));
                }
            }
            // a stray word, or one that looks like a flag
            _ => {
                if b % 3 == 0 && !tiny {
                    out.push(format!("--{word}"));
                } else {
                    out.push(word);
                }
            }
        }
    }
    if tiny && spec.is_some_and(|s| s.flags.iter().any(|(f, _)| f == "--transfer")) {
        out.push("--transfer".into());
        out.push("4k".into());
    }
    out
}
