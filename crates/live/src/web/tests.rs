//! The HTTP client and server on loopback, in this process's own namespace (no root needed):
//! every object's bytes arrive intact and its times are ordered, under HTTP/1.0 and HTTP/1.1,
//! with pipelining or not; a bad request closes its connection; a reply whose bytes differ is
//! caught. Loopback only: nothing leaves the machine.

use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddrV4, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use snooplab_sim::workload::{plan, Http, Object, Page};

use super::client::{fetch_pages, ClientReport, ClientSetup};
use super::http::{self, Version};
use super::server::{ServerReport, WebServer};

/// Page `i`: a document and `i % 4` embedded objects of sizes from below a reply's head (3
/// bytes: the head alone goes) to 200 KB, requests from below the least request to 2 KB.
fn page(i: u64) -> Page {
    let sizes = [(250, 8192), (10, 3), (2048, 200_000), (300, 1400)];
    let n = 1 + (i % 4) as usize;
    Page {
        objects: (0..n)
            .map(|k| {
                let (request_bytes, reply_bytes) = sizes[(k + i as usize) % sizes.len()];
                Object {
                    request_bytes,
                    reply_bytes,
                }
            })
            .collect(),
        think: 1_000_000, // 1 ms
    }
}

/// Serves on loopback while the client fetches `pages` pages under `http`.
fn fetch(http: Http, pages: u64) -> (ClientReport, ServerReport) {
    let stop = AtomicBool::new(false);
    let at = SocketAddrV4::new(Ipv4Addr::LOCALHOST, 0);
    let server = WebServer::listen(None, at, None).unwrap_or_else(|e| panic!("{e}"));
    let port = server.local_addr().map(|a| a.port()).unwrap_or(0);
    std::thread::scope(|s| {
        let served = s.spawn(|| server.serve(&stop));
        let setup = ClientSetup {
            ns: None,
            server: SocketAddrV4::new(Ipv4Addr::LOCALHOST, port),
            http,
            cc: "reno",
            clock: Instant::now(),
            start: 0,
            window: None,
        };
        let got = fetch_pages(
            &setup,
            pages,
            &page,
            &AtomicBool::new(false),
            &AtomicU64::new(0),
        );
        stop.store(true, Ordering::SeqCst);
        (got, served.join().unwrap_or_default())
    })
}

#[test]
fn every_object_arrives_intact_with_its_times_in_order_under_each_http() {
    let https = [
        Http::Http10 { parallel: 4 },
        Http::Http10 { parallel: 1 },
        Http::Http11 {
            connections: 2,
            pipelined: false,
        },
        Http::Http11 {
            connections: 1,
            pipelined: true,
        },
    ];
    for http in https {
        let (got, served) = fetch(http, 8);
        assert_eq!(got.records.len(), 8, "{http:?}: {:?}", got.errors);
        assert_eq!((got.failed_objects, got.corrupt_objects), (0, 0), "{got:?}");
        let mut objects = 0;
        let mut connections = 0;
        let mut bytes = 0;
        for (i, p) in got.records.iter().enumerate() {
            let drawn = page(i as u64);
            objects += drawn.objects.len() as u64;
            connections += plan(&drawn, http).connections() as u64;
            for (o, d) in p.objects.iter().zip(&drawn.objects) {
                let (head, body) = http::reply_head(Version::Http10, u64::from(d.reply_bytes));
                bytes += head.len() as u64 + body;
                let t = o.times;
                assert!(!o.failed, "{http:?} page {i}: {o:?}");
                assert!(t.asked >= p.started, "{o:?}");
                let (Some(req), Some(first), Some(done)) = (t.requested, t.first_byte, t.done)
                else {
                    panic!("{http:?} page {i}: {o:?}");
                };
                assert!(t.connected.unwrap_or(t.asked) >= t.asked, "{o:?}");
                assert!(req >= t.connected.unwrap_or(t.asked), "{o:?}");
                assert!(first >= req && done >= first, "{o:?}");
            }
        }
        assert_eq!(got.connections, connections, "{http:?}");
        assert_eq!(got.received_bytes, bytes, "{http:?}");
        assert_eq!(served.replies, objects, "{http:?}: {served:?}");
        assert_eq!(served.reply_bytes, bytes, "{http:?}");
        assert_eq!(served.failed_connections, 0, "{http:?}: {served:?}");
    }
}

