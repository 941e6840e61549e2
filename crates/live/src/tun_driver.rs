//! The engine's real clock (snooplab-sim's `run/driver.rs`): the simulator's event loop, with
//! the kernel hosts' TUN devices attached (docs/live.md, "Scenario files").
//!
//! [`TunDriver::next`] hands the loop every event whose time has come, each at its own time
//! however late it is released (the links and media keep exact time; how late each packet
//! delivered to a host left, against the time of the event that delivered it, is counted in
//! [`Lateness`]), and packets the hosts wrote into their devices at the time they were read, once
//! nothing is due. Between the two it sleeps in one `ppoll` over every device until the next
//! event's time, or at most [`IDLE_WAKE`] (to look at the stop conditions). A packet the network
//! delivers to a host is written into its device at once; when it came off a cell whose next
//! pick waits for it, what the host's kernel sent in that same write's call (an immediate ACK:
//! the kernel takes a TUN write in the writer's context, `drivers/net/tun.c`, `tun_get_user`) is
//! read right after the event and handed to the engine as the host's answer, at the event's time
//! ([`Driver::answer`]). What the host had sent before the write comes with it, in the order
//! sent: sent before the answer, it enters no later than the answer does. There is no read before
//! the write: one more syscall per packet, mostly finding the device empty (docs/live.md,
//! "Against de373cc, third step"). Nor one after a write the host did not answer: the kernel
//! counts what it queues on each device (`Tun::at_most_waiting`, `sys/tun_count.rs`), an answer
//! in the write's call before the write returns, so a count that has not moved says there is
//! nothing to read, and a device is read for as many packets as it holds, not to the empty read
//! ("Against de373cc, fourth step").

use std::collections::VecDeque;
use std::os::fd::RawFd;
use std::time::Instant;

use snooplab_proto::time::MS;
use snooplab_proto::Time;
use snooplab_sim::engine::EventQueue;
use snooplab_sim::network::NodeId;
use snooplab_sim::packet::SimPacket;
use snooplab_sim::raw::Reject;
use snooplab_sim::run::{Driver, Step};

use crate::lateness::Lateness;
use crate::sys;
use crate::tun::Tun;

/// Packets read from one device before looking at the clock again.
const READ_BATCH: usize = 64;
/// Events served at one reading of the clock before it is read again: a delivery's lateness is
/// taken at the reading that released its event, so after a stall the handling of a backlog
/// adds at most this many events' time (about a microsecond each) to what it leaves out.
const EVENTS_PER_READING: u32 = 64;
/// Largest packet a TUN read returns here (offloads are off: one MTU-sized packet per read).
const MAX_PACKET: usize = 65536;
/// The longest sleep: how often the loop looks at its stop conditions when nothing happens.
pub(crate) const IDLE_WAKE: Time = 50 * MS;

/// Why the loop ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// The caller said the run is over.
    Done,
    /// SIGINT, SIGTERM or SIGHUP.
    Interrupted,
    /// The time limit passed.
    TimedOut,
}

/// What went through one host's device.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct HostTraffic {
    /// Packets read from the device, and the TCP payload bytes they carried.
    pub packets_in: u64,
    pub payload_in: u64,
    /// Packets written into it, those of them that carried TCP payload, and its bytes.
    pub packets_out: u64,
    pub data_out: u64,
    pub payload_out: u64,
    /// Corrupted frames written into it (TCP checksum broken): its kernel's `TcpInCsumErrors`.
    pub corrupted_out: u64,
}

/// What the driver counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct DriverCounters {
    /// Packets read from the hosts' devices, and their IP bytes.
    pub packets_in: u64,
    pub bytes_in: u64,
    /// Packets written into the hosts' devices.
    pub packets_out: u64,
    /// ... of them corrupted frames, written with their TCP checksum broken.
    pub corrupted_out: u64,
    /// Read and dropped: not IPv4.
    pub rejected_not_ipv4: u64,
    /// Read and dropped: truncated, bad header lengths or checksum, bad TCP option.
    pub rejected_malformed: u64,
    /// IPv4 that is not TCP (ICMP, UDP), carried untouched.
    pub passed_non_tcp: u64,
    /// Writes a device refused.
    pub write_errors: u64,
}

/// Payload bytes of a TCP packet, 0 for anything else.
fn payload(p: &SimPacket) -> u64 {
    if p.is_tcp() {
        u64::from(p.seg.len)
    } else {
        0
    }
}

/// When the run ends, and what to tell meanwhile.
/// How often a run reports its progress (the `tick` of [`Stop`]).
pub(crate) const TICK_EVERY: Time = 500 * MS;

