//! `snooplab live --exec HOST=COMMAND` (docs/live.md, "Your own programs: --exec"): real programs
//! (iperf3, `python3 -m http.server` and curl) in the preset's namespaces, through the base
//! station. The tests that run programs need root, /dev/net/tun, `ip netns` and the programs: they
//! are `#[ignore]`d (scripts/test-all includes them where the first three exist) and fail, naming
//! what is missing, when run without them. They run one at a time: the machine's cores are the
//! engine's.

use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::Mutex;

/// One live run at a time, so that the engine keeps its timing.
static SERIAL: Mutex<()> = Mutex::new(());

fn snooplab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_snooplab"))
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("the snooplab binary runs: {e}"))
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Fails `test`, saying why, where the live mode cannot run here or one of `programs` is missing:
/// the tests are `#[ignore]`d, so a run that includes them asked for them to run.
fn require(test: &str, programs: &[&str]) {
    snooplab_live::testbed::require_live(test);
    for p in programs {
        let found = Command::new("sh")
            .args(["-c", &format!("command -v {p}")])
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false);
        assert!(
            found,
            "live test {test} cannot run here: `{p}` is not installed"
        );
    }
}

/// A fresh directory under the temp dir.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("snooplab-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    dir
}

fn sha256(path: &std::path::Path) -> String {
    let o = Command::new("sha256sum")
        .arg(path)
        .output()
        .unwrap_or_else(|e| panic!("sha256sum runs: {e}"));
    assert!(o.status.success(), "{}", text(&o.stderr));
    text(&o.stdout)
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn an_unknown_host_is_refused_with_the_known_ones() {
    let o = snooplab(&["live", "--exec", "bs=true"]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(errors.len(), 1, "{err}");
    assert!(
        errors[0].contains("'bs'") && errors[0].contains("fh, mh"),
        "{err}"
    );
    for bad in ["mh", "mh=", "=true"] {
        let o = snooplab(&["live", "--exec", bad]);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{bad}: {err}");
        assert!(err.starts_with("error:"), "{bad}: {err}");
    }
    let o = snooplab(&["live", "--runs", "2", "--exec", "mh=true"]);
    assert!(text(&o.stderr).contains("--runs 1"), "{}", text(&o.stderr));
}

#[test]
#[ignore = "live: needs root, /dev/net/tun and ip netns (scripts/test-all runs it where they exist)"]
fn iperf3_runs_through_snoop_and_snoop_repairs_locally() {
    let test = "iperf3_runs_through_snoop_and_snoop_repairs_locally";
    require(test, &["iperf3"]);
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // The preset's data go from the fixed host to the mobile host: the client on mh asks for
    // the reverse direction (-R), so that fh's server sends the megabyte over the wireless hop.
    let o = snooplab(&[
        "live",
        "--protocol",
        "snoop",
        "--error-every",
        "64k",
        "--max-time",
        "60",
        "--exec",
        "fh=iperf3 -s -1",
        "--exec",
        "mh=iperf3 -c 10.0.0.1 -R -n 1M",
    ]);
    let out = text(&o.stdout);
    assert!(o.status.success(), "{out}\n{}", text(&o.stderr));
    assert!(out.contains("[mh] iperf Done."), "{out}");
    assert!(out.contains("[mh] exit status 0"), "{out}");
    assert!(out.contains("[fh] Server listening"), "{out}");
    // run's table of a run without snooplab's flows: "  local retransmits N, duplicate ACKs
    // suppressed M, events E"
    let local: u64 = out
        .lines()
        .find_map(|l| l.trim_start().strip_prefix("local retransmits "))
        .and_then(|l| l.split(',').next())
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no base-station counters: {out}"));
    assert!(local > 0, "no local retransmissions: {out}");
}

#[test]
#[ignore = "live: needs root, /dev/net/tun and ip netns (scripts/test-all runs it where they exist)"]
fn curl_fetches_a_file_intact_from_python_http_server() {
    let test = "curl_fetches_a_file_intact_from_python_http_server";
    require(test, &["python3", "curl", "sha256sum"]);
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = temp_dir("exec-http");
    let bytes: Vec<u8> = (0u32..200_000)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    std::fs::write(dir.join("file.bin"), &bytes).unwrap_or_else(|e| panic!("{e}"));
    let got = dir.join("got.bin");
    let server = format!(
        "fh=cd {} && exec python3 -m http.server 8000 --bind 10.0.0.1",
        dir.display()
    );
    // --retry-connrefused: the server may take longer than the settle time to bind
    let client = format!(
        "mh=curl -sS --retry 10 --retry-connrefused -o {} http://10.0.0.1:8000/file.bin",
        got.display()
    );
    let o = snooplab(&[
        "live",
        "--max-time",
        "60",
        "--exec",
        &server,
        "--exec",
        &client,
    ]);
    let out = text(&o.stdout);
    assert!(o.status.success(), "{out}\n{}", text(&o.stderr));
    assert!(out.contains("\"GET /file.bin HTTP/1.1\" 200"), "{out}");
    assert_eq!(sha256(&dir.join("file.bin")), sha256(&got), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
#[ignore = "live: needs root, /dev/net/tun and ip netns (scripts/test-all runs it where they exist)"]
fn the_last_commands_failure_fails_the_run_and_the_others_are_stopped() {
    let test = "the_last_commands_failure_fails_the_run_and_the_others_are_stopped";
    require(test, &[]);
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let o = snooplab(&[
        "live",
        "--json",
        "--exec",
        "fh=sleep 30",
        "--exec",
        "mh=echo to-stderr >&2; exit 3",
    ]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("[mh] to-stderr"), "{err}");
    assert!(
        err.lines()
            .any(|l| l.starts_with("error:") && l.contains("exit status 3")),
        "{err}"
    );
    let v: serde_json::Value =
        serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o.stdout)));
    let exec = v["exec"].as_array().cloned().unwrap_or_default();
    assert_eq!(exec.len(), 2, "{v}");
    assert_eq!(exec[0]["host"], "fh");
    assert_eq!(exec[0]["stopped"], true);
    assert_eq!(exec[1]["status"], 3);
    assert_eq!(exec[1]["stdout_truncated"], false);
    assert!(
        v["cells"].is_array(),
        "the engine's counters are reported: {v}"
    );
}

/// The processes whose command line contains `marker`.
fn processes_with(marker: &str) -> Vec<String> {
    let mut out = Vec::new();
    if let Ok(rd) = std::fs::read_dir("/proc") {
        for e in rd.flatten() {
            let cmdline = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
            let cmdline = text(&cmdline).replace('\0', " ");
            if cmdline.contains(marker) && !cmdline.contains("snooplab") {
                out.push(format!("{}: {cmdline}", e.file_name().to_string_lossy()));
            }
        }
    }
    out
}

#[test]
#[ignore = "live: needs root, /dev/net/tun and ip netns (scripts/test-all runs it where they exist)"]
fn sigint_stops_every_command_and_prints_their_output() {
    let test = "sigint_stops_every_command_and_prints_their_output";
    require(test, &[]);
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // a duration no other process on the machine sleeps
    let marker = format!("sleep 1000.{}", std::process::id());
    let child = Command::new(env!("CARGO_BIN_EXE_snooplab"))
        .args([
            "live",
            "--exec",
            &format!("fh=echo up; {marker}"),
            "--exec",
            &format!("mh={marker}; true"),
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    let pid = child.id() as i32;
    let start = std::time::Instant::now();
    // each command is its shell and its sleep
    while processes_with(&marker).len() < 4 && start.elapsed().as_secs() < 10 {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(processes_with(&marker).len() >= 2, "the commands run");
    // SAFETY: kill(2) to the snooplab process this test started.
    unsafe {
        libc::kill(pid, libc::SIGINT);
    }
    let o = child.wait_with_output().unwrap_or_else(|e| panic!("{e}"));
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("[fh] up"), "{err}");
    assert!(err.contains("interrupted by SIGINT"), "{err}");
    assert!(
        processes_with(&marker).is_empty(),
        "{:?}",
        processes_with(&marker)
    );
}

/// The connections the mobile host 10.0.1.2 opened in a raw-IPv4 pcap: the source ports of its
/// SYNs without ACK (a SYN sent again counts once).
fn connections_opened_by_mh(pcap: &[u8]) -> std::collections::BTreeSet<u16> {
    let mut ports = std::collections::BTreeSet::new();
    let mut at = 24; // the file header, then 16 bytes before each packet
    while let Some(len) = pcap.get(at + 8..at + 12) {
        let len = u32::from_le_bytes([len[0], len[1], len[2], len[3]]) as usize;
        let Some(p) = pcap.get(at + 16..at + 16 + len) else {
            break;
        };
        at += 16 + len;
        let ihl = usize::from(p.first().copied().unwrap_or(0) & 0x0f) * 4;
        let is_tcp_from_mh = p.len() >= 20 && p[9] == 6 && p[12..16] == [10, 0, 1, 2];
        if let (true, Some(tcp)) = (is_tcp_from_mh, p.get(ihl..ihl + 14)) {
            if tcp[13] & 0x12 == 0x02 {
                ports.insert(u16::from_be_bytes([tcp[0], tcp[1]]));
            }
        }
    }
    ports
}

/// Issue 52's live measure: `wget -p` fetches a page and its five objects from `python3 -m
/// http.server` through a split base station with losses; every object arrives intact, and the
/// result's `split` counts one relay per connection the client opened (the capture's SYNs: one
/// per GET, since the server's HTTP/1.0 closes each after its answer, and any refused while the
/// server was not yet listening), none left unsplit.
#[test]
#[ignore = "live: needs root, /dev/net/tun and ip netns (scripts/test-all runs it where they exist)"]
fn wget_fetches_a_page_through_split_with_a_relay_per_connection() {
    let test = "wget_fetches_a_page_through_split_with_a_relay_per_connection";
    require(test, &["python3", "wget", "sha256sum"]);
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = temp_dir("exec-split-wget");
    let (www, got) = (dir.join("www"), dir.join("got"));
    for d in [&www, &got] {
        std::fs::create_dir_all(d).unwrap_or_else(|e| panic!("{e}"));
    }
    let objects = [
        ("style.css", 30_000u32),
        ("app.js", 80_000),
        ("a.png", 150_000),
        ("b.png", 45_000),
        ("c.jpg", 200_000),
    ];
    for (k, (name, n)) in objects.iter().enumerate() {
        let bytes: Vec<u8> = (0..*n)
            .map(|i| (i.wrapping_mul(2_654_435_761).wrapping_add(k as u32) >> 13) as u8)
            .collect();
        std::fs::write(www.join(name), bytes).unwrap_or_else(|e| panic!("{e}"));
    }
    let page = "<html><head><link rel=\"stylesheet\" href=\"style.css\">\
                <script src=\"app.js\"></script></head><body><img src=\"a.png\">\
                <img src=\"b.png\"><img src=\"c.jpg\"></body></html>";
    std::fs::write(www.join("index.html"), page).unwrap_or_else(|e| panic!("{e}"));
    let server = format!(
        "fh=cd {} && exec python3 -m http.server 8080 --bind 10.0.0.1",
        www.display()
    );
    // -nH: the files land in `got` itself; --retry-connrefused: the server may bind late
    let client = format!(
        "mh=cd {} && wget -p -nv -nH --tries=10 --retry-connrefused http://10.0.0.1:8080/index.html",
        got.display()
    );
    let o = snooplab(&[
        "live",
        "--protocol",
        "split",
        "--error-every",
        "64k",
        "--json",
        "--pcap",
        &dir.join("caps").to_string_lossy(),
        "--max-time",
        "120",
        "--exec",
        &server,
        "--exec",
        &client,
    ]);
    let err = text(&o.stderr);
    assert!(o.status.success(), "{err}");
    for name in ["index.html"]
        .into_iter()
        .chain(objects.iter().map(|(n, _)| *n))
    {
        assert_eq!(
            sha256(&www.join(name)),
            sha256(&got.join(name)),
            "{name}: {err}"
        );
    }
    let v: serde_json::Value =
        serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o.stdout)));
    let gets = err.lines().filter(|l| l.contains("\"GET /")).count();
    assert!(gets > objects.len(), "{err}");
    let wireless = std::fs::read(dir.join("caps/wireless.pcap")).unwrap_or_default();
    let opened = connections_opened_by_mh(&wireless).len();
    assert!(
        opened >= gets,
        "{opened} connections for {gets} requests: {err}"
    );
    assert_eq!(
        v["split"]["relays"], opened,
        "one relay per connection: {v}"
    );
    assert_eq!(v["split"]["unsplit"], 0, "{v}");
    let _ = std::fs::remove_dir_all(&dir);
}
