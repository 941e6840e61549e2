//! Mah's model: the table reader's checks (each fault refused in one line naming the file and
//! line), the refusal without tables, the sampler read as GloMoSim reads a table, pages drawn
//! from their own tables, and the verification gate — all on the synthetic fixture
//! (`mah_fixture.rs`). The one test of Mah's real tables (their medians and means) runs only
//! when `SNOOPLAB_MAH_CDF_DIR` names them at build time (`build.rs`).
//!
//! Tolerances as in `tests.rs`: five binomial standard deviations for a share, five standard
//! errors for a mean.

use super::cdf::{Cdf, MAX_CDF_FILE_BYTES, MAX_CDF_POINTS};
use super::mah_fixture::{fixture_spec, fixture_tables, scratch_dir, FIXTURE};
use super::mah_tables::{MahTables, MAH_CDF_DIR_VAR, MAH_FILES};
use super::sample::empirical;
use super::*;
use crate::rng::{Rng, Stream};
use snooplab_proto::time::SEC;
use std::sync::Arc;

const N: usize = 200_000;

/// A table's name, its CDF, and whether its draws are whole numbers.
type Table<'a> = (&'static str, &'a Cdf, bool);

/// Every table Mah's model draws from, in `MAH_FILES`' order.
fn tables(t: &MahTables) -> [Table<'_>; 6] {
    [
        ("files per document", &t.files_per_document, true),
        ("primary reply", &t.primary_reply_bytes, true),
        ("secondary reply", &t.secondary_reply_bytes, true),
        ("primary request", &t.primary_request_bytes, true),
        ("secondary request", &t.secondary_request_bytes, true),
        ("think time", &t.think_time_s, false),
    ]
}

fn draws(cdf: &Cdf, whole: bool, seed: u64) -> Vec<f64> {
    let mut rng = Rng::new(seed, Stream::Workload);
    let dist = Dist::Empirical {
        cdf: Arc::new(cdf.clone()),
        whole,
    };
    (0..N).map(|_| dist.sample(&mut rng)).collect()
}

fn share_at_or_below(xs: &[f64], x: f64) -> f64 {
    xs.iter().filter(|&&v| v <= x).count() as f64 / xs.len() as f64
}

/// The table's mean and standard deviation as the sampler reads it, by the midpoint rule over
/// a million uniform values (the values are bounded, so both are finite).
#[cfg(mah_tables)]
fn table_moments(points: &[(f64, f64)], whole: bool) -> (f64, f64) {
    let m = 1_000_000;
    let (mut s, mut s2) = (0.0, 0.0);
    for k in 0..m {
        let v = empirical(points, whole, (k as f64 + 0.5) / m as f64);
        s += v;
        s2 += v * v;
    }
    let mean = s / m as f64;
    (mean, (s2 / m as f64 - mean * mean).sqrt())
}

/// Every point's probability is the share of draws at or below its value (at most a few
/// hundred checks a table: every point of a short table, a spread of a long one).
fn assert_draws_follow(t: &MahTables, seed: u64) {
    for (i, (name, cdf, whole)) in tables(t).into_iter().enumerate() {
        let xs = draws(cdf, whole, seed + i as u64);
        let points = cdf.points();
        let step = (points.len() / 200).max(1);
        for &(v, p) in points.iter().step_by(step) {
            let below = share_at_or_below(&xs, v);
            let tol = 5.0 * (p * (1.0 - p) / N as f64).sqrt() + 1e-9;
            assert!(
                (below - p).abs() <= tol,
                "{name}: share at or below {v} is {below}, the table says {p} +- {tol}"
            );
        }
    }
}

#[test]
fn a_table_file_is_read_as_value_and_cumulative_probability() {
    let t = fixture_tables();
    // Two columns, a comment and a blank line skipped.
    assert_eq!(t.primary_reply_bytes.points()[0], (0.0, 0.01));
    assert_eq!(t.primary_reply_bytes.points().len(), 7);
    // Three columns: the middle one is not the probability.
    assert_eq!(t.secondary_reply_bytes.points()[1], (300.0, 0.3));
    assert_eq!(t.think_time_s.points().last(), Some(&(86_400.0, 1.0)));
}

