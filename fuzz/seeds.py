#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpus from the project's own captures and examples.

Usage: seeds.py SNOOPLAB_BINARY REPO_ROOT OUT_DIR

Runs a few short simulations with `--pcap` and `--trace`, reads the raw IPv4 packets out of the
captures (pcap, linktype 228, nanosecond timestamps), and writes, per target, a few dozen inputs at
most in the byte layout its harness decodes (fuzz/src/lib.rs and fuzz/fuzz_targets/*.rs):
- wire: single captured packets, one of each kind (flags, options, payload or none);
- agent_*: the base station's inputs of a run in order, each packet from the port it arrived on
  (captured on the wired link from the fixed host, on the wireless link from the mobile host), with
  the time steps between them;
- tcp: a passive open, in-order and out-of-order data, a FIN and timeouts;
- scenario, channel_trace, trace_csv: examples/*.toml, examples/*.trace and the runs' traces;
- size, duration: a few values of each form.
Standard library only. Nothing here is random: the same checkout writes the same seeds.
"""

import os
import struct
import subprocess
import sys
import tempfile

MOBILE = bytes([10, 0, 1, 2])  # the mobile host of paper 000's testbed, 10.0.1.2

RUNS = [
    # (protocol, direction, extra arguments)
    ("ll-smart-tcp-aware", "down", []),
    ("ll-tcp-aware", "down", []),
    ("e2e-ietf-sack", "down", []),
    ("e2e-eln", "down", []),
    ("bs-eln", "up", []),
    ("bs-nack", "up", []),
    ("split", "down", []),
]


def pcap_packets(path):
    """(time in ns, packet bytes) of a nanosecond pcap of raw IPv4."""
    data = open(path, "rb").read()
    magic = struct.unpack("<I", data[:4])[0]
    nanos = magic == 0xA1B23C4D
    out = []
    at = 24
    while at + 16 <= len(data):
        sec, frac, incl, _orig = struct.unpack("<IIII", data[at : at + 16])
        pkt = data[at + 16 : at + 16 + incl]
        at += 16 + incl
        out.append((sec * 1_000_000_000 + (frac if nanos else frac * 1000), pkt))
    return out


def le16(n):
    return struct.pack("<H", n & 0xFFFF)


def le32(n):
    return struct.pack("<I", n & 0xFFFFFFFF)


def raw_packet(pkt):
    """`packet_bytes`: kind 0 (raw bytes), a 16-bit length below 1600, the bytes."""
    pkt = pkt[:1599]
    return bytes([0]) + le16(len(pkt)) + pkt


def structured_packet(pkt, up):
    """`packet_bytes` kind 2: a captured packet's header as `structured_segment` reads it (the
    first connection, full sequence numbers, its flags, window, id, length and options), about 20
    bytes instead of the packet's 1440: the fuzzer's inputs stay small and fast."""
    ihl = (pkt[0] & 15) * 4
    tcp = pkt[ihl:]
    if len(tcp) < 20:
        return raw_packet(pkt)
    seq, ack = struct.unpack(">II", tcp[4:12])
    doff = (tcp[12] >> 4) * 4
    window, = struct.unpack(">H", tcp[14:16])
    ip_id, = struct.unpack(">H", pkt[4:6])
    total, = struct.unpack(">H", pkt[2:4])
    length = max(0, total - ihl - doff)
    mss = smart = queue = None
    sacks = []
    opts = tcp[20:doff]
    i = 0
    while i < len(opts):
        kind = opts[i]
        if kind == 0:
            break
        if kind == 1:
            i += 1
            continue
        if i + 1 >= len(opts) or opts[i + 1] < 2:
            break
        n = opts[i + 1]
        body = opts[i + 2 : i + n]
        if kind == 2 and len(body) == 2:
            mss = struct.unpack(">H", body)[0]
        elif kind == 5:
            for j in range(0, len(body) - 7, 8):
                a, b = struct.unpack(">II", body[j : j + 8])
                sacks.append((a, (b - a) & 0xFFFF))
        elif kind == 253 and len(body) == 6 and body[:2] == b"SM":
            smart = struct.unpack(">I", body[2:6])[0]
        elif kind == 253 and len(body) == 4 and body[:2] == b"QL":
            queue = body[2:4]
        i += n
    out = bytes([2, 0, 1 if up else 0, tcp[13]])
    out += bytes([2]) + le16(length) if length <= 1460 else bytes([3]) + le16(length)
    out += bytes([0]) + le32(seq) + bytes([0]) + le32(ack) + le16(window) + le16(ip_id)
    flags = (1 if mss is not None else 0) | (2 if tcp[12] & 0x08 else 0)
    flags |= (4 if smart is not None else 0) | (8 if queue is not None else 0)
    flags |= min(len(sacks), 3) << 4
    out += bytes([flags])
    if mss is not None:
        out += le16(mss)
    if smart is not None:
        out += bytes([0]) + le32(smart)
    if queue is not None:
        out += queue
    for a, n in sacks[:3]:
        out += bytes([0]) + le32(a) + le16(max(n, 1))
    return out


def time_step(ns):
    """Op 4 (advance time) with `time_step`'s encoding: n units, unit 1 = microseconds."""
    us = min(ns // 1000, 0xFFFF)
    return bytes([4]) + le16(us) + bytes([1])


def agent_ops(events, packet_prefix=b""):
    """Ops of `drive_agent`: time steps and packets (op 0, port byte 0 wired / 1 wireless)."""
    out = b""
    last = None
    for t, port, pkt in events:
        if last is not None and t > last:
            out += time_step(t - last)
        last = t
        out += bytes([0, port]) + packet_prefix + structured_packet(pkt, port == 1)
    return out


def base_station_inputs(capdir):
    """What reached the base station, in time order: (time, port, bytes)."""
    ev = []
    for t, p in pcap_packets(os.path.join(capdir, "wired.pcap")):
        if len(p) >= 20 and p[12:16] != MOBILE:
            ev.append((t, 0, p))
    for t, p in pcap_packets(os.path.join(capdir, "wireless.pcap")):
        if len(p) >= 20 and p[12:16] == MOBILE:
            ev.append((t, 1, p))
    ev.sort(key=lambda e: e[0])
    return ev


def packet_kind(p):
    """What tells packets apart for the wire seeds: flags, header lengths, payload or not."""
    ihl = (p[0] & 15) * 4
    tcp = p[ihl:]
    if len(tcp) < 20:
        return ("short", len(p))
    doff = (tcp[12] >> 4) * 4
    return (tcp[13], doff, tcp[12] & 0x0F, len(p) > ihl + doff)


def write(dirpath, name, data):
    os.makedirs(dirpath, exist_ok=True)
    with open(os.path.join(dirpath, name), "wb") as f:
        f.write(data)


def tcp_seed(sel, data_segments, fin):
    """A `tcp` input: a passive sink (sel bit 0x40, role 1) with Reno, the peer's SYN, data
    segments at the given offsets, maybe a FIN, and timeouts between them."""
    peer_iss = 1000
    out = bytes([sel]) + le16(0) + bytes([0, 0]) + le32(1) + le32(peer_iss)

    def seg(off, flags, length):
        # op 0; seq: kind 2 (base + u16), offset; ack: kind 2, offset 1; flags; window; len; opts
        return (
            bytes([0, 2]) + le16(off) + bytes([2]) + le16(1) + bytes([flags]) + le16(32768)
            + le16(length) + bytes([0])
        )

    out += seg(0, 0x02, 0)  # SYN
    out += bytes([6])  # the connection's next timer
    out += seg(1, 0x10, 0)  # the ACK of the SYN-ACK
    for off in data_segments:
        out += seg(1 + off, 0x18, 1000)
        out += time_step(50_000_000)
    if fin:
        end = 1 + (max(data_segments) + 1000 if data_segments else 0)
        out += seg(end, 0x11, 0)
    out += bytes([6, 6])
    return out


def main():
    binary, root, out = sys.argv[1], sys.argv[2], sys.argv[3]
    work = tempfile.mkdtemp(prefix="snooplab-seeds-")
    captures = []
    for i, (proto, direction, extra) in enumerate(RUNS):
        cap = os.path.join(work, f"cap{i}")
        trace = os.path.join(work, f"trace{i}")
        cmd = [binary, "run", "--protocol", proto, "--direction", direction, "--transfer", "48k",
               "--error-every", "6k", "--seed", str(i + 1), "--pcap", cap, "--trace", trace] + extra
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        captures.append((proto, cap, trace))

    # wire: one packet of each kind, from every capture
    kinds = {}
    for _proto, cap, _trace in captures:
        for name in ("wired.pcap", "wireless.pcap"):
            for _t, p in pcap_packets(os.path.join(cap, name)):
                kinds.setdefault(packet_kind(p), p)
    for i, p in enumerate(list(kinds.values())[:40]):
        write(os.path.join(out, "wire"), f"capture-{i:02}", p)

    # agents: each run's base-station inputs, whole and its first quarter
    for proto, cap, _trace in captures:
        ev = base_station_inputs(cap)
        for part, evs in (("all", ev), ("start", ev[: max(1, len(ev) // 4)])):
            ops = agent_ops(evs)
            sels = ((0x01 if part == "all" else 0x80, "agent_snoop"), (0x00, "agent_eln"),
                    (0x00, "agent_nack"), (0x00, "agent_split"))
            for sel, target in sels:
                write(os.path.join(out, target), f"{proto}-{part}-{sel:02x}", bytes([sel]) + ops)
            # the handoff target: kind 2 before each packet (a plain TCP packet)
            hops = agent_ops(evs, packet_prefix=bytes([2]))
            for sel in (0x50,) if part == "all" else (0x80,):
                write(os.path.join(out, "agent_handoff"), f"{proto}-{part}-{sel:02x}",
                      bytes([sel]) + hops)

    # tcp
    write(os.path.join(out, "tcp"), "in-order", tcp_seed(0x40, [0, 1000, 2000, 3000], True))
    write(os.path.join(out, "tcp"), "hole", tcp_seed(0x40, [0, 2000, 3000, 1000], True))
    write(os.path.join(out, "tcp"), "no-fin", tcp_seed(0x44, [0, 1000], False))
    write(os.path.join(out, "tcp"), "active", bytes([0x00]) + le16(4000) + bytes([5, 0])
          + le32(1) + le32(5000) + bytes([6, 6, 4, 0x10, 0x00, 3]))

    # scenario files and channel traces: the examples
    ex = os.path.join(root, "examples")
    for name in sorted(os.listdir(ex)):
        path = os.path.join(ex, name)
        if name.endswith(".toml"):
            write(os.path.join(out, "scenario"), name, open(path, "rb").read())
        elif name.endswith(".trace"):
            write(os.path.join(out, "channel_trace"), name, open(path, "rb").read()[:4096])
    write(os.path.join(out, "channel_trace"), "frames", b"frames repeat\n0100 1\n..x\n")
    write(os.path.join(out, "channel_trace"), "time", b"# bad periods\ntime\n0.5 0.52\n1 1.000001\n")

    # trace CSVs: the runs' traces, files joined by zero bytes in the harness's order
    order = ["nodes.csv", "segments.csv", "acks.csv", "cwnd.csv", "bs_cache.csv",
             "suppressed_dupacks.csv"]
    for proto, _cap, trace in captures[:4]:
        parts = [open(os.path.join(trace, n), "rb").read()[:1500] for n in order]
        write(os.path.join(out, "trace_csv"), proto, b"\0".join(parts))
        handoffs = b"time_s,mobile,from,to\n1.000000000,mobile,base-station,base-station\n"
        write(os.path.join(out, "trace_csv"), proto + "-handoffs", b"\0".join(parts + [handoffs]))

    for i, s in enumerate(["8192", "8k", "64KiB", "1.5M", "0.25k", "1400.0", "2G", "1.1k", "-1",
                           "99999999999999999999G"]):
        write(os.path.join(out, "size"), f"size-{i:02}", s.encode())
    for i, s in enumerate(["0", "250us", "2ms", "1.5ms", "1s", "1.250us", "12", "0.5",
                           "1.000000001", "18446744073.709551615"]):
        write(os.path.join(out, "duration"), f"duration-{i:02}", s.encode())


if __name__ == "__main__":
    main()
