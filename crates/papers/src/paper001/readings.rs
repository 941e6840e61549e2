//! Paper 001's readings (issue 28): the WaveLAN MAC's constants, which the paper does not give
//! ("a PC-Card of 2Mbps WaveLAN", section 4.1), read from two sources.
//!
//! The second reading carries ns-2's channel-delay collision rule as the medium's sense delay
//! (`CsmaParams::sense_delay`, 4 us): in ns-2 (`channel.cc` at commit 62a53271, 1997-06-27:
//! `Channel::contention` lines 120-130, `Channel::send` lines 95-116) a station that finds the
//! channel free opens a contention window of the channel delay; every station whose contention
//! starts before it closes transmits too, and all their frames collide. Under the default reading
//! only stations that start in the same instant collide.

use snooplab_proto::time::US;
use snooplab_sim::medium::{CsmaParams, WavelanParams};

use super::report::Report;
use super::tables::tables;
use super::testbed;
use crate::document::{Cell, Document, Row, Table};
use crate::readings::{claims_summary, claims_table, describe, value_names, Reading, Value};

/// The MAC constants of the cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mac {
    /// The ISA card's 82586 as the drivers program it and Kunz's slide (the model before readings).
    Isa82586,
    /// The Daedalus group's own ns-2 WaveLAN model.
    BerkeleyNs2,
}

impl Mac {
    /// Every value, the default first, in [`MAC`]'s order.
    pub const ALL: [Mac; 2] = [Mac::Isa82586, Mac::BerkeleyNs2];

    /// Its value in [`MAC`].
    pub fn value(self) -> &'static Value {
        &MAC.values[self as usize]
    }

    pub fn name(self) -> &'static str {
        self.value().name
    }

    /// The cell's CSMA/CA under this reading: the MAC constants it names, with the testbed's own
    /// framing and host turnaround ([`super::testbed::csma`]) under both.
    pub fn csma(self, cell: &WavelanParams) -> CsmaParams {
        match self {
            Mac::Isa82586 => testbed::csma(cell),
            Mac::BerkeleyNs2 => berkeley_ns2(cell),
        }
    }
}

/// The Daedalus group's WaveLAN constants in ns-2 (the ns-2 history as in the public repository
/// `Raj64742/ns2`): "# WaveLAN settings" in `tcl/lib/ns-shlink.tcl` lines 39-51, committed by Hari
/// Balakrishnan on 1997-04-29 (commit afcced5b), then `tcl/lan/ns-mac.tcl` lines 37-52 from
/// 1997-06-11 (commit ed12f78e) as "WaveLAN settings (also inherited by Csma/Ca, which is what
/// WaveLAN is)": `Mac/Csma set bandwidth_ 2Mb`, `ifs_ 16us`, `slotTime_ 16us`, `cwmin_ 16`,
/// `cwmax_ 1024`, `rtxLimit_ 16` (`rtxmax_` in the first commit), and `Channel set delay_ 4us`.
/// In `mac-csma.cc` (`CsmaMac::backoff`, commit 62a53271, lines 117-133) a station finding the channel
/// busy draws `Random::integer(cw_)` slots, `[0, cw)` as ours, doubles the window up to `cwmax_`,
/// and drops the frame when its 16th attempt finds the channel busy; no link-level ACK.
///
/// Taken as they are: IFS, slot, the windows, the attempts (the rate is already 2 Mb/s) and the
/// 4 us channel delay as the sense delay (`channel.cc` at 62a53271, `Channel::contention` lines
/// 120-130 and `Channel::send` lines 95-116: stations whose contention starts within the delay of
/// the first all transmit and collide; `CsmaParams::sense_delay`). Not taken: ns-2's `hlen_ 20` and MAC `delay_ 64us` (the testbed's framing and host turnaround come from the
/// drivers and paper 000's calibration, and stay under both readings), and ns-2's fixed wait of
/// IFS plus `cw_` slots after a station's own frame (`CsmaMac::resume`), where ours draws from
/// `post_tx_window`: with the testbed's host turnaround (1.5 ms for a full frame, 41 us for an
/// ACK) a station's next frame is never ready within the IFS, so that wait never applies.
pub fn berkeley_ns2(cell: &WavelanParams) -> CsmaParams {
    CsmaParams {
        ifs: 16 * US,
        slot: 16 * US,
        cw_min: 16,
        cw_max: 1024,
        max_attempts: 16,
        sense_delay: 4 * US,
        ..testbed::csma(cell)
    }
}

