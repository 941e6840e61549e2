//! Fitting a two-state channel to a trace (`snooplab channel fit`): from the marks of lost and
//! received frames, or from bad periods in time, to the Gilbert-Elliott model's parameters, with the
//! quality of the fit (observed against fitted run lengths, chi-square, Kolmogorov-Smirnov).
//!
//! The method is the run-length fit of the simple Gilbert model (Gilbert 1960, "Capacity of a
//! burst-noise channel", Bell Syst. Tech. J. 39: a two-state Markov chain, every frame lost in the
//! bad state and none in the good one). Its state is visible in the marks (a lost frame is a bad
//! sample), so the chain is fitted by maximum likelihood in closed form: a state's per-frame
//! probability of leaving is one over its mean run length. The lengths of error and error-free
//! runs are what Nguyen, Katz, Noble and Satyanarayanan analyse to model the WaveLAN ("A
//! trace-based approach for modeling wireless channel behavior", Winter Simulation Conference
//! 1996), who found that such a chain is a poor fit there: so every fit shows how well the
//! lengths match the geometric distribution the chain implies. A model whose good state also loses
//! frames (or bad state passes some) has a hidden state and needs Baum-Welch (an HMM fit); that is
//! not implemented (docs/channels.md says why).
//!
//! The discrete chain, sampled once per frame `gap` apart, is then the continuous-time chain of
//! [`GilbertElliott`](super::GilbertElliott) sampled at that gap: for rates `a = 1/good-time` and
//! `b = 1/bad-time`, `P(good -> bad) = a/(a+b) (1 - e^-(a+b)gap)` and
//! `P(bad -> good) = b/(a+b) (1 - e^-(a+b)gap)`, solved for `a` and `b`.

mod goodness;
mod runs;

pub use goodness::Bin;
pub(crate) use goodness::MIN_EXPECTED;
pub use goodness::{ChiSquare, Goodness};
pub(crate) use runs::{frame_runs, time_runs, Lengths};

use serde::Serialize;
use snooplab_proto::time::US;
use snooplab_proto::Time;

use super::{ChannelSpec, GilbertElliottParams, Marks};

/// The smallest `bad-every` the model takes (bytes between bit errors,
/// [`GilbertElliottParams::validate`]): a fitted bad state loses frames at this rate, as nearly
/// every frame as the model can.
pub(crate) const BAD_EVERY: u64 = 64;

/// Below this many runs of a kind, the fit says its means are rough (a mean of `n` runs has a
/// relative standard error of about `1/sqrt(n)` or less: 18% at 30).
pub(crate) const FEW_RUNS: u64 = 30;

/// The frames a frame trace stands for: their size (for the model's per-frame loss) and the time
/// from one to the next (on which the model's state runs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Frames {
    pub bytes: u32,
    #[serde(rename = "gap_ns")]
    pub gap: Time,
}

/// What the fit found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Fit {
    pub source: String,
    /// `frames` or `time`.
    pub form: &'static str,
    pub method: &'static str,
    pub frames: Frames,
    /// Frames in the trace (frame form) or bad periods (time form).
    pub samples: u64,
    /// The trace's share of frames lost (frame form) or of time bad (time form).
    pub trace_loss: f64,
    /// The fitted model's long-run share of frames of `frames.bytes` lost.
    pub model_loss: f64,
    /// The fitted model, as `--down` and `--up` take it.
    pub model: String,
    /// The fitted parameters (none when the losses look independent and the model is exponential).
    pub params: Option<Params>,
    pub bad: State,
    pub good: State,
    pub notes: Vec<String>,
}

/// The fitted Gilbert-Elliott parameters, in plain units.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Params {
    pub good_every: u64,
    pub bad_every: u64,
    pub good_time_s: f64,
    pub bad_time_s: f64,
}

/// One state as the trace shows it and as the model has it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct State {
    /// Complete runs (frame form) or periods (time form) seen.
    pub runs: u64,
    /// `frames` or `s`: the unit of the run lengths (means and bins).
    pub unit: &'static str,
    /// The trace's mean run.
    pub mean_run: f64,
    /// The model's mean run.
    pub model_mean_run: f64,
    /// The model's probability of leaving the state from one frame to the next (frame form).
    pub leave_per_frame: Option<f64>,
    /// The model's probability of losing a frame in this state.
    pub loss: f64,
    /// The observed lengths against the model's (geometric in frames, exponential in time).
    pub lengths: Goodness,
}

