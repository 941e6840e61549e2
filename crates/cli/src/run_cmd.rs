//! `snooplab run` and `snooplab protocols`.

use snooplab_sim::{Protocol, RunResult};

use crate::cli::RunArgs;
use crate::settings::scenario_from_args;

pub fn run(a: RunArgs) -> Result<(), String> {
    let sc = scenario_from_args(&a)?;
    let r = snooplab_sim::run(&sc);
    if a.json {
        let text = serde_json::to_string(&r).map_err(|e| format!("cannot encode result: {e}"))?;
        println!("{text}");
    } else {
        print_table(&r);
    }
    Ok(())
}

fn print_table(r: &RunResult) {
    println!(
        "{} {} buffer {} B, mss {} B, {} B transfer, error every {} B (burst {}), seed {}",
        r.protocol,
        r.env,
        r.buffer_bytes,
        r.mss,
        r.transfer_bytes,
        r.error_every_bytes,
        r.burst,
        r.seed
    );
    println!("  throughput          {:8.3} Mb/s", r.throughput_mbps);
    println!("  wireless goodput    {:8.2} %", r.wireless_goodput_pct);
    println!("  wired goodput       {:8.2} %", r.wired_goodput_pct);
    println!("  duration            {:8.3} s", r.duration_s);
    println!(
        "  timeouts            {:8}   ({:.2} s waiting for the retransmission timer)",
        r.timeouts, r.timeout_stall_s
    );
    let c = &r.timeout_causes;
    println!(
        "    causes: {} retransmission lost, {} multiple losses in a window, {} window too small \
         for 3 dupacks, {} other, {} handshake",
        c.retransmission_lost, c.multiple_losses, c.small_window, c.other, c.handshake
    );
    println!("  fast retransmits    {:8}", r.fast_retransmits);
    println!(
        "  sender retransmits  {:8} segments",
        r.sender_retransmitted_segments
    );
    println!("  local retransmits   {:8}", r.local_retransmissions);
    println!(
        "  corrupted frames    {:8} data, {} ACK",
        r.frames_corrupted_down, r.frames_corrupted_up
    );
    println!("  events              {:8}", r.events);
    println!("  invariants          {}", r.invariants.summary());
    for m in &r.invariants.messages {
        println!("    {m}");
    }
}

pub fn protocols() {
    for p in Protocol::ALL {
        println!("{:<20} {}", p.name(), p.description());
    }
}
