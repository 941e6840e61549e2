//! `snooplab base-station` (docs/live.md, "The base station as a middlebox"): the engine's
//! base-station agents between two real interfaces of the machine, one facing the wired side and
//! one the wireless side, as a transparent middlebox.
//!
//! **The mechanism: an `AF_PACKET` bridge** (`af_packet.rs`, `bridge.rs`). Each interface is read
//! and written raw by a packet socket; a frame read on one side is handed to the agent (IPv4/TCP)
//! or passed unchanged (everything else), and what the agent sends leaves on the side it names.
//! Why this and not routing with NFQUEUE or TPROXY:
//!
//! - The agents are written for two ports, `Port::Wired` and `Port::Wireless`, and a bridge has
//!   exactly those: the interface a frame came in on is its port. A router with NFQUEUE hands a
//!   verdict per packet (accept, drop, modified), not a place for packets the agent makes itself:
//!   snoop's local retransmissions would have to be injected through a raw socket besides, and
//!   their port inferred from routes.
//! - Transparent: the hosts keep their addresses, subnet and MAC addresses; nothing on either
//!   side is configured (a router needs the two sides in different subnets and the hosts' routes
//!   through it). TPROXY terminates connections in the box's own TCP, which is what a split
//!   connection wants and nothing else does (snoop must see and resend the hosts' own segments).
//! - A split connection needs no TPROXY either: the split agent answers each host with the
//!   other's addresses (as I-TCP does), so its relays' segments are ordinary frames between the
//!   two hosts, framed with the link-layer headers learned for them.
//! - It leaves the machine as it was: no address, route, iptables rule, qdisc or bridge device is
//!   made; the interfaces' promiscuous mode belongs to the sockets and ends with them.
//!
//! What it costs: every frame crosses user space (the kernel copies it into a ring shared with
//! the bridge, `ring.rs`, and the bridge's write copies it out; a batch per system call,
//! `batch.rs`), and the interfaces must hand over frames as they were on the wire (GRO and LRO
//! off: a merged super-frame is dropped and counted). The simulator's engine is not in this path: its network routes by address, and a
//! transparent bridge has no addresses to route by; the agents are the engine's own objects,
//! made by its factory (`agent_choice.rs`), driven through the same four calls. One model of the
//! simulator's is: a side may have an emulated link on its egress (`egress_link.rs`, the
//! simulator's wired link as a delay line, `--wired-delay`, and with its rate and channel as a
//! radio, `--wireless-rate`, `--wireless-error-every`), for kernels without netem.

pub mod af_packet;
pub mod agent_choice;
pub mod batch;
pub mod bridge;
pub mod device;
pub mod egress_link;
pub mod ethernet;
pub mod ring;
pub mod signals;
pub mod status;

#[cfg(test)]
mod bridge_tests;
