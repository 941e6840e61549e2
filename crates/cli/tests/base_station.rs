//! `snooplab base-station` as deployed (docs/live.md, "The base station as a middlebox"): three
//! network namespaces joined by two veth pairs stand in for a fixed host, the middlebox with its
//! two NICs, and a mobile host; a 10 Mb/s rate and a 1% random loss on the middlebox's
//! wireless-side veth (`radio`) stand in for the radio. Needs root and `ip netns`: `#[ignore]`d, and failing, naming what is missing,
//! when run without them. No traffic leaves the namespaces the test creates.

use std::io::Read;
use std::net::{Ipv4Addr, SocketAddrV4, UdpSocket};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use snooplab_live::endpoint::{self, Receiver};
use snooplab_live::netns::{self, Namespace};
use snooplab_live::testbed::require_live;
use snooplab_live::CongestionControl;

const SENDER: Ipv4Addr = Ipv4Addr::new(10, 77, 0, 1);
const RECEIVER: Ipv4Addr = Ipv4Addr::new(10, 77, 0, 2);

/// `SIOCETHTOOL` and the legacy ethtool commands that turn one offload off (linux/ethtool.h):
/// TSO, GSO, GRO and transmit checksumming. A veth that offloads hands its peer segments of up to
/// 64 KB and checksums left for the hardware, which a packet socket reads as they are; real NICs
/// put whole, checksummed frames on the wire, which is what the middlebox is for.
const SIOCETHTOOL: libc::c_ulong = 0x8946;
const ETHTOOL_OFF: [u32; 4] = [
    0x1f, /* STSO */
    0x24, /* SGSO */
    0x2c, /* SGRO */
    0x17, /* STXCSUM */
];

#[repr(C)]
struct EthtoolValue {
    cmd: u32,
    data: u32,
}

#[repr(C)]
struct IfReqData {
    name: [u8; 16],
    data: *mut EthtoolValue,
    _pad: [u8; 16],
}

fn offloads_off(ns: &Namespace, dev: &str) {
    let _inside = ns.enter().expect("enter the namespace");
    // SAFETY: a socket for the ioctl, closed below.
    let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM, 0) };
    assert!(fd >= 0, "a socket for SIOCETHTOOL");
    for cmd in ETHTOOL_OFF {
        let mut value = EthtoolValue { cmd, data: 0 };
        let mut req = IfReqData {
            name: [0; 16],
            data: &mut value,
            _pad: [0; 16],
        };
        req.name[..dev.len()].copy_from_slice(dev.as_bytes());
        // SAFETY: SIOCETHTOOL with a struct ifreq whose data points at a live ethtool_value.
        let r = unsafe { libc::ioctl(fd, SIOCETHTOOL as _, &mut req as *mut IfReqData) };
        assert!(
            r == 0,
            "ethtool command {cmd:#x} on {dev}: {}",
            std::io::Error::last_os_error()
        );
    }
    // SAFETY: closing the socket opened above.
    unsafe { libc::close(fd) };
}