/// The MAC reading.
pub const MAC: Reading = Reading {
    name: "mac",
    question: "the WaveLAN's CSMA/CA constants; the paper names only \"a PC-Card of 2Mbps \
               WaveLAN\" (section 4.1)",
    values: &[
        Value {
            name: "isa-82586",
            sets: "IFS 16 us, slot 6 us, windows 32 to 256, 15 attempts",
            source: "the ISA card's 82586 as the Linux and FreeBSD drivers program it (cfg_ifs, \
                     cfg_slotl = 12 bit times) and Kunz's slide (0-31, doubling to 255, 15 \
                     attempts); docs/model.md",
        },
        Value {
            name: "berkeley-ns2",
            sets: "IFS 16 us, slot 16 us, windows 16 to 1024, 16 attempts, stations starting \
                   within 4 us of each other collide (its channel delay)",
            source:
                "the Daedalus group's ns-2 WaveLAN settings: tcl/lib/ns-shlink.tcl lines 39-51 \
                     (H. Balakrishnan, 1997-04-29, afcced5b), then tcl/lan/ns-mac.tcl lines 37-52 \
                     (ed12f78e); mac-csma.cc CsmaMac::backoff",
        },
    ],
    affects: "Figs. 15-19, the loss per segment and EFR's gain (every run)",
};

/// The readings section: the readings, the loss per segment and EFR's gain side by side, every
/// other value's Figs. 15-19 in full, and the claims under each.
pub(super) fn section(d: &mut Document, r: &Report) {
    describe(d, &[&MAC]);
    if r.readings.is_empty() {
        return;
    }
    let reports: Vec<&Report> = std::iter::once(r)
        .chain(r.readings.iter().map(|m| &m.report))
        .collect();
    let names: Vec<&str> = Mac::ALL
        .iter()
        .take(reports.len())
        .map(|m| m.name())
        .collect();
    if !r.loss.is_empty() {
        d.table(loss_by_mac(&names, &reports));
    }
    if !r.gains.is_empty() {
        d.table(gain_by_mac(&names, &reports));
    }
    for m in &r.readings {
        d.heading(format!("Figs. 15-19 under mac = {}", m.mac));
        tables(d, &m.report);
    }
    let claims: Vec<&[crate::claim::Claim]> = reports.iter().map(|x| x.claims.as_slice()).collect();
    let names = value_names(&MAC);
    d.table(claims_table(MAC.name, &names, &claims));
    d.text(format!(
        "What the evidence supports: {} {}",
        gain_and_loss_text(&names, &reports),
        claims_summary(&names, &claims)
    ));
}

/// EFR's gains and one host's loss per frame under each MAC reading, in one sentence.
fn gain_and_loss_text(names: &[String], reports: &[&Report]) -> String {
    let per_mac: Vec<String> = names
        .iter()
        .zip(reports)
        .map(|(n, r)| {
            let gains: Vec<String> = r
                .gains
                .iter()
                .map(|g| format!("{:+.1}%", g.gain_pct))
                .collect();
            let loss = r.loss.iter().find(|l| l.hosts == 1).map_or_else(
                || "-".to_string(),
                |l| format!("{:.1e}", l.segment_loss_rate),
            );
            format!(
                "under {n} EFR gains {} and one host loses {loss} of its frames",
                gains.join(", ")
            )
        })
        .collect();
    let paper_gains: Vec<String> = reports
        .first()
        .map(|r| {
            r.gains
                .iter()
                .map(|g| format!("{:+.1}%", g.paper_pct))
                .collect()
        })
        .unwrap_or_default();
    let paper_loss = reports
        .first()
        .and_then(|r| r.loss.iter().find(|l| l.hosts == 1))
        .and_then(|l| l.paper)
        .map_or_else(|| "-".to_string(), |p| format!("{p:.1e}"));
    format!(
        "{} (the paper: {} and {paper_loss}).",
        per_mac.join("; "),
        paper_gains.join(", ")
    )
}