/// Pages follow one another: each starts after the previous one's last object and think time.
#[test]
fn a_page_starts_after_the_last_ones_objects_and_think_time() {
    let (got, _) = fetch(Http::Http10 { parallel: 4 }, 5);
    for w in got.records.windows(2) {
        let last = w[0].objects.iter().filter_map(|o| o.times.done).max();
        assert!(
            last.is_some_and(|l| w[1].started >= l + page(0).think),
            "{w:?}"
        );
    }
}

/// A request that is not `GET /<n>` closes its connection with no reply, and so does a head
/// past the bound; both are counted with their error.
#[test]
fn a_bad_request_closes_its_connection() {
    let stop = AtomicBool::new(false);
    let at = SocketAddrV4::new(Ipv4Addr::LOCALHOST, 0);
    let server = WebServer::listen(None, at, None).unwrap_or_else(|e| panic!("{e}"));
    let Ok(addr) = server.local_addr() else {
        panic!("no address");
    };
    let report = std::thread::scope(|s| {
        let served = s.spawn(|| server.serve(&stop));
        let long = vec![b'a'; http::MAX_REQUEST_HEAD + 10];
        for bad in [&b"POST /1 HTTP/1.0\r\n\r\n"[..], &long] {
            let mut c = TcpStream::connect(addr).unwrap_or_else(|e| panic!("{e}"));
            let _ = c.write_all(bad);
            let mut got = Vec::new();
            let _ = c.read_to_end(&mut got);
            assert!(got.is_empty(), "{}", String::from_utf8_lossy(&got));
        }
        stop.store(true, Ordering::SeqCst);
        served.join().unwrap_or_default()
    });
    assert_eq!((report.connections, report.failed_connections), (2, 2));
    assert!(report.errors[0].contains("POST"), "{report:?}");
    assert!(report.errors[1].contains("longer than"), "{report:?}");
}

/// A server whose reply has the right length but other bytes: the client finds it, and the
/// object fails (a check that fails if the client stops comparing the bytes).
#[test]
fn a_reply_with_other_bytes_is_caught() {
    let listener = TcpListener::bind(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 0))
        .unwrap_or_else(|e| panic!("{e}"));
    let Ok(addr) = listener.local_addr() else {
        panic!("no address");
    };
    let liar = std::thread::spawn(move || {
        if let Ok((mut c, _)) = listener.accept() {
            let mut buf = [0u8; 4096];
            let _ = c.read(&mut buf);
            let (head, body) = http::reply_head(Version::Http10, 8192);
            let _ = c.write_all(&head);
            let _ = c.write_all(&vec![0u8; body as usize]);
        }
    });
    let setup = ClientSetup {
        ns: None,
        server: SocketAddrV4::new(Ipv4Addr::LOCALHOST, addr.port()),
        http: Http::Http10 { parallel: 1 },
        cc: "reno",
        clock: Instant::now(),
        start: 0,
        window: None,
    };
    let one = |_| Page {
        objects: vec![Object {
            request_bytes: 100,
            reply_bytes: 8192,
        }],
        think: 0,
    };
    let got = fetch_pages(&setup, 1, &one, &AtomicBool::new(false), &AtomicU64::new(0));
    let _ = liar.join();
    assert_eq!((got.corrupt_objects, got.failed_objects), (1, 1), "{got:?}");
    assert!(got.records[0].objects[0].failed);
    assert!(got.errors[0].contains("differ"), "{:?}", got.errors);
}
