//! A paper's runs made on the parallel runner and its report as JSON, for the Python package and
//! the command line's `--json`. The papers themselves (their runs, numbers and claims, which words
//! name which of them) are in `snooplab-papers`.

use snooplab_papers::paper000::Plan000;
use snooplab_papers::paper001::Plan001;
use snooplab_papers::paper002::Plan002;
use snooplab_papers::paper004::Plan004;
use snooplab_papers::select::{Common, Selection};
use snooplab_papers::Paper;

use crate::parallel::Runner;
use crate::Error;

/// A paper's report as `snooplab reproduce --json` prints it under the paper's name, its runs on
/// `runner`.
pub fn report_json(
    sel: &Selection,
    common: &Common,
    runner: &Runner,
) -> Result<serde_json::Value, Error> {
    let encode = |r: Result<serde_json::Value, serde_json::Error>| {
        r.map_err(|e| Error::Invalid(format!("cannot encode report: {e}")))
    };
    match sel.paper {
        Paper::Paper000 => {
            let plan = Plan000::new(&sel.parts, common).map_err(Error::Invalid)?;
            let results = runner.run_jobs(&plan.jobs())?;
            encode(serde_json::to_value(plan.finish(&results).report))
        }
        Paper::Paper001 => {
            let plan = Plan001::new(&sel.parts, common).map_err(Error::Invalid)?;
            let results = runner.run_jobs(&plan.jobs())?;
            encode(serde_json::to_value(plan.finish(&results).report))
        }
        Paper::Paper002 => {
            let plan = Plan002::new(&sel.parts, common).map_err(Error::Invalid)?;
            let results = runner.run_jobs(&plan.jobs())?;
            encode(serde_json::to_value(plan.finish(results).report))
        }
        Paper::Paper004 => {
            let plan = Plan004::new(&sel.parts, common).map_err(Error::Invalid)?;
            let results = runner.run_jobs(&plan.jobs())?;
            encode(serde_json::to_value(plan.finish(results).report))
        }
    }
}
