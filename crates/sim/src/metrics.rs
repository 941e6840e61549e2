//! The result of one run (docs/outputs.md), as printed by `run --json`.

use std::collections::BTreeMap;

use serde::{Serialize, Serializer};

use snooplab_proto::tcp::TimeoutCauses;

use crate::invariants::InvariantReport;

/// A run's result. Serialized by hand over the derived form (`remote = "Self"` keeps that as
/// `RunResult::serialize`) so that `wireless_goodput_pct` is `null` where it is undefined; see
/// [`RunResult::wireless_goodput`].
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(remote = "Self")]
pub struct RunResult {
    pub protocol: String,
    pub env: String,
    pub buffer_bytes: u32,
    pub mss: u32,
    pub transfer_bytes: u64,
    pub error_every_bytes: u64,
    pub burst: u32,
    pub seed: u64,
    /// Transfer bytes * 8 / (last byte delivered - first data segment sent), Mb/s.
    pub throughput_mbps: f64,
    /// Transfer bytes / data payload bytes sent over the wireless link, retransmissions included, %.
    /// 0 here, `null` in JSON, when no data frame crossed a wireless link.
    pub wireless_goodput_pct: f64,
    /// Transfer bytes / data payload bytes the fixed host sent, %.
    pub wired_goodput_pct: f64,
    /// Retransmission-timer expirations at the sender.
    pub timeouts: u64,
    /// Fast retransmissions at the sender.
    pub fast_retransmits: u64,
    /// Seconds from the first data segment to the last byte delivered.
    pub duration_s: f64,
    /// Events the simulator processed.
    pub events: u64,
    /// Segments the sender retransmitted.
    pub sender_retransmitted_segments: u64,
    /// Duplicate ACKs that reached the sender.
    pub sender_dupacks: u64,
    /// Retransmissions by the base station.
    pub local_retransmissions: u64,
    /// Duplicate ACKs the base station kept from the sender.
    pub dupacks_suppressed: u64,
    /// Data frames the channel corrupted, base station to mobile host.
    pub frames_corrupted_down: u64,
    /// ACK frames the channel corrupted, mobile host to base station.
    pub frames_corrupted_up: u64,
    /// Data frames sent on the wireless link.
    pub wireless_data_frames: u64,
    /// Packets dropped by a full queue (none in the papers' settings).
    pub queue_drops: u64,
    /// Seconds the sender spent waiting for the retransmission timer: from the last transmission
    /// before each timeout to the timeout, within the span of `duration_s` (handshake timeouts
    /// before the first data segment are not counted), so never more than `duration_s`.
    pub timeout_stall_s: f64,
    /// Why the timeouts happened, from the sender's state at each.
    pub timeout_causes: TimeoutCauses,
    /// Sender socket buffer after 4.4BSD rounds it to whole segments.
    pub effective_buffer_bytes: u32,
    /// The host profile of every TCP in the run, and any details changed from it.
    pub host: String,
    /// Every host detail in force.
    pub host_details: BTreeMap<String, String>,
    /// Persist-timer expirations at the sender (each sends a probe).
    pub persist_timeouts: u64,
    /// ACKs the receiver sent advertising a zero window.
    pub zero_window_acks: u64,
    /// Window updates the receiving application's reads sent.
    pub window_updates: u64,
    /// ACKs the sender took by header prediction.
    pub predicted_acks: u64,
    /// ... of them while its duplicate-ACK count stood at the fast-retransmit threshold.
    pub predicted_acks_in_recovery: u64,
    /// Data segments the receiver took by header prediction.
    pub predicted_data: u64,
    /// Segments the sender resent on ELN marks, with no window change (E2E-ELN, bs-eln).
    pub eln_retransmits: u64,
    /// Mobile senders (bs-eln), summed over the base stations: gaps in a mobile host's data
    /// recorded as wireless holes ...
    pub holes: u64,
    /// ... gaps bridged instead because a queue was above 75% of its maximum (possible
    /// congestion losses) ...
    pub congestion_gaps: u64,
    /// ... ACKs the base stations forwarded to a mobile host with ELN set (bs-eln) ...
    pub eln_marked_acks: u64,
    /// ... NACKs they sent (bs-nack).
    pub nacks: u64,
    /// Packets dropped by a full base-station input queue (also in `queue_drops`).
    pub input_queue_drops: u64,
    /// Packets lost to base-station crashes: what was queued when one crashed, and what arrived
    /// while it was down.
    pub crash_drops: u64,
    /// A split run's second sender: the base station's TCP towards the mobile host, whose
    /// timeouts and retransmissions the keys above (the fixed host's) do not include. `null`
    /// for the other protocols.
    pub relay: Option<RelayCounters>,
    /// The run's checks, every flow's together.
    pub invariants: InvariantReport,
    /// Every flow's own result (a single-flow run has one, the same as the keys above).
    pub flows: Vec<FlowResult>,
    /// All flows together.
    pub aggregate: Aggregate,
    /// Every cell's medium.
    pub cells: Vec<CellResult>,
    /// Each mobile host that hands off between base stations (paper 002); empty otherwise.
    pub handoffs: Vec<HandoffResult>,
}