/// Fits a parsed trace.
pub fn fit(trace: &super::ChannelTrace, frames: Frames) -> Result<Fit, String> {
    match &trace.marks {
        Marks::Frames { lost, repeat } => {
            let mut f = fit_frames(lost, frames, &trace.source)?;
            if *repeat {
                f.notes
                    .push("the trace repeats: fitted over one pass of its marks".into());
            }
            Ok(f)
        }
        Marks::Times { bad } => fit_times(bad, frames, &trace.source),
    }
}

/// The model's parameters for a two-state chain sampled every `gap` ns with per-sample leaving
/// probabilities `p` (good to bad) and `r` (bad to good); none when `p + r >= 1` (no
/// continuous-time chain samples to that: the losses are not positively correlated).
pub fn continuous(p: f64, r: f64, gap: Time) -> Option<(f64, f64)> {
    let c = 1.0 - p - r;
    if !(c > 0.0 && p > 0.0 && r > 0.0) {
        return None;
    }
    // a + b = -ln(c) / gap; a / (a + b) = p / (p + r)
    let sum = -c.ln() / gap as f64;
    let a = p / (p + r) * sum;
    let b = r / (p + r) * sum;
    Some((1.0 / a, 1.0 / b))
}

/// A time in ns rounded to the microsecond (the model's times are no finer than its 1 us floor).
fn to_us(ns: f64) -> Time {
    if !ns.is_finite() || ns >= u64::MAX as f64 {
        return Time::MAX;
    }
    ((ns / US as f64).round() as Time).saturating_mul(US)
}

fn validate(p: GilbertElliottParams) -> Result<GilbertElliottParams, String> {
    p.validate()
        .map_err(|e| format!("the fitted model is outside what the model holds: {e}"))?;
    Ok(p)
}

fn model_string(spec: &ChannelSpec) -> String {
    match spec {
        ChannelSpec::GilbertElliott(p) => format!(
            "gilbert-elliott:good-every={},bad-every={},good-time={},bad-time={}",
            p.good_every,
            p.bad_every,
            snooplab_proto::duration::format_duration(p.good_time),
            snooplab_proto::duration::format_duration(p.bad_time)
        ),
        ChannelSpec::Exponential { mean_bytes, .. } => format!("exponential:every={mean_bytes}"),
        other => other.label(),
    }
}

fn params(p: &GilbertElliottParams) -> Params {
    Params {
        good_every: p.good_every,
        bad_every: p.bad_every,
        good_time_s: p.good_time as f64 / 1e9,
        bad_time_s: p.bad_time as f64 / 1e9,
    }
}

/// Bin edges for run lengths in frames: 1, 2, 3, 4, then doubling (5, 9, 17, ...), up to `max`;
/// the last bin is open.
fn frame_edges(max: u64) -> Vec<f64> {
    let mut edges = vec![1.0];
    let mut next = 2u64;
    while next <= max {
        edges.push(next as f64);
        next = if next < 5 { next + 1 } else { 2 * next - 1 };
    }
    edges
}

/// The run length past which `n` geometric runs leaving with probability `q` per frame expect
/// fewer than [`MIN_EXPECTED`]: the bins reach at least that far, so that runs all shorter than
/// the model's (a trace of single losses) leave the model's longer ones to be counted against it.
fn geometric_reach(q: f64, n: u64) -> u64 {
    let x = 1.0 + (MIN_EXPECTED / n as f64).ln() / (1.0 - q).ln();
    if x.is_finite() && x > 1.0 {
        // bounded: the bins double, so even a huge reach adds a few dozen edges
        x.min(1e15) as u64
    } else {
        1
    }
}

