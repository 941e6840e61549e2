//! `snooplab web-server` and `snooplab web-client` (docs/live.md, "Web pages"): the HTTP server
//! and client a live workload flow runs in its hosts' namespaces (`live/src/web/`), as commands
//! of their own, for `live --exec` or any two hosts. The server answers `GET /<n>` with a reply
//! of `n` bytes in all; the client replays a scenario file's workload flow (the same pages as
//! `snooplab run` draws for the file's seed) and prints the flow's `pages` result.

use std::net::SocketAddrV4;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use clap::Args;
use snooplab_lab::settings::RunSettings;
use snooplab_live::web::client::{fetch_pages, ClientSetup};
use snooplab_live::web::server::WebServer;
use snooplab_sim::metrics::PagesResult;
use snooplab_sim::workload::FlowWorkload;

/// `snooplab web-server`.
#[derive(Args, Debug)]
#[command(
    after_help = "Answers GET /<n> with a reply of n bytes in all, its header included \
(HTTP/1.0: then closes; HTTP/1.1: persistent, pipelined requests answered in order), until \
Ctrl-C or --max-time. Examples:\n  \
    snooplab web-server --listen 127.0.0.1:8080 --max-time 60\n  \
    sudo snooplab live --protocol snoop --exec fh='snooplab web-server --listen 10.0.0.1:8080' \\\n    \
    --exec mh='snooplab web-client --server 10.0.0.1:8080 --scenario examples/web-pages-snoop.toml'"
)]
pub struct WebServerArgs {
    /// The address and port to listen on.
    #[arg(long, value_name = "ADDR:PORT")]
    pub listen: SocketAddrV4,
    /// Stop after this many seconds (default: at Ctrl-C or SIGTERM only).
    #[arg(long, value_name = "SECONDS")]
    pub max_time: Option<f64>,
}

/// `snooplab web-client`.
#[derive(Args, Debug)]
#[command(
    after_help = "Replays the pages of a scenario file's workload = \"web\" flow (its \
model, pages and HTTP, the file's seed) against --server, and prints the flow's pages as \
`snooplab run` does (--json: the `pages` object of `run --json`'s flows). Examples:\n  \
    snooplab web-client --server 127.0.0.1:8080 --scenario examples/web-pages-snoop.toml\n  \
    snooplab web-client --server 10.0.0.1:8080 --scenario F --flow web --pages 5 --json"
)]
pub struct WebClientArgs {
    /// The server's address and port.
    #[arg(long, value_name = "ADDR:PORT")]
    pub server: SocketAddrV4,
    /// The scenario file whose workload flow to replay.
    #[arg(long, value_name = "FILE")]
    pub scenario: String,
    /// The flow's name (default: the file's first workload flow).
    #[arg(long)]
    pub flow: Option<String>,
    /// The run's seed (default: the file's).
    #[arg(long)]
    pub seed: Option<String>,
    /// Fetch only the first N pages.
    #[arg(long, value_name = "N")]
    pub pages: Option<u32>,
    /// Print the pages as JSON.
    #[arg(long)]
    pub json: bool,
}

/// A stop flag set by Ctrl-C, SIGTERM or SIGHUP, or `max_time` seconds from now.
fn stop_watch(max_time: Option<f64>, stop: &AtomicBool) -> Result<(), String> {
    snooplab_live::sys::catch_stop_signals().map_err(|e| format!("signals: {e}"))?;
    let limit = match max_time {
        Some(s) if !(s.is_finite() && s > 0.0 && s <= 1e6) => {
            return Err(format!(
                "--max-time {s}: use more than 0 and at most 1e6 seconds"
            ))
        }
        s => s.map(Duration::from_secs_f64),
    };
    let start = Instant::now();
    while !stop.load(Ordering::Relaxed) {
        if snooplab_live::sys::stop_requested() || limit.is_some_and(|l| start.elapsed() >= l) {
            stop.store(true, Ordering::SeqCst);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    Ok(())
}

pub fn web_server(a: &WebServerArgs) -> Result<(), String> {
    let server = WebServer::listen(None, a.listen, None)?;
    let stop = AtomicBool::new(false);
    let report = std::thread::scope(|s| {
        let served = s.spawn(|| server.serve(&stop));
        let watched = stop_watch(a.max_time, &stop);
        stop.store(true, Ordering::SeqCst);
        watched.map(|()| served.join().unwrap_or_default())
    })?;
    eprintln!(
        "web-server: {} connections, {} replies, {} bytes; {} connections failed",
        report.connections, report.replies, report.reply_bytes, report.failed_connections
    );
    for e in &report.errors {
        eprintln!("web-server:   {e}");
    }
    Ok(())
}

pub fn web_client(a: &WebClientArgs) -> Result<(), String> {
    let settings = RunSettings {
        scenario: Some(a.scenario.clone().into()),
        seed: a.seed.clone(),
        ..RunSettings::default()
    };
    let net = settings.scenario()?.network();
    let found = net
        .flows
        .iter()
        .find(|f| !f.workload.is_bulk() && a.flow.as_ref().is_none_or(|name| &f.name == name));
    let Some(FlowWorkload::Pages(spec)) = found.map(|f| &f.workload) else {
        return Err(match &a.flow {
            Some(name) => format!("{}: no workload flow '{name}'", a.scenario),
            None => format!("{}: no flow with workload = \"web\"", a.scenario),
        });
    };
    let pages = a.pages.map_or(spec.pages, |n| n.min(spec.pages));
    if pages == 0 {
        return Err("--pages must be at least 1".into());
    }
    let stop = AtomicBool::new(false);
    let setup = ClientSetup {
        ns: None,
        server: a.server,
        http: spec.http,
        cc: &default_congestion_control(),
        clock: Instant::now(),
        start: 0,
        window: None,
    };
    let seed = net.seed;
    let got = std::thread::scope(|s| {
        let watch = s.spawn(|| stop_watch(None, &stop));
        let got = fetch_pages(
            &setup,
            u64::from(pages),
            &|i| spec.page(seed, i),
            &stop,
            &AtomicU64::new(0),
        );
        stop.store(true, Ordering::SeqCst);
        let _ = watch.join();
        got
    });
    let result = PagesResult {
        connections: got.connections,
        ..PagesResult::of_records(u64::from(pages), |i| spec.page(seed, i), &got.records)
    };
    if a.json {
        let v = serde_json::to_string_pretty(&result).map_err(|e| e.to_string())?;
        println!("{v}");
    } else {
        println!("pages {}", result.summary());
    }
    for e in &got.errors {
        eprintln!("web-client: {e}");
    }
    if got.corrupt_objects > 0 || got.failed_objects > 0 {
        return Err(format!(
            "{} objects failed, {} with bytes other than the server's",
            got.failed_objects, got.corrupt_objects
        ));
    }
    Ok(())
}

/// The kernel's default congestion control here (`net.ipv4.tcp_congestion_control`).
fn default_congestion_control() -> String {
    std::fs::read_to_string("/proc/sys/net/ipv4/tcp_congestion_control")
        .map(|s| s.trim().to_string())
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "reno".into())
}
