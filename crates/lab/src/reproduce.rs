//! A paper's runs made on the parallel runner and its report as JSON, for the Python package and
//! the command line's `--json`. The papers themselves (their runs, numbers and claims, which words
//! name which of them) are in `snooplab-papers`.

use snooplab_papers::select::Selection;
use snooplab_papers::study::Common;

use crate::parallel::Runner;
use crate::Error;

/// A paper's report as `snooplab reproduce --json` prints it under the paper's name, its runs on
/// `runner`.
pub fn report_json(
    sel: &Selection,
    common: &Common,
    runner: &Runner,
) -> Result<serde_json::Value, Error> {
    let plan = sel.paper.plan(&sel.parts, common).map_err(Error::Invalid)?;
    let results = runner.run_jobs(&plan.jobs())?;
    plan.finish(results).json().map_err(Error::Invalid)
}
