//! Paper 000 itself: who it is for `reproduce`, and its numbers, from `data/paper-results.toml`
//! (transcribed from the paper), built into the binary so a reproduction needs no file at run
//! time.

use std::collections::BTreeMap;

use serde::Deserialize;
use snooplab_proto::tcp::HostPreset;

use crate::paper_results::PAPER_RESULTS;
use crate::study::About;

/// Who paper 000 is for `reproduce`: "10 runs" per configuration (section IV), BSD/OS 2.1 hosts
/// ("all running BSD/OS 2.1", section IV-A; docs/host-profiles.md).
pub const ABOUT: About = About {
    name: "paper000",
    citation: "Balakrishnan, Padmanabhan, Seshan and Katz, \"A Comparison of Mechanisms for \
               Improving TCP Performance over Wireless Links\" (1997)",
    default_seeds: 10,
    default_host: HostPreset::Bsdos21,
    parts: "table2, table3, table4, table5, fig12; ablation (alone, = --ablation)",
};

/// One cell of paper 000: throughput in Mb/s, wireless and wired goodput in percent.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
pub struct Cell {
    pub throughput: f64,
    pub wireless_goodput: f64,
    pub wired_goodput: f64,
}

#[derive(Debug, Deserialize)]
struct Raw {
    paper000: Raw000,
}

#[derive(Debug, Deserialize)]
struct Raw000 {
    table2: BTreeMap<String, BTreeMap<String, [f64; 3]>>,
    table3: BTreeMap<String, BTreeMap<String, [f64; 3]>>,
    table4: BTreeMap<String, BTreeMap<String, [f64; 3]>>,
    table5: RawTable5,
}

#[derive(Debug, Deserialize)]
struct RawTable5 {
    burst: Vec<u32>,
    #[serde(rename = "ll-tcp-aware")]
    ll_tcp_aware: Vec<f64>,
    #[serde(rename = "ll-smart-tcp-aware")]
    ll_smart_tcp_aware: Vec<f64>,
}

/// Paper 000's tables: (protocol name, config label such as "lan-32k") to cell.
#[derive(Clone, Debug)]
pub struct Paper000 {
    pub cells: BTreeMap<(String, String), Cell>,
    /// Table V: (protocol name, burst) to throughput.
    pub table5: BTreeMap<(String, u32), f64>,
}

impl Paper000 {
    /// Parses the built-in data; an error means the data file in the source tree is malformed.
    pub fn load() -> Result<Paper000, String> {
        let raw: Raw = toml::from_str(PAPER_RESULTS)
            .map_err(|e| format!("data/paper-results.toml: {}", e.message()))?;
        let mut cells = BTreeMap::new();
        for table in [
            &raw.paper000.table2,
            &raw.paper000.table3,
            &raw.paper000.table4,
        ] {
            for (proto, row) in table {
                for (cfg, v) in row {
                    cells.insert(
                        (proto.clone(), cfg.clone()),
                        Cell {
                            throughput: v[0],
                            wireless_goodput: v[1],
                            wired_goodput: v[2],
                        },
                    );
                }
            }
        }
        let t5 = &raw.paper000.table5;
        let mut table5 = BTreeMap::new();
        for (i, b) in t5.burst.iter().enumerate() {
            if let Some(v) = t5.ll_tcp_aware.get(i) {
                table5.insert(("ll-tcp-aware".to_string(), *b), *v);
            }
            if let Some(v) = t5.ll_smart_tcp_aware.get(i) {
                table5.insert(("ll-smart-tcp-aware".to_string(), *b), *v);
            }
        }
        Ok(Paper000 { cells, table5 })
    }

    pub fn cell(&self, protocol: &str, config: &str) -> Option<Cell> {
        self.cells
            .get(&(protocol.to_string(), config.to_string()))
            .copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_data_parses_and_has_the_tables() {
        let p = Paper000::load().expect("paper data");
        let c = p.cell("ll-tcp-aware", "lan-32k").expect("cell");
        assert_eq!(c.throughput, 1.36);
        assert_eq!(p.cell("e2e", "wan-32k").map(|c| c.throughput), Some(0.31));
        assert!(
            p.cell("e2e-smart", "wan-32k").is_none(),
            "not run in the WAN"
        );
        assert_eq!(
            p.table5.get(&("ll-smart-tcp-aware".to_string(), 6)),
            Some(&1.10)
        );
        assert_eq!(p.cells.len(), 4 * 3 + 6 * 3 - 1 + 2 * 3);
    }
}