pub struct Stop<'a> {
    /// The run is over (the hosts' transfers ended).
    pub done: &'a dyn Fn() -> bool,
    /// Give up after this much real time.
    pub limit: Time,
    /// Called about every `tick_every` with the time since the start (progress).
    pub tick: &'a mut dyn FnMut(Time),
    pub tick_every: Time,
}

pub(crate) struct TunDriver<'a> {
    /// The hosts' nodes and devices; `fds[i]` is `devices[i]`'s.
    devices: Vec<(NodeId, &'a Tun)>,
    fds: Vec<RawFd>,
    ready: Vec<bool>,
    clock: Instant,
    /// The clock's last reading: an event due by then is due now, without reading it again.
    last_now: Time,
    /// Events served at `last_now` since it was read: the clock is read again after
    /// [`EVENTS_PER_READING`], so that a backlog's deliveries are not all stamped at its start.
    served_at_reading: u32,
    stop: Stop<'a>,
    next_tick: Time,
    /// Read, not yet taken by the loop: at most a batch per device.
    inbox: VecDeque<(Time, NodeId, SimPacket)>,
    /// Devices written since their answers were last read.
    written: Vec<bool>,
    /// Some of `written` is set: `next` clears them only then (a `fill` per event was a
    /// `memset` call, 1% of the engine thread's instructions on a full-duplex hop, where
    /// nothing reads answers).
    any_written: bool,
    /// Read right after an event's writes, to enter at its time: at most a batch per device.
    answers: VecDeque<(NodeId, SimPacket)>,
    buf: Vec<u8>,
    pub lateness: Lateness,
    pub counters: DriverCounters,
    /// Each device's traffic, as `devices`.
    pub traffic: Vec<HostTraffic>,
    /// Every flow's ends in the engine (a modelled host's) have ended: the run ends once the
    /// hosts' say so too.
    engine_done: bool,
    /// Why the run ended, once it has.
    pub ending: Option<Ending>,
    /// An error that ended it.
    pub error: Option<String>,
}

impl<'a> TunDriver<'a> {
    /// A driver for the hosts `devices` whose time starts at `clock`.
    pub fn new(devices: Vec<(NodeId, &'a Tun)>, clock: Instant, stop: Stop<'a>) -> TunDriver<'a> {
        let fds: Vec<RawFd> = devices.iter().map(|(_, t)| t.raw_fd()).collect();
        let n = fds.len();
        TunDriver {
            ready: vec![false; n],
            fds,
            devices,
            clock,
            last_now: 0,
            served_at_reading: 0,
            next_tick: stop.tick_every,
            stop,
            inbox: VecDeque::new(),
            written: vec![false; n],
            any_written: false,
            answers: VecDeque::new(),
            buf: vec![0; MAX_PACKET],
            lateness: Lateness::default(),
            counters: DriverCounters::default(),
            traffic: vec![HostTraffic::default(); n],
            engine_done: false,
            ending: None,
            error: None,
        }
    }

    fn now(&self) -> Time {
        self.clock.elapsed().as_nanos() as Time
    }

    /// Whether the run must end now; notes why.
    fn must_end(&mut self, now: Time) -> bool {
        if self.ending.is_none() {
            self.ending = if self.engine_done && (self.stop.done)() {
                Some(Ending::Done)
            } else if sys::stop_requested() {
                Some(Ending::Interrupted)
            } else if now >= self.stop.limit {
                Some(Ending::TimedOut)
            } else {
                None
            };
        }
        self.ending.is_some()
    }

    /// Sleeps until a device is readable or `until`, then reads what came.
    fn wait(&mut self, now: Time, until: Time) {
        let r = sys::wait_readable_into(&self.fds, &mut self.ready, until.saturating_sub(now));
        if let Err(e) = r {
            self.error = Some(format!("waiting for packets: {e}"));
            self.ending = Some(Ending::Done);
            return;
        }
        for i in 0..self.devices.len() {
            if self.ready[i] {
                self.read_device(i, false, READ_BATCH);
            }
        }
    }

