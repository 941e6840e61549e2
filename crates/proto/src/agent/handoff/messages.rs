//! The handoff protocol's messages (paper 002 sections 4 and 6). The paper gives their content, not
//! their format: ours are UDP datagrams to [`CONTROL_PORT`], sized by what they carry.

use crate::time::Time;

/// The limited broadcast address: beacons go to every station of a cell.
pub const BROADCAST: u32 = 0xffff_ffff;

/// UDP port of the handoff protocol's datagrams (our choice; the paper names none).
pub const CONTROL_PORT: u16 = 4344;

/// IPv4 and UDP headers of a control datagram.
const UDP_IP_HEADER: u32 = 28;

/// The outer IPv4 header of a packet the home agent encapsulated (IP-in-IP, RFC 2003: 20 bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tunnel {
    pub src: u32,
    pub dst: u32,
}

/// Bytes of the outer header.
pub const TUNNEL_HEADER_BYTES: u32 = 20;

/// A message of the handoff protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mobility {
    /// A base station's beacon, broadcast once per second (section 6: "The beacon message contains
    /// the IP address of the base station and a timestamp"). `seq` counts the beacons since the
    /// base station started (our addition): a mobile host sees it go back when the base station
    /// restarted, and sets it up again.
    Beacon {
        bs: u32,
        sent: Time,
        seq: u32,
    },
    /// Mobile host to a base station: forward my packets from now on (become the primary). Carries
    /// the IP ids of the last packets the mobile host received, oldest first (section 6: the last
    /// three), `count` of them valid.
    Forward {
        mh: u32,
        last_ids: [u16; 3],
        count: u8,
    },
    /// Mobile host to a base station: buffer my packets (join my group if not a member).
    Buffer {
        mh: u32,
    },
    /// Mobile host to a base station: leave my group.
    Leave {
        mh: u32,
    },
    /// Base station to the mobile host: the request (`Forward`, `Buffer` or `Leave`) was carried
    /// out. The paper does not describe one; without it a lost request would leave no base station
    /// forwarding, so the mobile host repeats a request until it is confirmed.
    Confirm {
        mh: u32,
        request: Request,
    },
    /// Base station to the home agent: join or leave the mobile host's multicast group (standing in
    /// for IGMP and multicast routing, which the paper uses unchanged).
    Join {
        mh: u32,
        bs: u32,
    },
    Prune {
        mh: u32,
        bs: u32,
    },
    /// Base station to the home agent in a hard handoff: tunnel the mobile host's packets to me
    /// alone from now on (Mobile IP's registration through the foreign agent).
    Register {
        mh: u32,
        bs: u32,
    },
}

/// Which request a [`Mobility::Confirm`] answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Request {
    Forward,
    Buffer,
    Leave,
}

impl Mobility {
    /// Bytes of the datagram's payload ([`Mobility::encode`]'s length).
    pub fn payload_bytes(&self) -> u32 {
        match self {
            // type, version, address, 8-byte timestamp
            Mobility::Beacon { .. } => 2 + 4 + 8 + 4,
            // type, count, address, three 16-bit ids
            Mobility::Forward { .. } => 2 + 4 + 6,
            Mobility::Buffer { .. } | Mobility::Leave { .. } => 2 + 4,
            Mobility::Confirm { .. } => 2 + 4 + 1,
            Mobility::Join { .. } | Mobility::Prune { .. } | Mobility::Register { .. } => 2 + 4 + 4,
        }
    }

    /// Bytes at the IP layer.
    pub fn ip_len(&self) -> u32 {
        UDP_IP_HEADER + self.payload_bytes()
    }

    /// A short name, for traces.
    pub fn name(&self) -> &'static str {
        match self {
            Mobility::Beacon { .. } => "beacon",
            Mobility::Forward { .. } => "forward",
            Mobility::Buffer { .. } => "buffer",
            Mobility::Leave { .. } => "leave",
            Mobility::Confirm { .. } => "confirm",
            Mobility::Join { .. } => "join",
            Mobility::Prune { .. } => "prune",
            Mobility::Register { .. } => "register",
        }
    }

    /// The datagram's payload as sent: a type byte, a version byte, then the fields in network
    /// byte order (addresses, the timestamp in nanoseconds, the count and the three ids).
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.payload_bytes() as usize);
        let kind = match self {
            Mobility::Beacon { .. } => 1,
            Mobility::Forward { .. } => 2,
            Mobility::Buffer { .. } => 3,
            Mobility::Leave { .. } => 4,
            Mobility::Confirm { .. } => 5,
            Mobility::Join { .. } => 6,
            Mobility::Prune { .. } => 7,
            Mobility::Register { .. } => 8,
        };
        match *self {
            Mobility::Beacon { bs, sent, seq } => {
                out.extend_from_slice(&[kind, 1]);
                out.extend_from_slice(&bs.to_be_bytes());
                out.extend_from_slice(&sent.to_be_bytes());
                out.extend_from_slice(&seq.to_be_bytes());
            }
            Mobility::Forward {
                mh,
                last_ids,
                count,
            } => {
                out.extend_from_slice(&[kind, count.min(3)]);
                out.extend_from_slice(&mh.to_be_bytes());
                for id in last_ids {
                    out.extend_from_slice(&id.to_be_bytes());
                }
            }
            Mobility::Buffer { mh } | Mobility::Leave { mh } => {
                out.extend_from_slice(&[kind, 1]);
                out.extend_from_slice(&mh.to_be_bytes());
            }
            Mobility::Confirm { mh, request } => {
                out.extend_from_slice(&[kind, 1]);
                out.extend_from_slice(&mh.to_be_bytes());
                out.push(request as u8);
            }
            Mobility::Join { mh, bs }
            | Mobility::Prune { mh, bs }
            | Mobility::Register { mh, bs } => {
                out.extend_from_slice(&[kind, 1]);
                out.extend_from_slice(&mh.to_be_bytes());
                out.extend_from_slice(&bs.to_be_bytes());
            }
        }
        out
    }

    /// The IP ids the mobile host reported in a `Forward`.
    pub fn reported_ids(&self) -> &[u16] {
        match self {
            Mobility::Forward {
                last_ids, count, ..
            } => &last_ids[..usize::from(*count).min(3)],
            _ => &[],
        }
    }
}
