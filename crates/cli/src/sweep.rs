//! `snooplab sweep`: every combination of the listed settings times every seed, in parallel, with a
//! progress bar on stderr; results are collected in a fixed order, so they never depend on threads.
//! The grid, its plan and the summaries are the library's (`snooplab_lab::grid`, `summary`); this
//! reads the flags into it and prints the table.

use snooplab_lab::grid::{Base, Plan, SweepSettings};
use snooplab_lab::summary::ConfigSummary;
use snooplab_sim::size::format_size;
use snooplab_sim::stats::Summary;

use crate::cli::SweepArgs;

/// The sweep flags as the library's settings.
fn settings(a: &SweepArgs) -> SweepSettings {
    SweepSettings {
        base: match &a.scenario {
            Some(path) => Base::File(path.clone()),
            None => Base::Default,
        },
        protocol: a.protocol.clone(),
        env: a.env.clone(),
        buffer: a.buffer.clone(),
        mss: a.mss.clone(),
        error_every: a.error_every.clone(),
        burst: a.burst.clone(),
        host: a.host.clone(),
        transfer: a.transfer.clone(),
        host_detail: a.host_detail.clone(),
        seeds: a.seeds.clone(),
        seed_base: a.seed_base.clone(),
        threads: a.threads,
    }
}

/// Checks every setting and builds the combinations, without running anything.
pub fn plan(a: &SweepArgs) -> Result<Plan, String> {
    Ok(settings(a).plan()?)
}

pub fn sweep(a: SweepArgs) -> Result<(), String> {
    let plan = plan(&a)?;
    let results = crate::parallel::run_all(&plan.jobs(), a.threads, ("sweep", a.quiet))?;
    let summaries = plan.summaries(&results);
    if a.json {
        let doc = serde_json::json!({ "summaries": summaries, "runs": results });
        println!(
            "{}",
            serde_json::to_string(&doc).map_err(|e| format!("cannot encode results: {e}"))?
        );
    } else {
        print_table(&summaries);
    }
    Ok(())
}

/// A table cell `mean ± half-width` in columns of `wm` and `wc` characters: `± n/a` for one seed,
/// which gives no interval, and `n/a` alone for a value that is undefined (`None`: the wireless
/// goodput of a wired path).
fn pm(s: Option<&Summary>, wm: usize, wc: usize, digits: usize) -> String {
    match s {
        Some(s) => format!("{:>wm$.digits$} ± {:<wc$}", s.mean, s.ci_text(digits)),
        None => format!("{:>wm$}   {:<wc$}", "n/a", ""),
    }
}

fn print_table(rows: &[ConfigSummary]) {
    // the name columns fit the longest name (ll-smart-tcp-aware, a host with changed details), so
    // the columns after them stay aligned
    let pw = rows.iter().map(|r| r.protocol.len()).fold(10, usize::max);
    let hw = rows.iter().map(|r| r.host.len()).fold(11, usize::max);
    println!(
        "{:<pw$} {:<hw$} {:<4} {:>6} {:>5} {:>8} {:>7} {:>5} {:>5} | {:>16} {:>14} {:>14} {:>9} {:>8} {:>9}",
        "protocol",
        "host",
        "env",
        "buffer",
        "mss",
        "transfer",
        "err/B",
        "burst",
        "seeds",
        "throughput Mb/s",
        "wireless gp %",
        "wired gp %",
        "timeouts",
        "fastrx",
        "invariant"
    );
    for r in rows {
        let inv = if r.invariant_failures == 0 {
            "ok".to_string()
        } else {
            format!("{} FAIL", r.invariant_failures)
        };
        println!(
            "{:<pw$} {:<hw$} {:<4} {:>6} {:>5} {:>8} {:>7} {:>5} {:>5} | {:>16} {:>14} {:>14} {:>9.1} {:>8.1} {:>9}",
            r.protocol,
            r.host,
            r.env,
            format_size(u64::from(r.buffer_bytes)),
            r.mss,
            format_size(r.transfer_bytes),
            format_size(r.error_every_bytes),
            r.burst,
            r.seeds,
            pm(Some(&r.throughput_mbps), 7, 6, 3),
            pm(r.wireless_goodput_pct.as_ref(), 6, 5, 2),
            pm(Some(&r.wired_goodput_pct), 6, 5, 2),
            r.timeouts.mean,
            r.fast_retransmits.mean,
            inv
        );
        let shorthand =
            snooplab_sim::channel::ChannelSpec::every(r.error_every_bytes, r.burst).label();
        if r.channel_down != shorthand || r.channel_up != shorthand {
            // err/B and burst above are the shorthand; the scenario named other models
            println!("    channel: down {}, up {}", r.channel_down, r.channel_up);
        }
        if let (Some(t), Some(f), Some(x)) = (
            &r.relay_timeouts,
            &r.relay_fast_retransmits,
            &r.relay_retransmitted_segments,
        ) {
            // the columns above are the fixed host's sender; a split run's losses are the relay's
            println!(
                "    relay sender (base station to mobile host): timeouts {:.1}, fastrx {:.1}, \
                 retransmitted segments {:.1}",
                t.mean, f.mean, x.mean
            );
        }
        if let Some(agg) = &r.aggregate_throughput_mbps {
            let flows: Vec<String> = r
                .flows
                .iter()
                .map(|f| {
                    format!(
                        "{} {}>{} {}",
                        f.flow,
                        f.from,
                        f.to,
                        f.throughput_mbps.mean_ci(3)
                    )
                })
                .collect();
            println!(
                "    all flows {} Mb/s; {}",
                agg.mean_ci(3),
                flows.join("; ")
            );
        }
    }
    println!("(± is the half-width of the 95% confidence interval of the mean over seeds)");
}
