//! Which agent the middlebox runs: a name a scenario file gives a node (`NODE_AGENTS`: router,
//! snoop-002, ...) or a protocol's (`snooplab protocols`: ll, ll-tcp-aware alias snoop, bs-eln,
//! bs-nack, e2e), made by the simulator's factory for agents that work on real packets
//! (`snooplab_sim::agents::forwarding_agent`), with the constants it gives them.

use snooplab_proto::agent::Agent;
use snooplab_sim::agents::forwarding_agent;
use snooplab_sim::packet::SimPacket;
use snooplab_sim::protocol::{AgentKind, Protocol, NODE_AGENTS};

/// The agent named `name`, or why it cannot run between two interfaces.
pub fn agent_named(name: &str) -> Result<Box<dyn Agent<SimPacket>>, String> {
    let kind = NODE_AGENTS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, k)| *k)
        .or_else(|| Protocol::parse(name).ok().map(Protocol::agent))
        .ok_or_else(|| format!("unknown agent '{name}' (the middlebox runs: {})", names()))?;
    if let AgentKind::Split { .. } = kind {
        return Err(format!(
            "agent '{name}' splits connections, and a split relay is made for one connection \
             known in advance, not for every connection that crosses an interface (issue 52 \
             item 1); the middlebox runs: {}",
            names()
        ));
    }
    forwarding_agent(kind).ok_or_else(|| format!("agent '{name}' does not run on real packets"))
}

/// The names [`agent_named`] takes.
pub fn names() -> String {
    let mut out: Vec<String> = Vec::new();
    for p in Protocol::ALL {
        let kind = p.agent();
        if matches!(kind, AgentKind::Split { .. }) || out.iter().any(|n| n == p.name()) {
            continue;
        }
        // one name per agent: the first protocol that has it
        if Protocol::ALL
            .into_iter()
            .take_while(|q| *q != p)
            .any(|q| q.agent() == kind)
        {
            continue;
        }
        out.push(match p.def().aliases {
            [] => p.name().to_string(),
            a => format!("{} ({})", p.name(), a.join(", ")),
        });
    }
    out.extend(NODE_AGENTS.iter().map(|(n, _)| n.to_string()));
    out.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snoop_and_the_node_agents_run_and_split_is_refused_in_one_line() {
        for name in [
            "snoop",
            "ll-tcp-aware",
            "ll",
            "e2e",
            "bs-eln",
            "bs-nack",
            "snoop-002",
        ] {
            assert!(agent_named(name).is_ok(), "{name}");
        }
        let e = agent_named("split").err().unwrap();
        assert!(e.contains("splits connections") && !e.contains('\n'), "{e}");
        assert!(agent_named("nope").err().unwrap().contains("snoop"));
    }
}
