//! The samplers against their analytic distributions, the workload's reproducibility and bounds,
//! the plans' structure, and a golden of a small workload.
//!
//! Tolerances come from the sample size: an empirical CDF at a point of true probability `p`
//! has standard deviation `sqrt(p (1 - p) / n)`, a sample mean `sd / sqrt(n)`; each check allows
//! five of them (about one failure in 1.7 million for a fresh seed; the seeds here are fixed).

use super::mah_fixture::fixture_spec;
use super::model::{MAX_FILES_PER_PAGE, MAX_REPLY_BYTES, MAX_THINK_S};
use super::*;
use crate::rng::{Rng, Stream};
use proptest::prelude::{prop_assert, prop_assert_eq, proptest};
use snooplab_proto::time::SEC;

const N: usize = 200_000;

fn draws(dist: Dist, seed: u64) -> Vec<f64> {
    let mut rng = Rng::new(seed, Stream::Workload);
    (0..N).map(|_| dist.sample(&mut rng)).collect()
}

/// The standard normal CDF (Abramowitz and Stegun 7.1.26, error below 1.5e-7: far inside the
/// tolerances here).
fn phi(z: f64) -> f64 {
    let x = z.abs() / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.327_591_1 * x);
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let erf = 1.0 - poly * (-x * x).exp();
    if z >= 0.0 {
        0.5 * (1.0 + erf)
    } else {
        0.5 * (1.0 - erf)
    }
}

/// Standard normal quantiles at 0.1, 0.5, 0.9 and 0.99.
const Z: [(f64, f64); 4] = [
    (0.1, -1.281_551_565_5),
    (0.5, 0.0),
    (0.9, 1.281_551_565_5),
    (0.99, 2.326_347_874_0),
];

/// The share of `xs` at or below `x` is `p` within five standard deviations of a binomial share.
fn assert_cdf(xs: &[f64], x: f64, p: f64, what: &str) {
    let below = xs.iter().filter(|&&v| v <= x).count() as f64 / xs.len() as f64;
    let tol = 5.0 * (p * (1.0 - p) / xs.len() as f64).sqrt();
    assert!(
        (below - p).abs() <= tol,
        "{what}: share at or below {x} is {below}, expected {p} +- {tol}"
    );
}

fn assert_mean(xs: &[f64], mean: f64, sd: f64, what: &str) {
    let m = xs.iter().sum::<f64>() / xs.len() as f64;
    let tol = 5.0 * sd / (xs.len() as f64).sqrt();
    assert!(
        (m - mean).abs() <= tol,
        "{what}: mean {m}, expected {mean} +- {tol}"
    );
}

#[test]
fn standard_normal_matches_its_quantiles_and_moments() {
    let mut rng = Rng::new(3, Stream::Workload);
    let xs: Vec<f64> = (0..N).map(|_| sample::standard_normal(&mut rng)).collect();
    for (p, z) in Z {
        assert_cdf(&xs, z, p, "normal");
    }
    assert_mean(&xs, 0.0, 1.0, "normal");
    let sq: Vec<f64> = xs.iter().map(|x| x * x).collect();
    // Var(Z^2) = 2.
    assert_mean(&sq, 1.0, 2f64.sqrt(), "normal variance");
}

#[test]
fn lognormal_matches_its_quantiles_and_mean() {
    let (mu, sigma) = (9.357, 1.318);
    let xs = draws(Dist::LogNormal { mu, sigma }, 4);
    for (p, z) in Z {
        assert_cdf(&xs, (mu + sigma * z).exp(), p, "lognormal");
    }
    let s2 = sigma * sigma;
    let mean = (mu + s2 / 2.0).exp();
    let sd = ((s2.exp() - 1.0) * (2.0 * mu + s2).exp()).sqrt();
    assert_mean(&xs, mean, sd, "lognormal");
}

#[test]
fn pareto_matches_its_quantiles_and_mean() {
    for (alpha, k, seed) in [(2.43, 1.0, 5), (1.5, 1.0, 6), (1.1, 133_000.0, 7)] {
        let xs = draws(Dist::Pareto { alpha, k }, seed);
        assert!(xs.iter().all(|&x| x >= k));
        for p in [0.1f64, 0.5, 0.9, 0.99, 0.999] {
            let x = k * (1.0 - p).powf(-1.0 / alpha);
            assert_cdf(&xs, x, p, &format!("pareto {alpha}"));
        }
        if alpha > 2.0 {
            let mean = alpha * k / (alpha - 1.0);
            let var = k * k * alpha / ((alpha - 1.0).powi(2) * (alpha - 2.0));
            assert_mean(&xs, mean, var.sqrt(), "pareto");
        }
    }
}