fn in_ns(ns: &Namespace, args: &[&str]) -> String {
    let out = Command::new("ip")
        .args(["netns", "exec", ns.name()])
        .args(args)
        .output()
        .expect("ip netns exec runs");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The three namespaces: sender (snd0) - (mbw) middlebox (mbm) - (rcv0) receiver.
struct Bed {
    snd: Namespace,
    mb: Namespace,
    rcv: Namespace,
}

fn bed(tag: &str) -> Bed {
    let name = |role: &str| format!("snlbs-{}-{tag}-{role}", std::process::id());
    let b = Bed {
        snd: Namespace::create(name("snd")).expect("sender namespace"),
        mb: Namespace::create(name("mb")).expect("middlebox namespace"),
        rcv: Namespace::create(name("rcv")).expect("receiver namespace"),
    };
    for ns in [&b.snd, &b.mb, &b.rcv] {
        for key in [
            "net.ipv6.conf.all.disable_ipv6",
            "net.ipv6.conf.default.disable_ipv6",
        ] {
            ns.set_sysctl(key, "1").expect("IPv6 off");
        }
    }
    let (s, m, r) = (b.snd.name(), b.mb.name(), b.rcv.name());
    netns::ip(&[
        "link", "add", "snd0", "netns", s, "type", "veth", "peer", "name", "mbw", "netns", m,
    ])
    .expect("the wired veth pair");
    netns::ip(&[
        "link", "add", "rcv0", "netns", r, "type", "veth", "peer", "name", "mbm", "netns", m,
    ])
    .expect("the wireless veth pair");
    b.snd
        .ip(&["addr", "add", "10.77.0.1/24", "dev", "snd0"])
        .expect("sender address");
    b.rcv
        .ip(&["addr", "add", "10.77.0.2/24", "dev", "rcv0"])
        .expect("receiver address");
    offloads_off(&b.snd, "snd0");
    offloads_off(&b.rcv, "rcv0");
    for (ns, dev) in [
        (&b.snd, "snd0"),
        (&b.mb, "mbw"),
        (&b.mb, "mbm"),
        (&b.rcv, "rcv0"),
    ] {
        ns.ip(&["link", "set", dev, "up"]).expect("link up");
    }
    // the paper profile's sender: Reno without SACK (loss recovery by duplicate ACKs)
    for (key, v) in [
        ("net.ipv4.tcp_sack", "0"),
        ("net.ipv4.tcp_dsack", "0"),
        ("net.ipv4.tcp_recovery", "0"),
    ] {
        b.snd.set_sysctl(key, v).expect("a sender sysctl");
    }
    b
}

/// Each interface's promiscuity count in `ip -d link show`'s output (the carrier state of a
/// veth whose peer just came up may differ, and is not the command's).
fn promiscuity(links: &str) -> Vec<String> {
    let words: Vec<&str> = links.split_whitespace().collect();
    words
        .windows(2)
        .filter(|w| w[0] == "promiscuity")
        .map(|w| w[1].to_string())
        .collect()
}

/// The command running, killed if the test fails before it stops it.
struct Running(Option<std::process::Child>);

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(c) = self.0.as_mut() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// The wireless side's radio on the middlebox's wireless-side veth: 10 Mb/s (`tbf`, its queue
/// longer than the receiver's window, so that it never overflows) and 1% of the frames lost at
/// random, each independently (issue 52's setting). The loss is `tc netem loss 1%` where the
/// kernel has netem; where it has not (this machine's kernel has tbf, htb, the fifos, clsact and
/// the bpf classifier built in, and no netem, u32, matchall or gact), a classic BPF program on
/// clsact's egress hook drops it: `ld rand` (`SKF_AD_RANDOM`, linux/filter.h, a fresh
/// `get_random_u32()` per packet) and, at or above 99% of 2^32, `TC_ACT_SHOT`.
fn radio(ns: &Namespace, dev: &str) {
    in_ns(
        ns,
        &[
            "tc", "qdisc", "add", "dev", dev, "root", "handle", "1:", "tbf", "rate", "10mbit",
            "burst", "1540", "limit", "200000",
        ],
    );
    let netem = Command::new("ip")
        .args([
            "netns",
            "exec",
            ns.name(),
            "tc",
            "qdisc",
            "add",
            "dev",
            dev,
            "parent",
            "1:1",
        ])
        .args(["handle", "10:", "netem", "loss", "1%"])
        .output()
        .expect("tc runs");
    if netem.status.success() {
        return;
    }
    // 0.99 * 2^32: a random u32 at or above it is 1% of them
    let threshold = (0.99 * 4_294_967_296.0_f64) as u32;
    // ld [SKF_AD_OFF + SKF_AD_RANDOM]; jge #threshold, drop, pass; drop: ret #TC_ACT_SHOT; pass: ret #TC_ACT_OK
    let program = format!("4,32 0 0 4294963256,53 0 1 {threshold},6 0 0 2,6 0 0 0");
    in_ns(ns, &["tc", "qdisc", "add", "dev", dev, "clsact"]);
    in_ns(
        ns,
        &[
            "tc", "filter", "add", "dev", dev, "egress", "bpf", "da", "bytecode", &program,
        ],
    );
}

/// A UDP datagram from the sender echoed by the receiver, both unchanged.
fn udp_echo(b: &Bed) {
    let rx = {
        let _in = b.rcv.enter().expect("enter");
        UdpSocket::bind(SocketAddrV4::new(RECEIVER, 7007)).expect("bind")
    };
    let tx = {
        let _in = b.snd.enter().expect("enter");
        UdpSocket::bind(SocketAddrV4::new(SENDER, 0)).expect("bind")
    };
    for s in [&rx, &tx] {
        s.set_read_timeout(Some(Duration::from_secs(5)))
            .expect("timeout");
    }
    let payload: Vec<u8> = (0..1000u32).map(|i| (i * 7) as u8).collect();
    let mut buf = [0u8; 2048];
    let mut got = None;
    // netem may drop a try (the loss is on the wireless side's every frame, UDP too)
    for _ in 0..10 {
        tx.send_to(&payload, SocketAddrV4::new(RECEIVER, 7007))
            .expect("send");
        if let Ok((n, from)) = rx.recv_from(&mut buf) {
            assert_eq!(&buf[..n], &payload[..], "the datagram arrives unchanged");
            rx.send_to(&buf[..n], from).expect("echo");
            if let Ok(n) = tx.recv(&mut buf) {
                got = Some(buf[..n].to_vec());
                break;
            }
        }
    }
    assert_eq!(
        got.as_deref(),
        Some(&payload[..]),
        "the echo arrives unchanged"
    );
}

/// An ICMP echo request from the sender answered by the receiver's kernel, its data unchanged
/// (a raw ICMP socket: what `ping` sends).
fn icmp_echo(b: &Bed) {
    let fd = {
        let _in = b.snd.enter().expect("enter");
        // SAFETY: a raw ICMP socket, closed below.
        unsafe { libc::socket(libc::AF_INET, libc::SOCK_RAW, libc::IPPROTO_ICMP) }
    };
    assert!(
        fd >= 0,
        "a raw ICMP socket: {}",
        std::io::Error::last_os_error()
    );
    let timeout = libc::timeval {
        tv_sec: 1,
        tv_usec: 0,
    };
    // SAFETY: a valid timeval for SO_RCVTIMEO.
    unsafe {
        libc::setsockopt(
            fd,
            libc::SOL_SOCKET,
            libc::SO_RCVTIMEO,
            (&timeout as *const libc::timeval).cast(),
            std::mem::size_of::<libc::timeval>() as libc::socklen_t,
        )
    };
    let data: Vec<u8> = (0..56u8).collect();
    let mut req = vec![8u8, 0, 0, 0, 0x51, 0x7b, 0, 1];
    req.extend(&data);
    let sum = req
        .chunks(2)
        .map(|c| u32::from(u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)])))
        .sum::<u32>();
    let sum = !(((sum & 0xffff) + (sum >> 16)) as u16);
    req[2..4].copy_from_slice(&sum.to_be_bytes());
    let to = libc::sockaddr_in {
        sin_family: libc::AF_INET as libc::sa_family_t,
        sin_port: 0,
        sin_addr: libc::in_addr {
            s_addr: u32::from(RECEIVER).to_be(),
        },
        sin_zero: [0; 8],
    };
    let mut answered = false;
    for _ in 0..5 {
        // SAFETY: req and to are valid for the lengths passed.
        unsafe {
            libc::sendto(
                fd,
                req.as_ptr().cast(),
                req.len(),
                0,
                (&to as *const libc::sockaddr_in).cast(),
                std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
            )
        };
        let mut buf = [0u8; 1500];
        // SAFETY: buf is valid for its length.
        let n = unsafe { libc::recv(fd, buf.as_mut_ptr().cast(), buf.len(), 0) };
        if n >= 28 {
            let icmp = &buf[20..n as usize];
            if icmp[0] == 0 && icmp[4..6] == [0x51, 0x7b] {
                assert_eq!(&icmp[8..], &data[..], "the echo's data unchanged");
                answered = true;
                break;
            }
        }
    }
    // SAFETY: closing the socket opened above.
    unsafe { libc::close(fd) };
    assert!(answered, "the ping is answered through the middlebox");
}