/// Each rule of a CDF, broken once: refused in one line naming the line.
#[test]
fn a_table_that_is_not_a_cdf_is_refused_naming_its_line() {
    let cases = [
        ("1 0.5\n2 0.4\n3 1\n", "line 2", "not above the previous"),
        ("1 0.5\n2 0.5\n3 1\n", "line 2", "not above the previous"),
        ("5 0.5\n2 0.7\n3 1\n", "line 2", "values must not decrease"),
        ("1 0.5\n2 1.5\n", "line 2", "outside [0, 1]"),
        ("1 -0.1\n2 1\n", "line 1", "outside [0, 1]"),
        ("-1 0.5\n2 1\n", "line 1", "non-negative"),
        ("inf 0.5\n2 1\n", "line 1", "non-negative"),
        ("1 NaN\n2 1\n", "line 1", "outside [0, 1]"),
        ("1 0.5\n2 0.9\n", "line 2", "not 1"),
        ("1 0.5\n\n# the end\n", "line 1", "not 1"),
        ("1 0.5\n2 x\n", "line 2", "'x' is not a number"),
        ("1 0.5\n2 y 1\n", "line 2", "'y' is not a number"),
        ("1 0.5\n2\n", "line 2", "got 1 fields"),
        ("1 0.5\n2 1 1 1\n", "line 2", "got 4 fields"),
        ("# nothing\n\n", "", "no points"),
    ];
    for (text, line, what) in cases {
        let err = Cdf::parse(text).expect_err(text);
        assert!(
            err.starts_with(line) && err.contains(what) && !err.contains('\n'),
            "{text:?}: {err}"
        );
    }
    assert!(Cdf::parse("0 0\n7 1\n").is_ok(), "a first probability of 0");
    assert!(Cdf::parse("3 1\n").is_ok(), "one point");
    assert!(Cdf::parse("1 0.5\n2 0.99999999999\n").is_ok());
    assert_eq!(
        Cdf::parse("1 0.5\n2 0.99999999999\n").map(|c| c.points()[1]),
        Ok((2.0, 1.0)),
        "the last probability is read as 1"
    );
    assert!(Cdf::from_points(vec![(1.0, 0.5), (0.5, 1.0)])
        .expect_err("decreasing")
        .starts_with("point 2"));
}