#[test]
fn surge_hybrid_has_a_lognormal_body_and_a_pareto_tail() {
    let (mu, sigma, alpha, cut) = (9.357, 1.318, 1.1, 133_000.0);
    let xs = draws(
        Dist::LogNormalParetoTail {
            mu,
            sigma,
            alpha,
            cut,
        },
        8,
    );
    let body = phi((cut.ln() - mu) / sigma);
    // About 3% of files are in the tail, as model.rs says.
    assert!(
        (1.0 - body - 0.032).abs() < 0.001,
        "tail share {}",
        1.0 - body
    );
    assert_cdf(&xs, cut, body, "hybrid at its cut");
    for (p, z) in Z.into_iter().take(3) {
        assert_cdf(&xs, (mu + sigma * z).exp(), p, "hybrid body");
    }
    for x in [2.0 * cut, 10.0 * cut, 100.0 * cut] {
        let p = 1.0 - (1.0 - body) * (cut / x).powf(alpha);
        assert_cdf(&xs, x, p, "hybrid tail");
    }
}

#[test]
fn files_per_page_follow_the_floored_pareto() {
    let (spec, alpha) = (Spec::surge(), 2.43);
    assert_eq!(spec.files_per_page.dist, Dist::Pareto { alpha, k: 1.0 });
    let w = Workload::generate(&spec, 9, 20_000).expect("within bounds");
    let counts: Vec<f64> = w.pages.iter().map(|p| p.objects.len() as f64).collect();
    for m in [1.0, 2.0, 3.0, 5.0] {
        // P(floor(X) <= m) = P(X < m + 1).
        assert_cdf(&counts, m, 1.0 - (m + 1.0).powf(-alpha), "files per page");
    }
}

#[test]
fn think_times_follow_the_model() {
    let w = Workload::generate(&Spec::surge(), 10, 20_000).expect("within bounds");
    let secs: Vec<f64> = w
        .pages
        .iter()
        .map(|p| p.think as f64 / SEC as f64)
        .collect();
    for p in [0.5f64, 0.9, 0.99] {
        // Pareto(1.5, 1 s); the nanosecond truncation is far below the tolerance.
        assert_cdf(&secs, (1.0 - p).powf(-1.0 / 1.5), p, "think");
    }
}

/// Both models' specs, Mah's drawn from the synthetic fixture (`mah_fixture.rs`).
fn specs() -> [Spec; 2] {
    [fixture_spec(), Spec::surge()]
}

#[test]
fn the_same_model_and_seed_give_the_same_pages_and_page_i_ignores_the_count() {
    for spec in specs() {
        let a = Workload::generate(&spec, 42, 300).expect("within bounds");
        let b = Workload::generate(&spec, 42, 300).expect("within bounds");
        assert_eq!(a, b);
        assert_eq!(a.model, spec.model);
        let few = Workload::generate(&spec, 42, 7).expect("within bounds");
        assert_eq!(few.pages[..], a.pages[..7]);
        assert_eq!(page(&spec, 42, 123), a.pages[123]);
        let other = Workload::generate(&spec, 43, 300).expect("within bounds");
        assert_ne!(a.pages, other.pages);
    }
    let [mah, surge] = specs();
    let surge = Workload::generate(&surge, 42, 50).expect("within bounds");
    let mah = Workload::generate(&mah, 42, 50).expect("within bounds");
    assert_ne!(surge.pages, mah.pages);
}

#[test]
fn bounds_and_names_are_refused_in_one_line() {
    assert!(Workload::generate(&Spec::surge(), 1, 0).is_err());
    assert!(Workload::generate(&Spec::surge(), 1, MAX_PAGES + 1).is_err());
    assert!(Http::http10(0).is_err());
    assert!(Http::http10(5).is_err());
    assert!(Http::http10(4).is_ok());
    assert!(Http::http11(0, false).is_err());
    assert!(Http::http11(3, true).is_err());
    assert_eq!(Model::from_name("surge"), Ok(Model::Surge));
    assert_eq!(Model::from_name("mah"), Ok(Model::Mah));
    let err = Model::from_name("spec").expect_err("unknown");
    assert!(err.contains("mah, surge") && !err.contains('\n'), "{err}");
}

/// Small workloads of each model, exactly (Mah's from the synthetic fixture). They change only
/// with a model, the samplers or the draw order, each of which changes every workload: say why
/// in the commit that updates them.
#[test]
fn golden_small_workloads() {
    let mut text = Vec::new();
    let [mah, surge] = specs();
    for (spec, pages) in [(surge, 6), (mah, 3)] {
        let model = spec.model;
        let w = Workload::generate(&spec, 1, pages).expect("within bounds");
        for p in &w.pages {
            let objects: Vec<String> = p
                .objects
                .iter()
                .map(|o| format!("{}/{}", o.request_bytes, o.reply_bytes))
                .collect();
            text.push(format!(
                "{} think {} ns: {}",
                model.name(),
                p.think,
                objects.join(" ")
            ));
        }
    }
    let text = text.join("\n");
    assert_eq!(text, GOLDEN, "\n{text}");
}