/// What one transfer through the command showed.
struct Through {
    /// The counters the command printed at the stop, and its stderr.
    out: String,
    err: String,
    seconds: f64,
    sender_retransmissions: u32,
}

/// Starts the command between the middlebox's veths with `agent`, sends a ping and a UDP
/// datagram, carries a 2 MB Reno transfer (checked intact), asks for the status with SIGUSR1 and
/// stops the command with SIGINT; checks that the middlebox's qdiscs and interfaces are as they
/// were.
fn through(tag: &str, agent: &str, pcap: Option<&std::path::Path>) -> Through {
    through_with(tag, agent, pcap, Some(Radio), (2 << 20, 64 * 1024))
}

/// The wireless side's radio ([`radio`]).
struct Radio;

/// [`through`] with the radio or without, `(transfer, receiver's buffer)`.
fn through_with(
    tag: &str,
    agent: &str,
    pcap: Option<&std::path::Path>,
    with_radio: Option<Radio>,
    (transfer, buffer): (u64, u32),
) -> Through {
    let b = bed(tag);
    if with_radio.is_some() {
        radio(&b.mb, "mbm");
    }
    let qdiscs_before = in_ns(&b.mb, &["tc", "qdisc", "show"]);
    let links_before = in_ns(&b.mb, &["ip", "-d", "link", "show"]);
    let mut cmd = Command::new("ip");
    cmd.args(["netns", "exec", b.mb.name(), env!("CARGO_BIN_EXE_snooplab")])
        .args([
            "base-station",
            "--wired",
            "mbw",
            "--wireless",
            "mbm",
            "--agent",
            agent,
        ]);
    if let Some(dir) = pcap {
        cmd.arg("--pcap").arg(dir);
    }
    let child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("snooplab base-station starts");
    let mut child = Running(Some(child));
    std::thread::sleep(Duration::from_millis(500));
    let promisc = in_ns(&b.mb, &["ip", "-d", "link", "show", "mbm"]);
    assert!(
        promisc.contains("promiscuity 1"),
        "promiscuous while it runs: {promisc}"
    );

    icmp_echo(&b);
    udp_echo(&b);
    let stop = AtomicBool::new(false);
    let received = AtomicU64::new(0);
    let to = SocketAddrV4::new(RECEIVER, 5001);
    let rx = Receiver::listen(&b.rcv, to, buffer).expect("the receiver listens");
    let (rx, tx) = std::thread::scope(|s| {
        let r = s.spawn(|| rx.run(&stop, &received));
        let t = endpoint::send(
            &b.snd,
            (to, None),
            CongestionControl::Reno,
            transfer,
            7,
            &stop,
        );
        if t.is_err() {
            stop.store(true, Ordering::SeqCst);
        }
        (r.join().expect("the receiver thread"), t)
    });
    let (rx, tx) = (rx.expect("the receiver"), tx.expect("the sender"));
    assert_eq!(
        (rx.bytes, rx.digest),
        (transfer, tx.digest),
        "every byte intact"
    );

    let mut child = child.0.take().expect("the child");
    let pid = child.id() as i32;
    // SAFETY: signalling the child this test started (ip netns exec execs snooplab in place).
    unsafe { libc::kill(pid, libc::SIGUSR1) };
    std::thread::sleep(Duration::from_millis(300));
    // SAFETY: as above.
    unsafe { libc::kill(pid, libc::SIGINT) };
    let status = child.wait().expect("snooplab base-station ends");
    let (mut out, mut err) = (String::new(), String::new());
    child.stdout.take().map(|mut o| o.read_to_string(&mut out));
    child.stderr.take().map(|mut e| e.read_to_string(&mut err));
    eprintln!("{agent}: stdout: {out}stderr: {err}");
    assert!(status.success(), "a clean stop on SIGINT: {status}\n{err}");
    assert!(
        err.lines()
            .any(|l| l.starts_with("base-station: ") && l.contains("agent ")),
        "a status line on SIGUSR1"
    );
    assert_eq!(
        in_ns(&b.mb, &["tc", "qdisc", "show"]),
        qdiscs_before,
        "qdiscs as they were"
    );
    let after = in_ns(&b.mb, &["ip", "-d", "link", "show"]);
    assert_eq!(
        promiscuity(&after),
        promiscuity(&links_before),
        "interfaces as they were"
    );
    Through {
        out,
        err,
        seconds: tx.finished.duration_since(tx.started).as_secs_f64(),
        sender_retransmissions: tx.tcp_info.total_retrans,
    }
}