/// A mobile host's handoffs (paper 002 sections 4-7).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct HandoffResult {
    pub mobile: String,
    pub handoffs: u64,
    /// Handoffs the new primary confirmed.
    pub confirmed: u64,
    /// Handoff latency: from the mobile host's decision to the new primary's confirmation reaching
    /// it, ms (mean and largest over the confirmed handoffs).
    pub latency_ms_mean: f64,
    pub latency_ms_max: f64,
    /// From the decision to the first TCP packet from the new primary's cell, ms, over the
    /// handoffs that had one (those during a transfer).
    pub first_packet_ms_mean: f64,
    /// Requests the mobile host sent again, unconfirmed after the retry time.
    pub requests_resent: u64,
    /// Beacons all base stations of the group sent.
    pub beacons: u64,
    /// Handoffs whose new primary found one of the reported IP ids in its buffer.
    pub ids_found: u64,
    /// Buffered packets new primaries sent on taking over.
    pub ring_sent: u64,
    /// Packets base stations kept back from the mobile host because they no longer forwarded for
    /// it (snoop's retransmissions of a mirrored cache, late ones of a former primary).
    pub withheld: u64,
    /// Split connections handed over (`scheme = "split"`), and the mean time their state took.
    pub state_transfers: u64,
    pub state_transfer_ms_mean: f64,
    /// The handoffs one by one: every one up to `DECISIONS_KEPT` (10,000), the first ones after
    /// (the counts and means above cover them all; memory stays bounded however long the run).
    pub events: Vec<HandoffEvent>,
}

/// One handoff.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HandoffEvent {
    pub at_s: f64,
    pub from: String,
    pub to: String,
    pub latency_ms: Option<f64>,
    pub first_packet_ms: Option<f64>,
}

/// The result of one flow (serialized as [`RunResult`] is).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(remote = "Self")]
pub struct FlowResult {
    pub flow: String,
    pub from: String,
    pub to: String,
    pub protocol: String,
    pub buffer_bytes: u32,
    pub mss: u32,
    pub transfer_bytes: u64,
    /// When the sender opened its connection, seconds.
    pub start_s: f64,
    pub throughput_mbps: f64,
    /// Transfer bytes / payload bytes of this flow's data that crossed a wireless medium, %.
    pub wireless_goodput_pct: f64,
    pub wired_goodput_pct: f64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    pub duration_s: f64,
    pub sender_retransmitted_segments: u64,
    pub sender_dupacks: u64,
    pub wireless_data_frames: u64,
    /// This flow's data frames that reached their receiver corrupted (collided or hit by the
    /// channel): its segment losses on the medium.
    pub wireless_data_frames_lost: u64,
    /// ... of them destroyed by a collision.
    pub wireless_data_frames_collided: u64,
    /// Timeouts by the duplicate ACKs the sender had counted when the timer expired: 0, 1, 2, 3
    /// or more (paper 001's N_dup(i), section 6.1). They add up to `timeouts`.
    pub timeouts_after_dupacks: [u64; 4],
    /// Fast retransmissions at a threshold below three (EFR, Early Retransmit).
    pub fast_retransmits_below_three: u64,
    /// New segments Limited Transmit sent on the first two duplicate ACKs.
    pub limited_transmits: u64,
    pub timeout_stall_s: f64,
    pub timeout_causes: TimeoutCauses,
    pub effective_buffer_bytes: u32,
    pub host: String,
    pub persist_timeouts: u64,
    pub zero_window_acks: u64,
    pub window_updates: u64,
    pub predicted_acks: u64,
    pub predicted_acks_in_recovery: u64,
    pub predicted_data: u64,
    pub eln_retransmits: u64,
    pub relay: Option<RelayCounters>,
    pub invariants: InvariantReport,
}

/// The counters of the TCP sender a split base station runs towards the mobile host.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct RelayCounters {
    /// Retransmission-timer expirations of the relay sender.
    pub timeouts: u64,
    /// Its fast retransmissions.
    pub fast_retransmits: u64,
    /// Segments it retransmitted (by timeouts and fast retransmissions; the same count as
    /// `local_retransmissions` for a single split base station).
    pub retransmitted_segments: u64,
    /// Duplicate ACKs that reached it.
    pub dupacks: u64,
    /// Why its timeouts happened.
    pub timeout_causes: TimeoutCauses,
    /// It gave up after 12 retransmissions of one segment.
    pub gave_up: bool,
}