const GOLDEN: &str = "\
surge think 1243890970 ns: 80/2048 80/6932
surge think 1333005046 ns: 80/8403
surge think 1048325116 ns: 80/9793
surge think 3866084438 ns: 80/23055
surge think 2429142607 ns: 80/81158
surge think 4242538813 ns: 80/6571
mah think 4391799552 ns: 136/1844 214/521 165/3710 139/286 1393/4775 297/4004 247/1466
mah think 4696373713 ns: 122/12917 183/311266
mah think 11415283633 ns: 335/38700";

fn check_plan(page: &Page, http: Http) -> Result<(), String> {
    let plan = plan(page, http);
    let n = page.objects.len();
    if plan.transfers.len() != n {
        return Err(format!(
            "{} transfers for {n} objects",
            plan.transfers.len()
        ));
    }
    for (i, t) in plan.transfers.iter().enumerate() {
        if usize::from(t.object) != i {
            return Err(format!("transfer {i} carries object {}", t.object));
        }
        let ok = match t.after {
            After::PageStart => i == 0 && t.connection == 0,
            After::Document => i > 0,
            After::Reply(j) | After::Request(j) => i > 0 && usize::from(j) < i && j > 0,
        };
        if !ok {
            return Err(format!("transfer {i}: {:?}", t.after));
        }
    }
    match http {
        Http::Http10 { parallel } => {
            // A connection per object, and at most `parallel` embedded ones open at once: each
            // after the document waits for one `parallel` places before it.
            let mut seen: Vec<u16> = plan.transfers.iter().map(|t| t.connection).collect();
            seen.sort();
            seen.dedup();
            if seen.len() != n {
                return Err("HTTP/1.0 shares a connection".into());
            }
            let starters = plan
                .transfers
                .iter()
                .filter(|t| t.after == After::Document)
                .count();
            if starters != (n - 1).min(usize::from(parallel)) {
                return Err(format!("{starters} start with the document"));
            }
        }
        Http::Http11 {
            connections,
            pipelined,
        } => {
            if plan.connections() > usize::from(connections) {
                return Err(format!("{} connections", plan.connections()));
            }
            // Each dependency is on the same connection's previous transfer.
            for t in &plan.transfers {
                if let After::Reply(j) | After::Request(j) = t.after {
                    let prev = plan.transfers[usize::from(j)];
                    if prev.connection != t.connection
                        || matches!(t.after, After::Request(_)) != pipelined
                    {
                        return Err(format!("{t:?} after {prev:?}"));
                    }
                }
            }
        }
    }
    Ok(())
}

proptest! {
    #[test]
    fn every_page_is_bounded_and_every_plan_carries_each_object_once(
        seed in 0u64..u64::MAX,
        index in 0u64..1_000_000,
        mah in proptest::bool::ANY,
    ) {
        let spec = if mah { fixture_spec() } else { Spec::surge() };
        let p = page(&spec, seed, index);
        prop_assert!(!p.objects.is_empty() && p.objects.len() as f64 <= MAX_FILES_PER_PAGE);
        prop_assert!(p.objects.iter().all(|o| o.reply_bytes >= 1 && f64::from(o.reply_bytes) <= MAX_REPLY_BYTES));
        prop_assert!(p.think >= SEC && p.think <= (MAX_THINK_S as u64) * SEC);
        prop_assert_eq!(&p, &page(&spec, seed, index));
        for http in [
            Http::http10(1), Http::http10(4), Http::http11(1, false), Http::http11(2, false), Http::http11(2, true),
        ] {
            let http = http.expect("in range");
            let checked = check_plan(&p, http);
            prop_assert!(checked.is_ok(), "{:?}: {:?}", http, checked);
        }
    }
}

#[test]
fn plans_of_a_five_object_page() {
    let object = Object {
        request_bytes: 80,
        reply_bytes: 1000,
    };
    let p = Page {
        objects: vec![object; 5],
        think: SEC,
    };
    let afters = |http| -> Vec<(u16, After)> {
        plan(&p, http)
            .transfers
            .iter()
            .map(|t| (t.connection, t.after))
            .collect()
    };
    use After::*;
    assert_eq!(
        afters(Http::Http10 { parallel: 2 }),
        [
            (0, PageStart),
            (1, Document),
            (2, Document),
            (3, Reply(1)),
            (4, Reply(2))
        ]
    );
    assert_eq!(
        afters(Http::Http11 {
            connections: 1,
            pipelined: false
        }),
        [
            (0, PageStart),
            (0, Document),
            (0, Reply(1)),
            (0, Reply(2)),
            (0, Reply(3))
        ]
    );
    assert_eq!(
        afters(Http::Http11 {
            connections: 2,
            pipelined: true
        }),
        [
            (0, PageStart),
            (0, Document),
            (1, Document),
            (0, Request(1)),
            (1, Request(2))
        ]
    );
}