fn counter(out: &str, name: &str) -> Option<u64> {
    out.split_whitespace()
        .find_map(|w| w.strip_prefix(name)?.strip_prefix('='))
        .and_then(|v| v.parse().ok())
}

#[test]
#[ignore = "live: needs root and ip netns (scripts/test-all runs it where they exist)"]
fn a_transfer_crosses_snoop_between_two_veths_intact_with_local_retransmissions() {
    require_live("a_transfer_crosses_snoop_between_two_veths_intact_with_local_retransmissions");
    let dir = std::env::temp_dir().join(format!("snlbs-{}-pcap", std::process::id()));
    let t = through("snoop", "snoop", Some(&dir));
    let local = counter(&t.out, "local_retransmissions").expect("snoop's counters at the stop");
    assert!(local > 0, "snoop resent lost segments locally: {}", t.out);
    // both captures hold the transfer's frames (2 MB is about 1,500 data frames each way)
    for name in ["wired.pcap", "wireless.pcap"] {
        let file = std::fs::read(dir.join(name)).expect("the capture");
        let frames = snooplab_sim::capture::read_packets(&file);
        assert!(frames.len() > 1500, "{name}: {} frames", frames.len());
    }
    assert!(t.err.contains("wired.pcap"), "{}", t.err);
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!(
        "snoop: {:.2} s, sender retransmissions {}, local {local}",
        t.seconds, t.sender_retransmissions
    );
}

