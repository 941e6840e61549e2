//! What paper 000 runs: its parts (Tables II-V, Fig. 12), each a table of rows by protocols,
//! and every configuration they need, a scenario on the simulator's default network.

use serde::Serialize;
use snooplab_sim::scenario::{Env, Scenario};
use snooplab_sim::size::format_size;
use snooplab_sim::Protocol;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Part {
    Table2,
    Table3,
    Table4,
    Table5,
    Fig12,
}

impl Part {
    pub const ALL: [Part; 5] = [
        Part::Table2,
        Part::Table3,
        Part::Table4,
        Part::Table5,
        Part::Fig12,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Part::Table2 => "table2",
            Part::Table3 => "table3",
            Part::Table4 => "table4",
            Part::Table5 => "table5",
            Part::Fig12 => "fig12",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            Part::Table2 => "Table II: link-layer schemes, 1 error / 64 KB",
            Part::Table3 => "Table III: end-to-end schemes, 1 error / 64 KB",
            Part::Table4 => "Table IV: split-connection schemes, 1 error / 64 KB",
            Part::Table5 => {
                "Table V: burst errors (LAN, 32 KB), one event / 64 KB destroying k packets"
            }
            Part::Fig12 => "Fig. 12: LAN (32 KB) across error rates, throughput in Mb/s",
        }
    }

    pub fn parse(s: &str) -> Result<Vec<Part>, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "all" => Ok(Part::ALL.to_vec()),
            other => Part::ALL
                .iter()
                .copied()
                .find(|p| p.name() == other)
                .map(|p| vec![p])
                .ok_or_else(|| {
                    format!(
                        "unknown part '{s}' (known: table2, table3, table4, table5, fig12, all; \
                         or ablation, alone)"
                    )
                }),
        }
    }

    /// The protocols that are the table's columns, in the paper's order.
    pub fn protocols(self) -> Vec<Protocol> {
        match self {
            Part::Table2 => vec![
                Protocol::Ll,
                Protocol::LlTcpAware,
                Protocol::LlSmart,
                Protocol::LlSmartTcpAware,
            ],
            Part::Table3 => vec![
                Protocol::E2e,
                Protocol::E2eNewReno,
                Protocol::E2eSmart,
                Protocol::E2eIetfSack,
                Protocol::E2eEln,
                Protocol::E2eElnRxmt,
            ],
            Part::Table4 => vec![Protocol::Split, Protocol::SplitSmart],
            Part::Table5 => vec![Protocol::LlTcpAware, Protocol::LlSmartTcpAware],
            Part::Fig12 => vec![
                Protocol::E2e,
                Protocol::LlTcpAware,
                Protocol::LlSmartTcpAware,
                Protocol::E2eSmart,
                Protocol::E2eIetfSack,
                Protocol::SplitSmart,
            ],
        }
    }

    /// The rows: a label and the scenario for `protocol` in that row (seed left at 1).
    pub fn rows(self) -> Vec<(String, RowScenario)> {
        fn lan8(p: Protocol) -> Scenario {
            Scenario::paper000(p, Env::Lan, 8192, 1)
        }
        fn lan32(p: Protocol) -> Scenario {
            Scenario::paper000(p, Env::Lan, 32768, 1)
        }
        fn wan32(p: Protocol) -> Scenario {
            Scenario::paper000(p, Env::Wan, 32768, 1)
        }
        fn burst(k: u32) -> impl Fn(Protocol) -> Scenario {
            move |p| Scenario {
                burst: k,
                ..lan32(p)
            }
        }
        fn errors(n: u64) -> impl Fn(Protocol) -> Scenario {
            move |p| Scenario {
                error_every: n,
                ..lan32(p)
            }
        }
        match self {
            Part::Table2 | Part::Table3 | Part::Table4 => vec![
                ("lan-8k".into(), lan8 as RowScenario),
                ("lan-32k".into(), lan32),
                ("wan-32k".into(), wan32),
            ],
            Part::Table5 => vec![
                ("burst 2".into(), |p| burst(2)(p)),
                ("burst 4".into(), |p| burst(4)(p)),
                ("burst 6".into(), |p| burst(6)(p)),
            ],
            Part::Fig12 => vec![
                (format!("1/{}", format_size(16384)), |p| errors(16384)(p)),
                (format!("1/{}", format_size(32768)), |p| errors(32768)(p)),
                (format!("1/{}", format_size(65536)), |p| errors(65536)(p)),
                (format!("1/{}", format_size(131072)), |p| errors(131072)(p)),
                (format!("1/{}", format_size(262144)), |p| errors(262144)(p)),
            ],
        }
    }
}

/// Makes a row's scenario for a protocol.
pub type RowScenario = fn(Protocol) -> Scenario;

/// One configuration to run with every seed.
#[derive(Clone, Debug)]
pub struct Experiment {
    pub part: Part,
    pub row: String,
    pub protocol: Protocol,
    pub scenario: Scenario,
}

/// Every configuration of the chosen parts, in a fixed order. E2E-SMART was not run in the WAN.
pub fn experiments(parts: &[Part]) -> Vec<Experiment> {
    let mut out = vec![];
    for &part in parts {
        for (row, make) in part.rows() {
            for p in part.protocols() {
                if part == Part::Table3 && p == Protocol::E2eSmart && row.starts_with("wan") {
                    continue;
                }
                out.push(Experiment {
                    part,
                    row: row.clone(),
                    protocol: p,
                    scenario: make(p),
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::paper000::data::Paper000;

    #[test]
    fn every_paper_cell_has_an_experiment() {
        let exps = experiments(&Part::ALL);
        let paper = Paper000::load().expect("paper data");
        for (proto, cfg) in paper.cells.keys() {
            assert!(
                exps.iter()
                    .any(|e| e.protocol.name() == proto && &e.row == cfg && e.part != Part::Fig12),
                "{proto} {cfg}"
            );
        }
        assert!(!exps
            .iter()
            .any(|e| e.protocol == Protocol::E2eSmart && e.row == "wan-32k"));
        assert_eq!(exps.iter().filter(|e| e.part == Part::Fig12).count(), 30);
    }

    #[test]
    fn parts_parse() {
        assert_eq!(Part::parse("all").map(|v| v.len()), Ok(5));
        assert_eq!(Part::parse("Table3"), Ok(vec![Part::Table3]));
        assert!(Part::parse("table9").is_err());
    }
}
