//! The channel fit (`sim::channel::fit`) on traces drawn from the project's own Gilbert-Elliott
//! model with fixed seeds: it must give back the parameters they were drawn with, within
//! tolerances that follow from the number of runs in the trace (four standard errors), not tuned
//! to the draw; and it must say so when the lengths are not what a two-state chain gives.

use snooplab_proto::Time;
use snooplab_sim::channel::fit::{self, continuous, Frames};
use snooplab_sim::channel::{generate, GilbertElliottParams, Marks};

const MS: Time = 1_000_000;
const US: f64 = 1_000.0;

/// Standard errors allowed: a mean outside four of them happens with probability 6e-5.
const Z: f64 = 4.0;

fn truth() -> GilbertElliottParams {
    GilbertElliottParams {
        good_every: 0,
        // at 1440 bytes a bad-state frame is lost with probability 1 - 2e-10: loss runs are the
        // bad state's runs
        bad_every: 64,
        good_time: 300 * MS,
        bad_time: 30 * MS,
    }
}

#[test]
fn frame_traces_give_back_the_chain_they_came_from() {
    let ge = truth();
    let gap = 6 * MS;
    let frames = Frames { bytes: 1440, gap };
    let trace = generate::gilbert_elliott_frames(ge, 11, 1_000_000, 1440, gap, false);
    let f = fit::fit(&trace, frames).unwrap();

    // the true chain, sampled every gap: per-frame leaving probabilities and mean runs
    let r = 1.0 - ge.stay_bad(gap);
    let p = r * ge.bad_share() / (1.0 - ge.bad_share());
    let (n_bad, n_good) = (f.bad.runs as f64, f.good.runs as f64);
    // a geometric run leaving with probability q has mean 1/q and standard deviation sqrt(1-q)/q
    let se = |q: f64, n: f64| (1.0 - q).sqrt() / q / n.sqrt();
    let (se_bad, se_good) = (se(r, n_bad), se(p, n_good));
    assert!(
        (f.bad.mean_run - 1.0 / r).abs() < Z * se_bad,
        "mean loss run {} vs {} (se {se_bad})",
        f.bad.mean_run,
        1.0 / r
    );
    assert!(
        (f.good.mean_run - 1.0 / p).abs() < Z * se_good,
        "mean good run {} vs {} (se {se_good})",
        f.good.mean_run,
        1.0 / p
    );

    // the times: the fit maps the mean runs to them, so they lie where the box of mean runs
    // within four standard errors maps (each time is monotone in each mean run), widened by the
    // microsecond the fit rounds to
    let mut lo = (f64::MAX, f64::MAX);
    let mut hi = (0.0f64, 0.0f64);
    for mb in [1.0 / r - Z * se_bad, 1.0 / r + Z * se_bad] {
        for mg in [1.0 / p - Z * se_good, 1.0 / p + Z * se_good] {
            let (g, b) = continuous(1.0 / mg, 1.0 / mb, gap).unwrap();
            lo = (lo.0.min(g), lo.1.min(b));
            hi = (hi.0.max(g), hi.1.max(b));
        }
    }
    let params = f.params.unwrap();
    let (good, bad) = (params.good_time_s * 1e9, params.bad_time_s * 1e9);
    assert!(
        (lo.0 - US..=hi.0 + US).contains(&good),
        "good-time {good} ns outside [{}, {}]",
        lo.0,
        hi.0
    );
    assert!(
        (lo.1 - US..=hi.1 + US).contains(&bad),
        "bad-time {bad} ns outside [{}, {}]",
        lo.1,
        hi.1
    );
    // and the truth lies inside too (the box is wide enough to hold it)
    assert!((lo.0..=hi.0).contains(&(ge.good_time as f64)));
    assert!((lo.1..=hi.1).contains(&(ge.bad_time as f64)));
    assert_eq!((params.good_every, params.bad_every), (0, 64));

    // the lengths are geometric, as the sampled chain makes them
    assert_eq!(f.bad.lengths.fits, Some(true), "{:?}", f.bad.lengths);
    assert_eq!(f.good.lengths.fits, Some(true), "{:?}", f.good.lengths);
    // the model's loss is the trace's, but for the two runs the trace's ends cut and the
    // microsecond of rounding: both far below a tenth of a percent of a million frames
    assert!(
        (f.model_loss - f.trace_loss).abs() < 1e-3,
        "{} vs {}",
        f.model_loss,
        f.trace_loss
    );
    assert!(f
        .model
        .starts_with("gilbert-elliott:good-every=0,bad-every=64,good-time="));
}

