//! The live base station: one thread, one event loop over both TUN devices, the link emulator and
//! the agent under test (docs/live.md). The agent is the simulator's object, fed raw IP packets.

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Read, Seek, Write};
use std::path::Path;
use std::time::Instant;

use snooplab_proto::agent::{Agent, AgentProbe, Counters, Port, SegmentView};
use snooplab_proto::time::MS;
use snooplab_proto::Time;
use snooplab_sim::capture::PcapWriter;

use crate::emulator::{Delivery, Emulator, LinkCounters};
pub use crate::lateness::{Lateness, LATE_THRESHOLD, LATE_WARN_FRACTION};
use crate::packet::{LivePacket, Reject};
use crate::sys;
use crate::tun::Tun;

/// Packets read from one device before looking at the other and at the clock.
const READ_BATCH: usize = 64;
/// Largest packet a TUN read returns here (offloads are off: one MTU-sized packet per read).
const MAX_PACKET: usize = 65536;

/// What the base station counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct StationCounters {
    /// Packets read from the fixed host's and the mobile host's devices.
    pub packets_from_fh: u64,
    pub packets_from_mh: u64,
    /// Packets written to each device.
    pub packets_to_fh: u64,
    pub packets_to_mh: u64,
    /// IP bytes read from both devices.
    pub bytes_in: u64,
    /// Read from a device and dropped: not IPv4.
    pub rejected_not_ipv4: u64,
    /// Read from a device and dropped: truncated, bad header lengths or checksum, bad TCP option.
    pub rejected_malformed: u64,
    /// IPv4 packets that are not TCP (ICMP, UDP), passed through untouched.
    pub passed_non_tcp: u64,
    /// TCP payload bytes that arrived from the fixed host.
    pub wired_payload_bytes: u64,
    /// TCP payload bytes sent to the mobile host (corrupted frames and retransmissions included).
    pub wireless_payload_bytes: u64,
    /// Data frames sent to the mobile host.
    pub wireless_data_frames: u64,
    /// Frames the channel corrupted that were handed to the mobile host's kernel (with a broken
    /// checksum): its `TcpInCsumErrors` must count exactly these.
    pub corrupted_to_mh: u64,
    /// Frames from the mobile host the channel corrupted, discarded by the base station.
    pub corrupted_from_mh: u64,
    /// Writes a device refused.
    pub write_errors: u64,
    /// Most segments the agent held at once.
    pub agent_max_held_segments: u32,
    /// Most payload bytes the agent held at once.
    pub agent_max_held_bytes: u64,
}

/// The lock file a run holds in its capture directory while it writes there.
pub const CAPTURE_LOCK: &str = ".snooplab-capture.lock";
/// The lock file `snooplab live --pcap DIR` holds in DIR for the whole invocation.
pub const INVOCATION_LOCK: &str = ".snooplab-live.lock";

/// Tries at taking a [`DirLock`], 50 ms apart.
const LOCK_ATTEMPTS: u32 = 20;

/// An exclusive `flock(2)` on `dir/name` (created if missing), held until dropped, with this
/// process's id written in it for the message of whoever finds it held. Two runs writing
/// `wired.pcap` into one directory at once would interleave their records: the second is refused.
#[derive(Debug)]
pub struct DirLock {
    _file: File,
}

impl DirLock {
    pub fn acquire(dir: &Path, name: &str) -> Result<DirLock, String> {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let path = dir.join(name);
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| format!("cannot create {}: {e}", path.display()))?;
        // A lock just released can still look held for a moment: a child this process is
        // spawning (`ip`) holds a copy of every descriptor between its fork and its exec, which
        // closes them (O_CLOEXEC), and a flock belongs to the open file, not to one descriptor.
        // So a busy directory is refused only after a second of retries.
        let mut locked = false;
        for attempt in 0..LOCK_ATTEMPTS {
            if attempt > 0 {
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            locked = sys::try_lock_exclusive(&file)
                .map_err(|e| format!("cannot lock {}: {e}", path.display()))?;
            if locked {
                break;
            }
        }
        if !locked {
            let mut text = String::new();
            let _ = file.read_to_string(&mut text);
            let pid = text.trim();
            let who = if pid.parse::<u32>().is_ok() {
                format!(" (pid {pid})")
            } else {
                String::new()
            };
            return Err(format!(
                "capture directory {} is in use by another snooplab live run{who}: use another \
                 --pcap directory, or wait for that run to end",
                dir.display()
            ));
        }
        let _ = file
            .set_len(0)
            .and_then(|_| file.rewind())
            .and_then(|_| writeln!(file, "{}", std::process::id()));
        Ok(DirLock { _file: file })
    }
}