/// Reno's loss per segment by number of hosts, a column per MAC reading.
fn loss_by_mac(names: &[&str], reports: &[&Report]) -> Table {
    let rows = reports[0]
        .loss
        .iter()
        .map(|l| {
            let mut cells = vec![Cell::from(l.hosts.to_string())];
            for x in reports {
                cells.push(Cell::from(
                    x.loss.iter().find(|y| y.hosts == l.hosts).map_or_else(
                        || "-".to_string(),
                        |y| {
                            let coll = y.collided_share.map_or_else(
                                || "n/a".to_string(),
                                |c| format!("{:.0}%", 100.0 * c),
                            );
                            format!("{:.2e} ({coll})", y.segment_loss_rate)
                        },
                    ),
                ));
            }
            cells.push(Cell::from(
                l.paper
                    .map_or_else(|| "-".to_string(), |p| format!("{p:.1e}")),
            ));
            Row::Cells(cells)
        })
        .collect();
    let mut columns = vec!["hosts".to_string()];
    columns.extend(names.iter().map(|n| format!("{n}: loss (collisions)")));
    columns.push("paper".into());
    Table {
        title: Some("Reno's loss per data frame under each MAC reading, 10 MB per host".into()),
        columns,
        rows,
    }
}

/// EFR's gain over Reno at 8 MB, a column per MAC reading.
fn gain_by_mac(names: &[&str], reports: &[&Report]) -> Table {
    let rows = reports[0]
        .gains
        .iter()
        .map(|g| {
            let mut cells = vec![Cell::from(g.hosts.to_string())];
            for x in reports {
                cells.push(Cell::from(
                    x.gains.iter().find(|y| y.hosts == g.hosts).map_or_else(
                        || "-".to_string(),
                        |y| {
                            let ci = y
                                .gain_ci95_pct
                                .map_or_else(|| "n/a".to_string(), |c| format!("{c:.1}"));
                            format!(
                                "{:+.1}% ± {ci} (Reno {:.3}, EFR {:.3})",
                                y.gain_pct, y.reno_mbps.mean, y.efr_mbps.mean
                            )
                        },
                    ),
                ));
            }
            cells.push(Cell::from(format!("{:+.1}%", g.paper_pct)));
            Row::Cells(cells)
        })
        .collect();
    let mut columns = vec!["hosts".to_string()];
    columns.extend(names.iter().map(|n| format!("{n}: EFR over Reno (Mb/s)")));
    columns.push("paper".into());
    Table {
        title: Some("EFR over Reno, 8 MB per host, under each MAC reading".into()),
        columns,
        rows,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_enum_follows_the_readings_values_and_berkeley_takes_ns2s_constants() {
        assert_eq!(Mac::ALL.len(), MAC.values.len());
        assert_eq!(Mac::Isa82586.name(), MAC.default_value().name);
        assert_eq!(Mac::BerkeleyNs2.name(), "berkeley-ns2");
        let cell = WavelanParams::default();
        assert_eq!(cell.rate_bps, 2_000_000, "ns-2's bandwidth_ 2Mb");
        assert_eq!(Mac::Isa82586.csma(&cell), testbed::csma(&cell));
        let b = Mac::BerkeleyNs2.csma(&cell);
        assert_eq!((b.ifs, b.slot), (16 * US, 16 * US));
        assert_eq!((b.cw_min, b.cw_max, b.max_attempts), (16, 1024, 16));
        // the testbed's framing and turnaround stay
        let isa = Mac::Isa82586.csma(&cell);
        assert_eq!(
            (b.load_ns_per_byte, b.framing),
            (isa.load_ns_per_byte, isa.framing)
        );
        assert_eq!(b.validate(cell.frame_overhead), Ok(()));
    }
}