/// The Kolmogorov-Smirnov distance between run lengths in frames and the geometric distribution
/// leaving with probability `q` per frame: checked at each length seen and just before it (the
/// observed distribution is flat between them, the fitted one rises).
fn ks_geometric(l: &Lengths, q: f64) -> f64 {
    let n = l.count() as f64;
    let cdf = |k: u64| 1.0 - (1.0 - q).powf(k as f64);
    let (mut cum, mut d) = (0u64, 0.0f64);
    for (&k, &c) in &l.0 {
        d = d.max((cum as f64 / n - cdf(k - 1)).abs());
        cum += c;
        d = d.max((cum as f64 / n - cdf(k)).abs());
    }
    d
}

/// The Kolmogorov-Smirnov distance between lengths in ns and the exponential of mean `m` ns.
fn ks_exponential(l: &Lengths, m: f64) -> f64 {
    let n = l.count() as f64;
    let cdf = |x: u64| 1.0 - (-(x as f64) / m).exp();
    let (mut cum, mut d) = (0u64, 0.0f64);
    for (&x, &c) in &l.0 {
        let f = cdf(x);
        d = d.max(f - cum as f64 / n);
        cum += c;
        d = d.max(cum as f64 / n - f);
    }
    d
}

/// Bins judged in ns, bounded in seconds: the unit the state's lengths are given in.
fn in_seconds(mut g: Goodness) -> Goodness {
    for b in &mut g.bins {
        b.low /= 1e9;
        b.high = b.high.map(|h| h / 1e9);
    }
    g
}

fn few_runs(notes: &mut Vec<String>, what: &str, n: u64) {
    if n < FEW_RUNS {
        notes.push(format!(
            "only {n} {what}: its mean is rough (relative standard error up to 1/sqrt({n}))"
        ));
    }
}

/// Fits per-frame marks.
pub fn fit_frames(lost: &[bool], frames: Frames, source: &str) -> Result<Fit, String> {
    let n = lost.len() as u64;
    let n_lost = lost.iter().filter(|&&l| l).count() as u64;
    if n_lost == 0 {
        return Err(format!(
            "{source}: no frame is lost: nothing to fit (the channel is `none`)"
        ));
    }
    if n_lost == n {
        return Err(format!(
            "{source}: every frame is lost: nothing to fit (no model of snooplab loses every frame)"
        ));
    }
    let (losses, successes) = frame_runs(lost);
    if losses.count() == 0 || successes.count() == 0 {
        return Err(format!(
            "{source}: too few runs to fit: need at least one whole run of lost frames and one of \
             received frames between the trace's first run and its last (which the trace's ends cut)"
        ));
    }
    let trace_loss = n_lost as f64 / n as f64;
    let (r, p) = (1.0 / losses.mean(), 1.0 / successes.mean());
    let mut notes = Vec::new();
    few_runs(&mut notes, "loss runs", losses.count());
    few_runs(&mut notes, "runs of received frames", successes.count());

    let (spec, q_bad, q_good, loss_bad) = match continuous(p, r, frames.gap) {
        Some((good, bad)) => {
            let ge = validate(GilbertElliottParams {
                good_every: 0,
                bad_every: BAD_EVERY,
                good_time: to_us(good),
                bad_time: to_us(bad),
            })?;
            let q_bad = 1.0 - ge.stay_bad(frames.gap);
            // P(good -> bad) = pi_bad / pi_good * P(bad -> good), the chain being reversible
            let pi_bad = ge.bad_share();
            let q_good = q_bad * pi_bad / (1.0 - pi_bad);
            let loss_bad = GilbertElliottParams::frame_loss(BAD_EVERY, frames.bytes);
            if loss_bad < 0.999 {
                notes.push(format!(
                    "in the model's bad state a frame of {} bytes is lost with probability {:.3}, \
                     not 1 (its bit errors fall at most one every {BAD_EVERY} bytes): the model \
                     loses fewer of them than the trace",
                    frames.bytes, loss_bad
                ));
            }
            (ChannelSpec::GilbertElliott(ge), q_bad, q_good, loss_bad)
        }
        None => {
            // frames lost independently with the trace's loss rate: an exponential bit-error
            // model whose frame loss 1 - exp(-bytes/every) is that rate
            let every = (-f64::from(frames.bytes) / (1.0 - trace_loss).ln()).round();
            let spec = ChannelSpec::every(every as u64, 1);
            spec.validate().map_err(|e| {
                format!(
                    "{source}: the losses look independent (a loss makes the next no likelier), \
                     and at {:.2}% of {}-byte frames they need an exponential model outside what \
                     it holds: {e}",
                    trace_loss * 100.0,
                    frames.bytes
                )
            })?;
            notes.push(
                "the losses are not positively correlated (P(good->bad) + P(bad->good) >= 1 per \
                 frame): no two-state chain with memory samples to that, so the model is \
                 independent losses (exponential)"
                    .into(),
            );
            let loss = GilbertElliottParams::frame_loss(every as u64, frames.bytes);
            (spec, 1.0 - loss, loss, loss)
        }
    };
    let model_loss = match &spec {
        ChannelSpec::GilbertElliott(ge) => ge.loss_rate(frames.bytes),
        _ => loss_bad,
    };
    let state = |l: &Lengths, q: f64, mean: f64, loss: f64| State {
        runs: l.count(),
        unit: "frames",
        mean_run: mean,
        model_mean_run: 1.0 / q,
        leave_per_frame: Some(q),
        loss,
        lengths: goodness::judge(
            &frame_edges(l.max().max(geometric_reach(q, l.count()))),
            l.count(),
            |lo, hi| l.count_in(lo as u64, hi.map(|h| h as u64)),
            |x| (1.0 - q).powf(x - 1.0),
            ks_geometric(l, q),
        ),
    };
    let good_loss = match &spec {
        ChannelSpec::GilbertElliott(_) => 0.0,
        _ => loss_bad,
    };
    Ok(Fit {
        source: source.to_string(),
        form: "frames",
        method: "run lengths: the simple Gilbert chain (lost = bad), fitted by maximum likelihood \
                 (a state's per-frame leaving probability is one over its mean run), sampled \
                 every frame gap",
        frames,
        samples: n,
        trace_loss,
        model_loss,
        model: model_string(&spec),
        params: match &spec {
            ChannelSpec::GilbertElliott(ge) => Some(params(ge)),
            _ => None,
        },
        bad: state(&losses, q_bad, losses.mean(), loss_bad),
        good: state(&successes, q_good, successes.mean(), good_loss),
        notes,
    })
}

