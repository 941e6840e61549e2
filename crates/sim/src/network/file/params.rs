//! A key of a `[[link]]` or `[[cell]]` table that replaces one number of the model the table
//! starts from (a link's `WiredParams`, a cell's `WavelanParams`), declared once as a
//! [`ParamKey`] row beside its table (`link.rs`, `cell.rs`): its name, its check, how it goes into
//! the model and how it is written back. `resolve.rs` reads every row when it checks a file and
//! applies them over the scenario's model, `write.rs` writes every row; neither names a key.

/// One key: read from a table `T`, applied to a model `P`.
pub(super) struct ParamKey<T, P> {
    /// As a file spells it.
    pub name: &'static str,
    /// The table's value, checked, as a number (the message names `what` and the key); `None`
    /// where the table leaves it to the model.
    pub read: fn(&T, &str) -> Result<Option<u64>, String>,
    /// Puts that number into the model.
    pub apply: fn(&mut P, u64),
    /// The model's value as the file writes it; refused (the message names `what` and the key)
    /// where the key cannot carry it exactly.
    pub write: fn(&P, &str) -> Result<String, String>,
}

/// The keys a table sets, each by its row in `keys` with its value, checked in the rows' order.
pub(super) fn read_keys<T, P>(
    keys: &[ParamKey<T, P>],
    table: &T,
    what: &str,
) -> Result<Vec<(usize, u64)>, String> {
    let mut set = Vec::new();
    for (i, k) in keys.iter().enumerate() {
        if let Some(v) = (k.read)(table, what)? {
            set.push((i, v));
        }
    }
    Ok(set)
}

/// The model with the keys a table set ([`read_keys`]) put into it.
pub(super) fn apply_keys<T, P>(keys: &[ParamKey<T, P>], set: &[(usize, u64)], model: &mut P) {
    for &(i, v) in set {
        if let Some(k) = keys.get(i) {
            (k.apply)(model, v);
        }
    }
}

/// Every key's `key = value` line for `model`, in the rows' order.
pub(super) fn write_keys<T, P>(
    keys: &[ParamKey<T, P>],
    model: &P,
    what: &str,
) -> Result<Vec<String>, String> {
    keys.iter()
        .map(|k| Ok(format!("{} = {}", k.name, (k.write)(model, what)?)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::cell::CELL_KEYS;
    use super::super::flow::FLOW_KEYS;
    use super::super::link::LINK_KEYS;
    use super::*;
    use crate::link::WiredParams;
    use crate::medium::WavelanParams;
    use crate::network::file::{CellTable, FlowTable, LinkTable};
    use crate::network::Flow;
    use crate::Env;

    fn table<T: serde::de::DeserializeOwned>(head: &str, lines: &[String]) -> T {
        toml::from_str(&format!("{head}\n{}", lines.join("\n"))).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Each row written from a model and read back over another model gives the first.
    #[test]
    fn every_link_cell_and_flow_key_written_reads_back_over_any_model() {
        let wired = WiredParams {
            rate_bps: 1_234_567,
            delay: 2_500_001,
            framing_bytes: 7,
            queue_packets: 11,
        };
        let lines = write_keys(&LINK_KEYS, &wired, "link").unwrap_or_else(|e| panic!("{e}"));
        let link: LinkTable = table("between = [\"a\", \"b\"]", &lines);
        let mut back = Env::Wan.wired();
        apply_keys(
            &LINK_KEYS,
            &read_keys(&LINK_KEYS, &link, "link").unwrap_or_else(|e| panic!("{e}")),
            &mut back,
        );
        assert_eq!(back, wired);

        let wavelan = WavelanParams {
            rate_bps: 5_500_000,
            frame_overhead: 123_000,
            queue_packets: 3,
        };
        let lines = write_keys(&CELL_KEYS, &wavelan, "cell").unwrap_or_else(|e| panic!("{e}"));
        let cell: CellTable = table("base-station = \"bs\"", &lines);
        let mut back = WavelanParams::default();
        apply_keys(
            &CELL_KEYS,
            &read_keys(&CELL_KEYS, &cell, "cell").unwrap_or_else(|e| panic!("{e}")),
            &mut back,
        );
        assert_eq!(back, wavelan);

        let base = crate::scenario::default_scenario().network().flows[0].clone();
        let flow = Flow {
            buffer: 8 * 1024 + 7,
            mss: 536,
            transfer: 1_000_001,
            start: 1_250_000_001,
            ..base.clone()
        };
        let lines = write_keys(&FLOW_KEYS, &flow, "flow").unwrap_or_else(|e| panic!("{e}"));
        let table: FlowTable = table("from = \"a\"\nto = \"b\"", &lines);
        let mut back = base;
        apply_keys(
            &FLOW_KEYS,
            &read_keys(&FLOW_KEYS, &table, "flow").unwrap_or_else(|e| panic!("{e}")),
            &mut back,
        );
        assert_eq!(back, flow);
    }

    #[test]
    fn a_value_a_key_cannot_carry_is_refused_naming_it() {
        let wavelan = WavelanParams {
            frame_overhead: 1_500,
            ..WavelanParams::default()
        };
        let e = write_keys(&CELL_KEYS, &wavelan, "cell 'c'").unwrap_err();
        assert!(e.starts_with("cell 'c': frame-overhead-us: "), "{e}");
    }
}