#[test]
fn time_traces_give_back_the_mean_periods() {
    let ge = truth();
    let trace = generate::gilbert_elliott_times(ge, 5, 3_600_000 * MS, usize::MAX).unwrap();
    let Marks::Times { bad } = &trace.marks else {
        panic!("time marks")
    };
    let f = fit::fit(
        &trace,
        Frames {
            bytes: 1440,
            gap: 6 * MS,
        },
    )
    .unwrap();
    assert!(f.bad.runs + 1 >= bad.len() as u64 && f.good.runs + 1 == bad.len() as u64);
    let params = f.params.unwrap();
    // an exponential's sample mean has standard error mean / sqrt(n); plus the rounding to 1 us
    for (got_s, want, n) in [
        (params.good_time_s, ge.good_time, f.good.runs),
        (params.bad_time_s, ge.bad_time, f.bad.runs),
    ] {
        let want = want as f64;
        let tol = Z * want / (n as f64).sqrt() + US;
        assert!(
            (got_s * 1e9 - want).abs() < tol,
            "{got_s} s vs {want} ns (tolerance {tol} ns over {n} periods)"
        );
    }
    assert_eq!(f.bad.lengths.fits, Some(true), "{:?}", f.bad.lengths);
    assert_eq!(f.good.lengths.fits, Some(true), "{:?}", f.good.lengths);
    assert!(
        (f.trace_loss / ge.bad_share() - 1.0).abs() < 0.05,
        "{}",
        f.trace_loss
    );
}

#[test]
fn periodic_losses_are_refused_as_geometric() {
    // 5 lost, 95 received, over and over: a two-state chain's runs would be geometric, these are
    // all one length; the fit still gives the means, and says the distributions do not hold
    let lost: Vec<bool> = (0..200_000).map(|i| i % 100 < 5).collect();
    let f = fit::fit_frames(
        &lost,
        Frames {
            bytes: 1440,
            gap: 6 * MS,
        },
        "periodic",
    )
    .unwrap();
    assert_eq!(f.bad.mean_run, 5.0);
    assert_eq!(f.good.mean_run, 95.0);
    assert_eq!(f.bad.lengths.fits, Some(false), "{:?}", f.bad.lengths);
    assert_eq!(f.good.lengths.fits, Some(false), "{:?}", f.good.lengths);
    assert!(f.bad.lengths.chi_square.as_ref().unwrap().p_value < 1e-6);
}

#[test]
fn traces_without_anything_to_fit_say_why() {
    let frames = Frames {
        bytes: 1440,
        gap: 6 * MS,
    };
    let e = |lost: &[bool]| fit::fit_frames(lost, frames, "t").unwrap_err();
    assert!(e(&[false; 100]).contains("no frame is lost"));
    assert!(e(&[true; 100]).contains("every frame is lost"));
    // one run of losses, cut by neither end... but the runs at both ends are cut: nothing whole
    assert!(e(&[false, true, true, false]).contains("too few runs"));
    let e = fit::fit_times(&[(5 * MS, 6 * MS)], frames, "t").unwrap_err();
    assert!(e.contains("too few periods"), "{e}");
    // a fitted mean the model cannot hold (its states last at least 1 us)
    let e = fit::fit_times(&[(10, 20), (30, 40), (50, 60)], frames, "t").unwrap_err();
    assert!(e.contains("outside what the model holds"), "{e}");
}

#[test]
fn a_hidden_state_is_caught_by_the_quality_check() {
    // a bad state that passes a quarter of the frames (bit errors one every 1 KB: 1440-byte frames
    // pass with probability exp(-1440/1024) = 0.245): good runs are broken by the bad state's
    // passed frames, so they are no longer geometric, and the fit must say so
    let ge = GilbertElliottParams {
        bad_every: 1024,
        ..truth()
    };
    let gap = 6 * MS;
    let trace = generate::gilbert_elliott_frames(ge, 11, 1_000_000, 1440, gap, false);
    let f = fit::fit(&trace, Frames { bytes: 1440, gap }).unwrap();
    assert_eq!(f.good.lengths.fits, Some(false), "{:?}", f.good.lengths);
    // and its good-time is far from the truth, which is why the check matters
    assert!(f.params.unwrap().good_time_s < 0.25);
}
