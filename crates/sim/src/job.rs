//! One run to make: a network and the label its results carry as their `env`. A scenario of the
//! default testbed and a paper's preset are both jobs, so one runner runs every experiment.

use crate::metrics::RunResult;
use crate::network::Network;
use crate::scenario::Scenario;

/// A network to run (its seed is the network's own) and the `env` label of its results.
#[derive(Clone, Debug)]
pub struct Job {
    pub network: Network,
    pub env: String,
}

impl Job {
    pub fn new(network: Network, env: impl Into<String>) -> Job {
        Job {
            network,
            env: env.into(),
        }
    }

    /// Runs the job to its end.
    pub fn run(&self) -> RunResult {
        crate::run::run_network(&self.network, &self.env)
    }
}

/// A scenario's network (its own, or the default testbed built from its settings), labelled with
/// its wired path as [`crate::run`] labels it.
impl From<&Scenario> for Job {
    fn from(sc: &Scenario) -> Job {
        Job::new(sc.network(), sc.env.name())
    }
}