impl From<&snooplab_proto::tcp::TcpStats> for RelayCounters {
    fn from(s: &snooplab_proto::tcp::TcpStats) -> Self {
        RelayCounters {
            timeouts: s.timeouts,
            fast_retransmits: s.fast_retransmits,
            retransmitted_segments: s.rexmt_segs,
            dupacks: s.dupacks_rcvd,
            timeout_causes: s.timeout_causes.clone(),
            gave_up: s.dropped,
        }
    }
}

/// All flows of a run together.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Aggregate {
    pub flows: usize,
    /// Flows whose transfer completed.
    pub complete_flows: usize,
    pub transfer_bytes: u64,
    /// All transfer bytes * 8 / (last completion - first data sent), Mb/s (0 unless all completed).
    pub throughput_mbps: f64,
    /// Jain's fairness index of the flows' throughputs: 1 when equal, 1/n when one flow has it all.
    pub fairness: f64,
}

/// One cell's medium.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CellResult {
    pub cell: String,
    /// The access model: `turns` or `csma`.
    pub access: String,
    pub stations: usize,
    /// Frames put on the air, all stations.
    pub frames: u64,
    /// Frames destroyed by a collision.
    pub collisions: u64,
    /// Frames the channels corrupted, base station to mobile hosts and back.
    pub frames_corrupted_down: u64,
    pub frames_corrupted_up: u64,
    /// Seconds the medium carried frames, and that as a share of the run.
    pub airtime_s: f64,
    pub utilisation_pct: f64,
    pub queue_drops: u64,
    /// Frames dropped because too many access attempts found the medium busy (CSMA).
    pub access_drops: u64,
    /// Each mobile host's channel models, as labels (`1/64k`, `ge 0-1/2k 1s-50ms`, `trace FILE`).
    pub channels: Vec<StationChannels>,
}

/// The channel models of one station of a cell.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StationChannels {
    pub station: String,
    /// Base station to the mobile host.
    pub down: String,
    /// Mobile host to the base station.
    pub up: String,
    /// Frames each direction's channel passed, and how many of them it corrupted.
    pub frames_down: u64,
    pub corrupted_down: u64,
    pub frames_up: u64,
    pub corrupted_up: u64,
}

/// The key written `null` when a result's wireless goodput is undefined.
const WIRELESS_GOODPUT: &[&str] = &["wireless_goodput_pct"];

impl RunResult {
    /// The first flow's wireless goodput, `None` when none of its data frames crossed a wireless
    /// link (a wired path): the ratio has no denominator then, and the 0 the field holds would
    /// read as every byte wasted. Tables print `n/a`, JSON `null`.
    pub fn wireless_goodput(&self) -> Option<f64> {
        (self.wireless_data_frames > 0).then_some(self.wireless_goodput_pct)
    }
}

impl FlowResult {
    /// This flow's wireless goodput, `None` as [`RunResult::wireless_goodput`].
    pub fn wireless_goodput(&self) -> Option<f64> {
        (self.wireless_data_frames > 0).then_some(self.wireless_goodput_pct)
    }
}

impl Serialize for RunResult {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let null = if self.wireless_goodput().is_none() {
            WIRELESS_GOODPUT
        } else {
            &[]
        };
        RunResult::serialize(self, null_fields::NullFields::new(s, null))
    }
}

impl Serialize for FlowResult {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let null = if self.wireless_goodput().is_none() {
            WIRELESS_GOODPUT
        } else {
            &[]
        };
        FlowResult::serialize(self, null_fields::NullFields::new(s, null))
    }
}

/// A serializer that passes a struct on to another, writing the named fields as `null`: how a
/// derived `Serialize` gets a value it cannot know from the field alone (whether a goodput has a
/// denominator) without a second copy of every field. It serializes structs only, which is all the
/// derived impls above ask of it.
mod null_fields {
    use serde::ser::{Error as _, Impossible, SerializeStruct};
    use serde::{Serialize, Serializer};