/// A table too large, or with too many points, is refused before it is kept.
#[test]
fn a_table_is_bounded_in_bytes_and_points() {
    let many: String = (0..=MAX_CDF_POINTS)
        .map(|i| {
            let p = (i + 1) as f64 / (MAX_CDF_POINTS + 1) as f64;
            format!("{i} {p}\n")
        })
        .collect();
    let err = Cdf::parse(&many).expect_err("too many points");
    assert!(
        err.contains(&format!("more than {MAX_CDF_POINTS} points")),
        "{err}"
    );
    let dir = scratch_dir("bounds");
    let big = dir.join("big.cdf");
    let line = "1 0.5\n";
    let text = line.repeat(MAX_CDF_FILE_BYTES as usize / line.len() + 1);
    std::fs::write(&big, text).expect("writable");
    let err = Cdf::read(&big).expect_err("too large");
    assert!(
        err.contains("big.cdf") && err.contains("larger than"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A directory with a missing or a broken table is refused in one line naming the file (and
/// the line), and saying where the tables come from.
#[test]
fn a_missing_or_broken_table_is_refused_naming_the_file() {
    let dir = scratch_dir("broken");
    for (file, text) in MAH_FILES.into_iter().zip(FIXTURE) {
        std::fs::write(dir.join(file), text).expect("writable");
    }
    assert!(MahTables::load(&dir).is_ok());
    std::fs::write(dir.join("HttpThinkTime.cdf"), "1 0.5\n2 0.4\n3 1\n").expect("writable");
    let err = MahTables::load(&dir).expect_err("broken");
    assert!(
        err.contains("HttpThinkTime.cdf: line 2:") && !err.contains('\n'),
        "{err}"
    );
    std::fs::remove_file(dir.join("HttpPrimaryRequest.cdf")).expect("there");
    let err = MahTables::load(&dir).expect_err("missing");
    assert!(
        err.contains("HttpPrimaryRequest.cdf: missing")
            && err.contains(MAH_CDF_DIR_VAR)
            && !err.contains('\n'),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
    let err = MahTables::load(&dir).expect_err("gone");
    assert!(err.contains("not a directory"), "{err}");
}

/// Without a directory, `mah` is refused in one line saying where to get the tables and why
/// they are not shipped.
#[test]
fn mah_without_its_tables_is_refused_in_one_line() {
    for setting in [None, Some(std::ffi::OsStr::new(""))] {
        let err = MahTables::from_dir_setting(setting).expect_err("no tables");
        for needed in [
            "'mah'",
            MAH_CDF_DIR_VAR,
            "HttpFilesPerDocument.cdf",
            "HttpThinkTime.cdf",
            "GloMoSim 2.02",
            "http_distribution.c",
            "scripts/mah-cdf-from-glomosim",
            "non-commercial",
            "MIT OR Apache-2.0",
        ] {
            assert!(err.contains(needed), "{needed}: {err}");
        }
        assert!(!err.contains('\n'), "{err}");
    }
}

#[test]
fn the_sampler_reads_a_table_as_glomosim_does() {
    let t: &[(f64, f64)] = &[(1.0, 0.5), (3.0, 0.75), (10.0, 1.0)];
    // Below the first probability: the first value.
    assert_eq!(empirical(t, true, 0.0), 1.0);
    assert_eq!(empirical(t, true, 0.49), 1.0);
    // At a point: its value; between two: linear, then rounded up when whole.
    assert_eq!(empirical(t, true, 0.5), 1.0);
    assert_eq!(empirical(t, false, 0.625), 2.0);
    assert_eq!(empirical(t, true, 0.6), 2.0);
    assert!((empirical(t, false, 0.6) - 1.8).abs() < 1e-12);
    assert_eq!(empirical(t, false, 0.875), 6.5);
    assert_eq!(empirical(&[], true, 0.3), 0.0);
}

#[test]
fn draws_follow_each_table_point_for_point() {
    assert_draws_follow(fixture_tables(), 100);
}

#[test]
fn mah_pages_draw_documents_and_embedded_files_from_their_own_tables() {
    let t = fixture_tables();
    let spec = fixture_spec();
    assert_eq!(
        spec.document_bytes.dist,
        Dist::Empirical {
            cdf: Arc::new(t.primary_reply_bytes.clone()),
            whole: true
        }
    );
    let w = Workload::generate(&spec, 11, 20_000).expect("within bounds");
    let files: Vec<f64> = w.pages.iter().map(|p| p.objects.len() as f64).collect();
    for &(v, p) in t.files_per_document.points() {
        let tol = 5.0 * (p * (1.0 - p) / files.len() as f64).sqrt() + 1e-9;
        assert!((share_at_or_below(&files, v) - p).abs() <= tol, "files {v}");
    }
    let sample = |pick: &dyn Fn(&Page) -> Vec<Object>, bytes: &dyn Fn(&Object) -> u32| {
        w.pages
            .iter()
            .flat_map(|p| pick(p).into_iter().map(|o| f64::from(bytes(&o))))
            .collect::<Vec<f64>>()
    };
    let document = |p: &Page| vec![p.document()];
    let embedded = |p: &Page| p.embedded().to_vec();
    let reply = |o: &Object| o.reply_bytes;
    let request = |o: &Object| o.request_bytes;
    // Each of the four samples follows its own table at every point; the clamp raises the
    // 0-byte replies to 1.
    for (xs, cdf) in [
        (sample(&document, &reply), &t.primary_reply_bytes),
        (sample(&embedded, &reply), &t.secondary_reply_bytes),
        (sample(&document, &request), &t.primary_request_bytes),
        (sample(&embedded, &request), &t.secondary_request_bytes),
    ] {
        for &(v, p) in cdf.points() {
            let tol = 5.0 * (p * (1.0 - p) / xs.len() as f64).sqrt() + 1e-9;
            assert!(
                (share_at_or_below(&xs, v.max(1.0)) - p).abs() <= tol,
                "at {v}"
            );
        }
    }
    // Think times are clamped at 600 s: the fixture's 10% above it all land there.
    let long = w.pages.iter().filter(|p| p.think == 600 * SEC).count() as f64 / 20_000.0;
    assert!(
        (long - 0.1).abs() <= 5.0 * (0.09f64 / 20_000.0).sqrt(),
        "share clamped {long}"
    );
}

#[test]
fn a_study_refuses_an_unverified_model() {
    assert!(fixture_spec().verified());
    assert_eq!(Model::Mah.require_verified(), Ok(Model::Mah));
    assert!(!Spec::surge().verified());
    let err = Model::Surge
        .require_verified()
        .expect_err("SURGE's table is unchecked");
    assert!(
        err.contains("surge") && err.contains("files per page") && !err.contains('\n'),
        "{err}"
    );
    assert_eq!(Model::Mah.unchecked(), Vec::<&str>::new());
    assert_eq!(Model::Surge.unchecked(), Spec::surge().unchecked());
    assert_eq!(
        MODEL_NAMES[0], "mah",
        "the default model is the verified one"
    );
}

/// The medians and means of Mah's real tables as the sampler reads them (whole-number tables
/// rounded up): the numbers docs/web-workload.md quotes, measured on GloMoSim 2.02's copy of
/// the tables. Built only where the tables are (`SNOOPLAB_MAH_CDF_DIR` at build time): an ignored test would fail CI's rule that nothing is
/// ignored on a machine that runs the live tests, and a test that passed without its data would
/// claim what it did not check.
#[test]
#[cfg(mah_tables)]
fn mah_real_tables_have_the_medians_and_means_the_docs_quote() {
    let real = MahTables::from_env().unwrap_or_else(|e| panic!("{e}"));
    assert_draws_follow(&real, 300);
    let quoted: [(&str, f64, f64); 6] = [
        ("files per document", 2.0, 2.904),
        ("primary reply", 2_092.0, 15_247.0),
        ("secondary reply", 1_981.0, 6_827.0),
        ("primary request", 238.0, 395.5),
        ("secondary request", 227.0, 334.7),
        ("think time", 15.318, 1_286.8),
    ];
    for (seed, ((name, cdf, whole), (quoted_name, median, mean))) in
        tables(&real).into_iter().zip(quoted).enumerate()
    {
        assert_eq!(name, quoted_name);
        let points = cdf.points();
        let table_median = empirical(points, whole, 0.5);
        assert!(
            (table_median - median).abs() <= 1e-3 * median,
            "{name}: the table's median is {table_median}, quoted {median}"
        );
        let (table_mean, sd) = table_moments(points, whole);
        assert!(
            (table_mean - mean).abs() <= 1e-3 * mean,
            "{name}: the table's mean is {table_mean}, quoted {mean}"
        );
        let mut xs = draws(cdf, whole, 200 + seed as u64);
        let m = xs.iter().sum::<f64>() / N as f64;
        let tol = 5.0 * sd / (N as f64).sqrt();
        assert!(
            (m - table_mean).abs() <= tol,
            "{name}: draws' mean {m}, table's {table_mean} +- {tol}"
        );
        xs.sort_by(f64::total_cmp);
        // The sample median lies between the table's values at 0.5 -+ five binomial sd.
        let d = 5.0 * (0.25 / N as f64).sqrt();
        let (lo, hi) = (
            empirical(points, whole, 0.5 - d),
            empirical(points, whole, 0.5 + d),
        );
        assert!(
            (lo..=hi).contains(&xs[N / 2]),
            "{name}: sample median {} outside [{lo}, {hi}]",
            xs[N / 2]
        );
    }
    // Think times are clamped at 600 s: the 9.5% of the table above it all land there.
    let w = Workload::generate(&Spec::mah(&real), 11, 20_000).expect("within bounds");
    let long = w.pages.iter().filter(|p| p.think == 600 * SEC).count() as f64 / 20_000.0;
    assert!((long - 0.0954).abs() < 0.011, "share clamped {long}");
}
