//! Tests of `protocol.rs`.
use super::*;

#[test]
fn every_agent_has_a_name_a_file_reads_back() {
    let agents = DEFS
        .iter()
        .map(|d| d.agent)
        .chain(NODE_AGENTS.iter().map(|(_, a)| *a));
    for a in agents {
        let name = a.file_name().unwrap_or_else(|| panic!("{a:?} has no name"));
        let back = NODE_AGENTS
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, k)| *k)
            .or_else(|| Protocol::parse(name).ok().map(Protocol::agent));
        assert_eq!(back, Some(a), "{name}");
    }
}

#[test]
fn the_live_modes_protocols_change_only_the_base_station() {
    let live: Vec<&str> = Protocol::ALL
        .into_iter()
        .filter(|p| p.runs_between_kernels())
        .map(Protocol::name)
        .collect();
    assert_eq!(
        live,
        [
            "e2e",
            "ll",
            "ll-tcp-aware",
            "ll-smart-tcp-aware",
            "split",
            "split-smart",
            "snoop-sack-vl",
            "snoop-sack"
        ]
    );
    // each sends as Reno, as a kernel's reno does
    for p in Protocol::ALL
        .into_iter()
        .filter(|p| p.runs_between_kernels())
    {
        assert_eq!(p.def().sender, RecoveryPolicy::RENO, "{}", p.name());
    }
    assert_eq!(Protocol::parse("plain"), Ok(Protocol::E2e));
}

#[test]
fn names_round_trip_and_are_unique() {
    for p in Protocol::ALL {
        assert_eq!(Protocol::parse(p.name()), Ok(p));
    }
    let mut names: Vec<_> = Protocol::ALL.iter().map(|p| p.name()).collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), Protocol::ALL.len());
    assert!(Protocol::parse("vegas")
        .unwrap_err()
        .contains("unknown protocol 'vegas'"));
}

#[test]
fn the_table_is_in_all_order_and_its_names_are_the_serde_names() {
    for (i, p) in Protocol::ALL.into_iter().enumerate() {
        assert_eq!(DEFS[i].protocol, p);
        assert_eq!(
            serde_json::to_string(&p).unwrap(),
            format!("\"{}\"", p.name())
        );
    }
    for (alias, p) in [
        ("reno", Protocol::E2e),
        ("snoop", Protocol::LlTcpAware),
        ("Limited-Transmit", Protocol::LimitedTransmit),
    ] {
        assert_eq!(Protocol::parse(alias), Ok(p));
    }
}