    pub struct NullFields<S> {
        inner: S,
        null: &'static [&'static str],
    }

    impl<S> NullFields<S> {
        pub fn new(inner: S, null: &'static [&'static str]) -> NullFields<S> {
            NullFields { inner, null }
        }
    }

    pub struct Fields<T> {
        inner: T,
        null: &'static [&'static str],
    }

    impl<T: SerializeStruct> SerializeStruct for Fields<T> {
        type Ok = T::Ok;
        type Error = T::Error;
        fn serialize_field<V: ?Sized + Serialize>(
            &mut self,
            key: &'static str,
            value: &V,
        ) -> Result<(), T::Error> {
            if self.null.contains(&key) {
                self.inner.serialize_field(key, &None::<()>)
            } else {
                self.inner.serialize_field(key, value)
            }
        }
        fn end(self) -> Result<T::Ok, T::Error> {
            self.inner.end()
        }
    }

    /// The methods a struct's derived impl never calls.
    macro_rules! not_a_struct {
        ($($name:ident($($arg:ty),*)),* $(,)?) => {$(
            fn $name(self, $(_: $arg),*) -> Result<S::Ok, S::Error> {
                Err(S::Error::custom("NullFields serializes structs only"))
            }
        )*};
    }

    type No<S> = Impossible<<S as Serializer>::Ok, <S as Serializer>::Error>;

    impl<S: Serializer> Serializer for NullFields<S> {
        type Ok = S::Ok;
        type Error = S::Error;
        type SerializeSeq = No<S>;
        type SerializeTuple = No<S>;
        type SerializeTupleStruct = No<S>;
        type SerializeTupleVariant = No<S>;
        type SerializeMap = No<S>;
        type SerializeStruct = Fields<S::SerializeStruct>;
        type SerializeStructVariant = No<S>;

        fn serialize_struct(
            self,
            name: &'static str,
            len: usize,
        ) -> Result<Self::SerializeStruct, S::Error> {
            Ok(Fields {
                inner: self.inner.serialize_struct(name, len)?,
                null: self.null,
            })
        }

        fn is_human_readable(&self) -> bool {
            self.inner.is_human_readable()
        }

        not_a_struct!(
            serialize_bool(bool),
            serialize_i8(i8),
            serialize_i16(i16),
            serialize_i32(i32),
            serialize_i64(i64),
            serialize_u8(u8),
            serialize_u16(u16),
            serialize_u32(u32),
            serialize_u64(u64),
            serialize_f32(f32),
            serialize_f64(f64),
            serialize_char(char),
            serialize_str(&str),
            serialize_bytes(&[u8]),
            serialize_none(),
            serialize_unit(),
            serialize_unit_struct(&'static str),
            serialize_unit_variant(&'static str, u32, &'static str),
        );

        fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<S::Ok, S::Error> {
            Err(S::Error::custom("NullFields serializes structs only"))
        }
        fn serialize_newtype_struct<T: ?Sized + Serialize>(
            self,
            _: &'static str,
            _: &T,
        ) -> Result<S::Ok, S::Error> {
            Err(S::Error::custom("NullFields serializes structs only"))
        }
        fn serialize_newtype_variant<T: ?Sized + Serialize>(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: &T,
        ) -> Result<S::Ok, S::Error> {
            Err(S::Error::custom("NullFields serializes structs only"))
        }
        fn serialize_seq(self, _: Option<usize>) -> Result<No<S>, S::Error> {
            Err(S::Error::custom("NullFields serializes structs only"))
        }
        fn serialize_tuple(self, _: usize) -> Result<No<S>, S::Error> {
            Err(S::Error::custom("NullFields serializes structs only"))
        }
        fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<No<S>, S::Error> {
            Err(S::Error::custom("NullFields serializes structs only"))
        }
        fn serialize_tuple_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<No<S>, S::Error> {
            Err(S::Error::custom("NullFields serializes structs only"))
        }
        fn serialize_map(self, _: Option<usize>) -> Result<No<S>, S::Error> {
            Err(S::Error::custom("NullFields serializes structs only"))
        }
        fn serialize_struct_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<No<S>, S::Error> {
            Err(S::Error::custom("NullFields serializes structs only"))
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_undefined_wireless_goodput_is_null_in_its_place() {
        let mut sc = crate::scenario::default_scenario();
        sc.transfer = 64 << 10;
        let r = crate::run::run(&sc);
        let text = serde_json::to_string(&r).expect("JSON");
        assert!(text.contains("\"wireless_goodput_pct\":"), "{text}");
        assert!(!text.contains("\"wireless_goodput_pct\":null"), "{text}");
        let mut wired = r.clone();
        wired.wireless_data_frames = 0;
        wired.flows[0].wireless_data_frames = 0;
        let text = serde_json::to_string(&wired).expect("JSON");
        assert_eq!(
            text.matches("\"wireless_goodput_pct\":null").count(),
            2,
            "{text}"
        );
        // in the same place as a defined value: the other keys and their order are the derived ones
        let at = |t: &str| t.find("\"wireless_goodput_pct\"").expect("key");
        assert_eq!(at(&text), at(&serde_json::to_string(&r).expect("JSON")));
    }
}