    /// Reads what device `i` holds, at most `max` packets and no more than the kernel counted
    /// on it (`Tun::at_most_waiting`: no read that finds it empty when that many came), but at
    /// least one: a device `ppoll` calls readable that the count says is empty (an error on it, a
    /// packet queued past the filter) is read, not polled again and again. Into the inbox at the
    /// clock's time, or as answers.
    fn read_device(&mut self, i: usize, as_answers: bool, max: usize) {
        let (node, tun) = self.devices[i];
        let max = tun.at_most_waiting().map_or(max, |w| {
            max.min(usize::try_from(w).unwrap_or(usize::MAX)).max(1)
        });
        // one clock reading per batch: a packet that came while the batch was being read is
        // stamped those few microseconds early, never before an event already handled (answers
        // enter at their event's time: no reading)
        let at = if as_answers { 0 } else { self.now() };
        for _ in 0..max {
            let n = match tun.recv(&mut self.buf) {
                Ok(Some(n)) => n,
                Ok(None) => break,
                Err(e) => {
                    self.error = Some(format!("reading {} of node {node}: {e}", tun.name()));
                    self.ending = Some(Ending::Done);
                    return;
                }
            };
            let c = &mut self.counters;
            c.packets_in += 1;
            c.bytes_in += n as u64;
            match SimPacket::from_wire(&self.buf[..n]) {
                Ok(p) => {
                    c.passed_non_tcp += u64::from(!p.is_tcp());
                    self.traffic[i].packets_in += 1;
                    self.traffic[i].payload_in += payload(&p);
                    if as_answers {
                        self.answers.push_back((node, p));
                    } else {
                        self.inbox.push_back((at, node, p));
                    }
                }
                Err(Reject::NotIpv4) => c.rejected_not_ipv4 += 1,
                Err(Reject::Malformed) => c.rejected_malformed += 1,
            }
        }
    }
}

impl Driver for TunDriver<'_> {
    const EXTERNAL: bool = true;

    fn next<E>(&mut self, queue: &mut EventQueue<E>) -> Step<E> {
        // the engine took the last event's answers, or wanted none (`Driver::answer`): what the
        // hosts sent since is read at its own time
        if std::mem::take(&mut self.any_written) {
            self.written.fill(false);
        }
        loop {
            // a run of events all due by the last reading is served at one reading of the clock,
            // at most EVENTS_PER_READING of them (a delivery's lateness is read at it)
            let due = queue.next_time().is_some_and(|t| t <= self.last_now)
                && self.served_at_reading < EVENTS_PER_READING;
            let now = if due {
                self.served_at_reading += 1;
                self.last_now
            } else {
                self.served_at_reading = 0;
                self.now()
            };
            self.last_now = now;
            if self.must_end(now) {
                return Step::End;
            }
            if now >= self.next_tick {
                (self.stop.tick)(now);
                self.next_tick = now + self.stop.tick_every;
            }
            let next = queue.next_time();
            if next.is_some_and(|t| t <= now) {
                if let Some((t, e)) = queue.pop_next() {
                    return Step::Event(t, e);
                }
            }
            if !self.inbox.is_empty() {
                return Step::Input(now);
            }
            let until = next.map_or(now + IDLE_WAKE, |t| t.min(now + IDLE_WAKE));
            self.wait(now, until);
        }
    }

    fn recv(&mut self) -> Option<(Time, NodeId, SimPacket)> {
        self.inbox.pop_front()
    }

    fn send(&mut self, node: NodeId, now: Time, packet: &SimPacket) {
        let Some(i) = self.devices.iter().position(|(n, _)| *n == node) else {
            return;
        };
        // a delivery to a host is what the hosts see: late against the engine time of the event
        // that delivered it (an event inside the engine handled late but whose packets still
        // leave on time costs the hosts nothing). Released at the clock reading that released
        // its event (`next`): a reading per write was about 6% of the engine thread's user time
        // (docs/live.md, "Against de373cc, fifth step"); it reads short by the handling of the
        // events released before it at that reading, at most EVENTS_PER_READING of them.
        self.lateness.record(now, self.last_now);
        let c = &mut self.counters;
        let t = &mut self.traffic[i];
        match self.devices[i].1.send(&packet.wire_bytes()) {
            Ok(()) => {
                c.packets_out += 1;
                c.corrupted_out += u64::from(packet.corrupted);
                t.packets_out += 1;
                t.corrupted_out += u64::from(packet.corrupted);
                let len = payload(packet);
                t.data_out += u64::from(len > 0);
                t.payload_out += len;
                self.written[i] = true;
                self.any_written = true;
            }
            Err(_) => c.write_errors += 1,
        }
    }

    fn answer(&mut self) -> Option<(NodeId, SimPacket)> {
        if self.answers.is_empty() {
            for i in 0..self.devices.len() {
                if !std::mem::take(&mut self.written[i]) {
                    continue;
                }
                // where the kernel counts, a host that queued nothing since the last read did
                // not answer: nothing to read (`read_device`), nor to look for in the inbox
                let (node, tun) = self.devices[i];
                if tun.at_most_waiting() == Some(0) {
                    continue;
                }
                // behind a packet of the host's still waiting, an answer waits too (order)
                let waiting = self.inbox.iter().any(|(_, n, _)| *n == node);
                self.read_device(i, !waiting, READ_BATCH);
            }
        }
        self.answers.pop_front()
    }

    fn flows_finished(&mut self) -> bool {
        self.engine_done = true;
        false
    }
}