/// The wired and wireless captures (`--pcap`), as the simulator writes them.
pub struct Captures {
    wired: PcapWriter<BufWriter<File>>,
    wireless: PcapWriter<BufWriter<File>>,
    _lock: DirLock,
}

impl Captures {
    /// `wired.pcap` and `wireless.pcap` in `dir`, which this run holds ([`CAPTURE_LOCK`]) until
    /// the captures are finished.
    pub fn create(dir: &Path) -> Result<Captures, String> {
        let lock = DirLock::acquire(dir, CAPTURE_LOCK)?;
        let open = |name: &str| -> Result<PcapWriter<BufWriter<File>>, String> {
            let path = dir.join(name);
            let f = File::create(&path)
                .map_err(|e| format!("cannot create {}: {e}", path.display()))?;
            PcapWriter::new(BufWriter::new(f))
                .map_err(|e| format!("cannot write {}: {e}", path.display()))
        };
        Ok(Captures {
            wired: open("wired.pcap")?,
            wireless: open("wireless.pcap")?,
            _lock: lock,
        })
    }

    fn record(&mut self, wireless: bool, at: Time, bytes: &[u8]) -> Result<(), String> {
        let w = if wireless {
            &mut self.wireless
        } else {
            &mut self.wired
        };
        w.write(at, bytes)
            .map_err(|e| format!("cannot write the capture: {e}"))
    }

    pub fn finish(self) -> Result<(), String> {
        let Captures {
            wired,
            wireless,
            _lock,
        } = self;
        for w in [wired, wireless] {
            w.finish()
                .map_err(|e| format!("cannot write the capture: {e}"))?;
        }
        Ok(())
    }
}

/// Why the loop ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// The caller said the run is over.
    Done,
    /// Ctrl-C or SIGTERM.
    Interrupted,
    /// The time limit passed.
    TimedOut,
}

pub struct BaseStation<'a> {
    fh: &'a Tun,
    mh: &'a Tun,
    agent: Box<dyn Agent<LivePacket>>,
    emulator: Emulator,
    counters: StationCounters,
    capture: Option<Captures>,
    clock: Instant,
    buf: Vec<u8>,
    lateness: Lateness,
}