/// The same with the router (`e2e`): the sender recovers every loss itself.
#[test]
#[ignore = "live: needs root and ip netns (scripts/test-all runs it where they exist)"]
fn without_the_agent_the_sender_recovers_every_loss_itself() {
    require_live("without_the_agent_the_sender_recovers_every_loss_itself");
    let t = through("e2e", "e2e", None);
    assert_eq!(counter(&t.out, "local_retransmissions"), None, "{}", t.out);
    assert!(
        t.sender_retransmissions > 0,
        "the sender retransmitted: {}",
        t.out
    );
    eprintln!(
        "e2e: {:.2} s, sender retransmissions {}",
        t.seconds, t.sender_retransmissions
    );
}

/// The bridge's own speed, the loss off: 256 MB through snoop with a 4 MB window, the rate
/// printed (no assertion on time: a measurement for docs/live.md).
#[test]
#[ignore = "live: needs root and ip netns (scripts/test-all runs it where they exist)"]
fn throughput_through_snoop_with_the_loss_off() {
    require_live("throughput_through_snoop_with_the_loss_off");
    let transfer = 256 << 20;
    let t = through_with("rate", "snoop", None, None, (transfer, 4 << 20));
    eprintln!(
        "snoop, no loss: {:.0} Mb/s ({:.2} s)",
        transfer as f64 * 8.0 / t.seconds / 1e6,
        t.seconds
    );
}

/// One `error:` line, exit code 2, before anything is opened: an interface that does not exist,
/// the same interface twice, an agent that cannot run between two interfaces.
#[test]
fn bad_interfaces_and_agents_are_refused_in_one_line() {
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_snooplab"))
            .arg("base-station")
            .args(args)
            .output()
            .expect("the snooplab binary runs")
    };
    for (args, needle) in [
        (
            &["--wired", "snl-nope0", "--wireless", "lo"][..],
            "no interface named 'snl-nope0'",
        ),
        (
            &["--wired", "lo", "--wireless", "lo"][..],
            "needs two interfaces",
        ),
        (
            &["--wired", "lo", "--wireless", "x", "--agent", "split"][..],
            "splits connections",
        ),
        (
            &["--wired", "lo", "--wireless", "x", "--agent", "nope"][..],
            "unknown agent 'nope'",
        ),
    ] {
        let o = run(args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("error:")).collect();
        assert_eq!(errors.len(), 1, "{err}");
        assert!(errors[0].contains(needle), "{needle}: {err}");
    }
}

/// One `error:` line, exit code 2, for an interface that is down and for a user who is not root
/// (interfaces that exist, in a namespace of the test's own).
#[test]
#[ignore = "live: needs root and ip netns (scripts/test-all runs it where they exist)"]
fn an_interface_down_and_a_user_not_root_are_refused_in_one_line() {
    use std::os::unix::process::CommandExt;
    require_live("an_interface_down_and_a_user_not_root_are_refused_in_one_line");
    let ns = Namespace::create(format!("snlbs-{}-refuse", std::process::id())).expect("namespace");
    ns.ip(&["link", "add", "w0", "type", "veth", "peer", "name", "m0"])
        .expect("a veth pair");
    let run = |uid: Option<u32>| {
        // a child forked from this thread starts in the namespace the thread is in
        let _in = ns.enter().expect("enter");
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_snooplab"));
        cmd.args(["base-station", "--wired", "w0", "--wireless", "m0"]);
        if let Some(uid) = uid {
            cmd.uid(uid).gid(uid);
        }
        cmd.output().expect("the snooplab binary runs")
    };
    let one_error = |o: &std::process::Output, needle: &str| {
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("error:")).collect();
        assert_eq!(errors.len(), 1, "{err}");
        assert!(errors[0].contains(needle), "{needle}: {err}");
    };
    one_error(&run(None), "is down");
    one_error(&run(Some(65534)), "needs root");
}