/// Fits bad periods in time: each state's mean sojourn is its periods' mean (the exponential's
/// maximum-likelihood estimate); every frame starting in a bad period is lost, as the trace says.
pub fn fit_times(bad: &[(Time, Time)], frames: Frames, source: &str) -> Result<Fit, String> {
    let (bads, goods) = time_runs(bad);
    if bads.count() == 0 || goods.count() == 0 {
        return Err(format!(
            "{source}: too few periods to fit: need at least one bad period after time 0 and one \
             good gap between two bad periods"
        ));
    }
    let span = bad.last().map_or(0, |&(_, e)| e);
    let bad_total: u128 = bad.iter().map(|&(s, e)| u128::from(e - s)).sum();
    let trace_loss = bad_total as f64 / span as f64;
    let ge = validate(GilbertElliottParams {
        good_every: 0,
        bad_every: BAD_EVERY,
        good_time: to_us(goods.mean()),
        bad_time: to_us(bads.mean()),
    })?;
    let mut notes = Vec::new();
    few_runs(&mut notes, "bad periods", bads.count());
    few_runs(&mut notes, "good gaps", goods.count());
    let loss_bad = GilbertElliottParams::frame_loss(BAD_EVERY, frames.bytes);
    let state = |l: &Lengths, mean_ns: Time, loss: f64| {
        let m = mean_ns as f64;
        let edges: Vec<f64> = [0.0, 0.25, 0.5, 1.0, 2.0, 4.0]
            .iter()
            .map(|k| k * m)
            .collect();
        State {
            runs: l.count(),
            unit: "s",
            mean_run: l.mean() / 1e9,
            model_mean_run: m / 1e9,
            leave_per_frame: None,
            loss,
            lengths: in_seconds(goodness::judge(
                &edges,
                l.count(),
                |lo, hi| l.count_in(lo.ceil() as u64, hi.map(|h| h.ceil() as u64)),
                |x| (-x / m).exp(),
                ks_exponential(l, m),
            )),
        }
    };
    Ok(Fit {
        source: source.to_string(),
        form: "time",
        method: "period lengths: each state's mean sojourn is the mean of its periods (the \
                 exponential's maximum-likelihood estimate)",
        frames,
        samples: bad.len() as u64,
        trace_loss,
        model_loss: ge.loss_rate(frames.bytes),
        model: model_string(&ChannelSpec::GilbertElliott(ge)),
        params: Some(params(&ge)),
        bad: state(&bads, ge.bad_time, loss_bad),
        good: state(&goods, ge.good_time, 0.0),
        notes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const MS: Time = 1_000_000;

    #[test]
    fn continuous_inverts_the_sampled_chain() {
        let ge = GilbertElliottParams {
            good_every: 0,
            bad_every: 64,
            good_time: 1_000 * MS,
            bad_time: 50 * MS,
        };
        let gap = 6 * MS;
        let r = 1.0 - ge.stay_bad(gap);
        let p = r * ge.bad_share() / (1.0 - ge.bad_share());
        let (good, bad) = continuous(p, r, gap).unwrap();
        assert!((good / 1e9 - 1.0).abs() < 1e-9, "{good}");
        assert!((bad / 5e7 - 1.0).abs() < 1e-9, "{bad}");
        assert_eq!(continuous(0.5, 0.5, gap), None);
        assert_eq!(continuous(0.0, 0.5, gap), None);
    }

    #[test]
    fn edges_double_past_four() {
        assert_eq!(frame_edges(1), [1.0]);
        assert_eq!(frame_edges(4), [1.0, 2.0, 3.0, 4.0]);
        assert_eq!(frame_edges(20), [1.0, 2.0, 3.0, 4.0, 5.0, 9.0, 17.0]);
    }

    #[test]
    fn alternating_losses_are_independent_and_not_geometric() {
        // 0101...: every run is one frame long, P(g->b) = P(b->g) = 1
        let lost: Vec<bool> = (0..2000).map(|i| i % 2 == 1).collect();
        let f = fit_frames(
            &lost,
            Frames {
                bytes: 1440,
                gap: 6 * MS,
            },
            "t",
        );
        let f = f.unwrap();
        assert_eq!(
            f.model, "exponential:every=2077",
            "1 - exp(-1440/2077) = 0.5"
        );
        assert!(f.params.is_none());
        // but the runs are all one frame long, not geometric: the fit says so
        for s in [&f.bad, &f.good] {
            assert_eq!(s.lengths.fits, Some(false), "{:?}", s.lengths);
            assert!((s.lengths.ks_distance - 0.5).abs() < 0.01);
        }
    }

    proptest! {
        /// Whatever the marks, the fit either refuses with a message naming the trace or gives a
        /// model the command line reads back, a loss rate in [0, 1] and bins that keep every run.
        #[test]
        fn any_marks_fit_or_say_why(lost in proptest::collection::vec(any::<bool>(), 0..600),
                                     gap_us in 1u64..100_000, bytes in 40u32..2000) {
            let frames = Frames { bytes, gap: gap_us * US };
            match fit_frames(&lost, frames, "t") {
                Err(e) => prop_assert!(e.starts_with("t: ") || e.starts_with("the fitted"), "{}", e),
                Ok(f) => {
                    prop_assert!((0.0..=1.0).contains(&f.trace_loss));
                    prop_assert!((0.0..=1.0).contains(&f.model_loss));
                    let spec = crate::network::file::ChannelTable::from_flag(&f.model)
                        .and_then(|t| t.spec("down"));
                    prop_assert!(spec.is_ok(), "{}: {:?}", f.model, spec);
                    for s in [&f.bad, &f.good] {
                        let kept: u64 = s.lengths.bins.iter().map(|b| b.observed).sum();
                        prop_assert_eq!(kept, s.runs);
                        prop_assert!((0.0..=1.0).contains(&s.lengths.ks_distance));
                    }
                }
            }
        }
    }
}