impl<'a> BaseStation<'a> {
    pub fn new(
        fh: &'a Tun,
        mh: &'a Tun,
        agent: Box<dyn Agent<LivePacket>>,
        emulator: Emulator,
        capture: Option<Captures>,
    ) -> BaseStation<'a> {
        BaseStation {
            fh,
            mh,
            agent,
            emulator,
            counters: StationCounters::default(),
            capture,
            clock: Instant::now(),
            buf: vec![0; MAX_PACKET],
            lateness: Lateness::default(),
        }
    }

    fn now(&self) -> Time {
        self.clock.elapsed().as_nanos() as Time
    }

    /// Runs until `done()` says so, Ctrl-C, or `limit` of real time; `tick` is called about every
    /// `tick_every` with the time since the start (for progress).
    pub fn run(
        &mut self,
        limit: Time,
        done: &dyn Fn() -> bool,
        tick_every: Time,
        tick: &mut dyn FnMut(Time),
    ) -> Result<Ending, String> {
        let mut next_tick = tick_every;
        loop {
            let now = self.now();
            if done() {
                return Ok(Ending::Done);
            }
            if sys::stop_requested() {
                return Ok(Ending::Interrupted);
            }
            if now >= limit {
                return Ok(Ending::TimedOut);
            }
            if now >= next_tick {
                tick(now);
                next_tick = now + tick_every;
            }
            self.run_due(now)?;
            // Sleep until a device has a packet, the emulator or the agent is due, or 50 ms pass
            // (to look at `done` and the stop flag).
            let mut wake = now + 50 * MS;
            if let Some(t) = self.emulator.next_due() {
                wake = wake.min(t);
            }
            if let Some(t) = self.agent.poll_timeout() {
                wake = wake.min(t);
            }
            let now = self.now();
            let ready = if wake > now {
                sys::wait_readable([self.fh.raw_fd(), self.mh.raw_fd()], wake - now)
                    .map_err(|e| format!("waiting for packets: {e}"))?
            } else {
                [true, true]
            };
            if ready[0] {
                self.read_device(Port::Wired)?;
            }
            if ready[1] {
                self.read_device(Port::Wireless)?;
            }
        }
    }

    /// Agent timers and emulator deliveries that are due.
    fn run_due(&mut self, now: Time) -> Result<(), String> {
        if self.agent.poll_timeout().is_some_and(|t| t <= now) {
            self.agent.on_timeout(now);
            self.drain_agent(now);
        }
        self.deliver_due(now)
    }

    /// Emulator deliveries that are due (after each packet read: with the emulator off, the packet
    /// itself). The agent's timers wait for the next turn of the loop: looking for the next one
    /// scans every connection, which is not worth doing per packet.
    fn deliver_due(&mut self, now: Time) -> Result<(), String> {
        while let Some(d) = self.emulator.poll(now) {
            self.deliver(now, d.at, d.delivery)?;
        }
        Ok(())
    }

    /// Reads up to a batch of packets from one side's device.
    fn read_device(&mut self, side: Port) -> Result<(), String> {
        let tun = match side {
            Port::Wired => self.fh,
            Port::Wireless => self.mh,
        };
        for _ in 0..READ_BATCH {
            let n = match tun.recv(&mut self.buf) {
                Ok(Some(n)) => n,
                Ok(None) => break,
                Err(e) => return Err(format!("reading {}: {e}", tun.name())),
            };
            let now = self.now();
            match side {
                Port::Wired => self.counters.packets_from_fh += 1,
                Port::Wireless => self.counters.packets_from_mh += 1,
            }
            self.counters.bytes_in += n as u64;
            match LivePacket::classify(self.buf[..n].to_vec()) {
                Ok(p) => {
                    if p.segment().is_none() {
                        self.counters.passed_non_tcp += 1;
                    }
                    self.emulator.from_host(now, side, p);
                    self.deliver_due(now)?;
                }
                Err(Reject::NotIpv4) => self.counters.rejected_not_ipv4 += 1,
                Err(Reject::Malformed) => self.counters.rejected_malformed += 1,
            }
        }
        Ok(())
    }

    fn drain_agent(&mut self, now: Time) {
        while let Some(tx) = self.agent.poll_transmit(now) {
            self.emulator.from_agent(now, tx);
        }
        let probe = self.agent.probe();
        let c = &mut self.counters;
        c.agent_max_held_segments = c.agent_max_held_segments.max(probe.held_segments);
        c.agent_max_held_bytes = c.agent_max_held_bytes.max(probe.held_bytes);
    }

    fn deliver(&mut self, now: Time, at: Time, d: Delivery) -> Result<(), String> {
        if self.emulator.is_on() {
            self.lateness.record(at, now);
        }
        match d {
            Delivery::ToAgent(port, p) => {
                if port == Port::Wired {
                    self.counters.wired_payload_bytes += u64::from(p.payload_len());
                }
                if let Some(c) = self.capture.as_mut() {
                    c.record(port == Port::Wireless, at, p.bytes())?;
                }
                self.agent.on_packet(now, port, p);
                self.drain_agent(now);
            }
            Delivery::ToHost(port, p) => {
                let bytes = p.wire_bytes();
                if let Some(c) = self.capture.as_mut() {
                    c.record(port == Port::Wireless, at, &bytes)?;
                }
                let (tun, sent) = match port {
                    Port::Wired => (self.fh, &mut self.counters.packets_to_fh),
                    Port::Wireless => {
                        if p.payload_len() > 0 {
                            self.counters.wireless_payload_bytes += u64::from(p.payload_len());
                            self.counters.wireless_data_frames += 1;
                        }
                        self.counters.corrupted_to_mh += u64::from(p.is_corrupted());
                        (self.mh, &mut self.counters.packets_to_mh)
                    }
                };
                match tun.send(&bytes) {
                    Ok(()) => *sent += 1,
                    Err(_) => self.counters.write_errors += 1,
                }
            }
            Delivery::Lost(p) => {
                self.counters.corrupted_from_mh += 1;
                if let Some(c) = self.capture.as_mut() {
                    c.record(true, at, &p.wire_bytes())?;
                }
            }
        }
        Ok(())
    }

    pub fn counters(&self) -> StationCounters {
        self.counters
    }

    /// What the agent counted, by name.
    pub fn agent_counters(&self) -> Counters {
        self.agent.counters()
    }

    /// What the agent holds now.
    pub fn agent_probe(&self) -> AgentProbe {
        self.agent.probe()
    }

    /// How late the emulator's deliveries were released.
    pub fn lateness(&self) -> Lateness {
        self.lateness
    }

    pub fn link_counters(&self) -> LinkCounters {
        self.emulator.counters()
    }

    /// Ends the captures.
    pub fn finish(self) -> Result<(), String> {
        match self.capture {
            Some(c) => c.finish(),
            None => Ok(()),
        }
    }
}
