//! The bed `snooplab base-station` is tested on (tests/base_station.rs): three network namespaces
//! joined by two veth pairs stand in for a fixed host, the middlebox with its two NICs, and a
//! mobile host; the radio on the middlebox's wireless-side veth; a ping and a UDP echo through it;
//! and what the middlebox's interfaces look like, to compare before and after a run.

// shared by two test binaries (base_station.rs, base_station_delay.rs), each using a part
#![allow(dead_code)]

use std::net::{Ipv4Addr, SocketAddrV4, UdpSocket};
use std::process::Command;
use std::time::Duration;

use snooplab_live::netns::{self, Namespace};

pub const SENDER: Ipv4Addr = Ipv4Addr::new(10, 77, 0, 1);
pub const RECEIVER: Ipv4Addr = Ipv4Addr::new(10, 77, 0, 2);
/// The middlebox's two interfaces: wired side, wireless side.
pub const MIDDLEBOX_IFACES: [&str; 2] = ["mbw", "mbm"];
/// The command's words that put it between them.
pub const BETWEEN_THE_VETHS: [&str; 5] = ["base-station", "--wired", "mbw", "--wireless", "mbm"];

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

pub fn offloads_off(ns: &Namespace, dev: &str) {
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

pub fn in_ns(ns: &Namespace, args: &[&str]) -> String {
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
pub struct Bed {
    pub snd: Namespace,
    pub mb: Namespace,
    pub rcv: Namespace,
}

pub fn bed(tag: &str) -> Bed {
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

/// The command running, killed if the test fails before it stops it.
pub struct Running(pub Option<std::process::Child>);

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
pub fn radio(ns: &Namespace, dev: &str) {
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
pub fn udp_echo(b: &Bed) {
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
/// (a raw ICMP socket: what `ping` sends); the round trip of the echo answered, as `ping`
/// measures it (from the request's sending to the reply's arrival).
pub fn icmp_echo(b: &Bed) -> Duration {
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
    let mut answered = None;
    for _ in 0..5 {
        let sent = std::time::Instant::now();
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
                answered = Some(sent.elapsed());
                break;
            }
        }
    }
    // SAFETY: closing the socket opened above.
    unsafe { libc::close(fd) };
    answered.expect("the ping is answered through the middlebox")
}

/// The sender and the receiver as a live profile's hosts (`snooplab_live::LinuxProfile`): its
/// sysctls in both namespaces, and its route options (`rto_min`, `initcwnd`) on the sender's
/// route to the receiver. Congestion control is the sender's socket's (iperf3 `-C`).
pub fn hosts_as(b: &Bed, profile: snooplab_live::LinuxProfile) {
    for ns in [&b.snd, &b.rcv] {
        for (key, v) in profile.sysctls() {
            ns.set_sysctl(key, &v).expect("a profile sysctl");
        }
    }
    let rto_min = profile.default_rto_min_ms().map(|ms| format!("{ms}ms"));
    let initcwnd = profile.initcwnd().map(|n| n.to_string());
    let mut route = vec!["route", "replace", "10.77.0.2/32", "dev", "snd0"];
    if let Some(ms) = &rto_min {
        route.extend(["rto_min", ms]);
    }
    if let Some(n) = &initcwnd {
        route.extend(["initcwnd", n]);
    }
    b.snd.ip(&route).expect("the sender's route");
}

/// Everything of the middlebox's two interfaces that a run could change: `ip -d link` (state,
/// flags, promiscuity, MTU, queue), `ip addr`, `tc qdisc` and both hooks' `tc filter`s.
pub fn interfaces_snapshot(b: &Bed) -> String {
    let mut out = String::new();
    for dev in MIDDLEBOX_IFACES {
        for args in [
            &["ip", "-d", "link", "show", "dev", dev][..],
            &["ip", "addr", "show", "dev", dev],
            &["tc", "qdisc", "show", "dev", dev],
            &["tc", "filter", "show", "dev", dev, "ingress"],
            &["tc", "filter", "show", "dev", dev, "egress"],
        ] {
            out += &format!("$ {}\n{}", args.join(" "), in_ns(&b.mb, args));
        }
    }
    out
}

/// Waits (at most 5 s) until both of the middlebox's interfaces show their carrier (`LOWER_UP`):
/// a veth's carrier follows its peer's coming up through the kernel's linkwatch, up to a second
/// later (net/core/link_watch.c), and a snapshot taken before would differ from one after for
/// that alone.
pub fn wait_for_carriers(b: &Bed) {
    for _ in 0..50 {
        let up = MIDDLEBOX_IFACES
            .iter()
            .all(|dev| in_ns(&b.mb, &["ip", "link", "show", "dev", dev]).contains("LOWER_UP"));
        if up {
            return;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("the middlebox's veths never showed their carrier");
}

/// The namespaces this process made whose names start with `prefix` (`ip netns list`; other
/// tests and programs may make theirs meanwhile).
pub fn namespaces_named(prefix: &str) -> Vec<String> {
    let out = Command::new("ip")
        .args(["netns", "list"])
        .output()
        .expect("ip netns list runs");
    let mut names: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|n| n.starts_with(prefix))
        .map(str::to_string)
        .collect();
    names.sort();
    names
}
