//! The README as a newcomer meets it: its tour pasted into a shell, command by command, and its
//! figures checked against what the committed code prints. A changed result fails here with the
//! README line to update; a tour command that no longer runs fails with its line.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The README, built in: an edit to it rebuilds this test.
const README: &str = include_str!("../../../README.md");
const GITIGNORE: &str = include_str!("../../../.gitignore");

/// The heading whose ```sh blocks are the tour.
const TOUR: &str = "## A short tour";

/// The checkout's top directory (the README's commands run from there).
fn checkout() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A command of the README: its text (continuation lines joined) and its 1-based line number.
#[derive(Debug, Clone)]
struct Line {
    number: usize,
    text: String,
}

/// The commands of the ```sh blocks between `heading` and the next `## ` heading: comments and
/// blank lines dropped, a line ending in `\` joined with the next.
fn sh_commands(heading: &str) -> Vec<Line> {
    let mut out = Vec::new();
    let mut in_section = false;
    let mut in_sh = false;
    let mut pending: Option<Line> = None;
    for (i, raw) in README.lines().enumerate() {
        if raw.starts_with("## ") {
            in_section = raw.trim_end() == heading;
            continue;
        }
        if !in_section {
            continue;
        }
        if raw.starts_with("```") {
            in_sh = raw.trim_end() == "```sh";
            continue;
        }
        if !in_sh {
            continue;
        }
        let (number, text) = match pending.take() {
            Some(p) => (p.number, format!("{} {}", p.text, raw.trim())),
            None => (i + 1, raw.trim().to_string()),
        };
        if let Some(joined) = text.strip_suffix('\\') {
            pending = Some(Line {
                number,
                text: joined.trim_end().to_string(),
            });
            continue;
        }
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        out.push(Line { number, text });
    }
    out
}

fn is_live(l: &Line) -> bool {
    l.text.split_whitespace().nth(1) == Some("live")
}

/// A fresh directory standing in for the checkout's top directory: a copy of `examples/`, which
/// the tour's scenario files come from, and nothing else.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("snooplab-readme-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let examples = dir.join("examples");
    std::fs::create_dir_all(&examples).expect("a scratch directory");
    let from = checkout().join("examples");
    for entry in std::fs::read_dir(&from).expect("the checkout's examples/") {
        let path = entry.expect("an entry of examples/").path();
        if path.is_file() {
            let to = examples.join(path.file_name().expect("a file name"));
            std::fs::copy(&path, &to).expect("an example copied");
        }
    }
    dir
}

/// Runs one README command in `dir` through `sh`, as pasted, with its leading `snooplab` replaced
/// by the binary this test was built with; fails naming the README line if it exits non-zero.
fn paste(dir: &Path, l: &Line) {
    let exe = env!("CARGO_BIN_EXE_snooplab");
    assert!(!exe.contains('\''), "the binary's path has a quote: {exe}");
    let rest = l.text.strip_prefix("snooplab ").unwrap_or_else(|| {
        panic!(
            "README.md line {}: a tour command starts with `snooplab` (the test runs the built \
             binary in its place): {}",
            l.number, l.text
        )
    });
    let o: Output = Command::new("sh")
        .arg("-c")
        .arg(format!("'{exe}' {rest}"))
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .expect("sh runs");
    let err = String::from_utf8_lossy(&o.stderr);
    let tail: Vec<&str> = err.lines().rev().take(5).collect();
    assert!(
        o.status.success(),
        "README.md line {}: `{}` exits with {:?} when pasted; its stderr ends:\n{}",
        l.number,
        l.text,
        o.status.code(),
        tail.into_iter().rev().collect::<Vec<_>>().join("\n")
    );
}

/// What the tour wrote at the top of the checkout is ignored by git: each new top-level entry
/// has its line in .gitignore.
fn assert_ignored(dir: &Path) {
    let ignored: Vec<&str> = GITIGNORE
        .lines()
        .map(|l| l.trim().trim_start_matches('/').trim_end_matches('/'))
        .collect();
    for entry in std::fs::read_dir(dir).expect("the scratch directory") {
        let name = entry
            .expect("an entry")
            .file_name()
            .to_string_lossy()
            .into_owned();
        if name == "examples" {
            continue;
        }
        assert!(
            ignored.contains(&name.as_str()),
            "the README's tour writes `{name}` at the checkout's top, which .gitignore does not \
             ignore: add `/{name}/` to .gitignore, or have the tour write under out/"
        );
    }
}

#[test]
fn the_tour_runs_when_pasted() {
    let lines: Vec<Line> = sh_commands(TOUR)
        .into_iter()
        .filter(|l| !is_live(l))
        .collect();
    assert!(
        lines.len() >= 5,
        "README.md has a `{TOUR}` section with its commands in ```sh blocks (found {})",
        lines.len()
    );
    let dir = scratch("tour");
    for l in &lines {
        paste(&dir, l);
    }
    assert_ignored(&dir);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
#[ignore = "live: needs root, /dev/net/tun and ip netns (scripts/test-all runs it where they exist)"]
fn the_tours_live_commands_run_when_pasted_as_root() {
    if let Some(why) = snooplab_live::testbed::unavailable_reason() {
        panic!("the README's live tour cannot run here: {why}");
    }
    let lines: Vec<Line> = sh_commands(TOUR).into_iter().filter(is_live).collect();
    assert!(
        !lines.is_empty(),
        "README.md's `{TOUR}` has live commands (`snooplab live ...`)"
    );
    let dir = scratch("live");
    for l in &lines {
        paste(&dir, l);
    }
    assert_ignored(&dir);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The main job as the README names it: the arguments after `cargo run --release --` in the
/// README's first ```sh block that has them.
fn main_job() -> (usize, Vec<String>) {
    let mut in_sh = false;
    for (i, l) in README.lines().enumerate() {
        if l.starts_with("```") {
            in_sh = l.trim_end() == "```sh";
            continue;
        }
        if let (true, Some(args)) = (in_sh, l.trim().strip_prefix("cargo run --release -- ")) {
            let args = args.split('#').next().unwrap_or("");
            return (i + 1, args.split_whitespace().map(String::from).collect());
        }
    }
    panic!("README.md names its main job as `cargo run --release -- ...` in a ```sh block");
}

/// The figures a reader takes for results: percentages, rates, ratios, counts (`9 of 25`, `710
/// runs`) and, in prose, durations. Commands and inline code are not scanned (a flag's value is
/// not a result), nor fenced output (the verdict line is checked whole).
fn figures(text: &str, durations: bool) -> Vec<String> {
    let b = text.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let starts = b[i].is_ascii_digit() && (i == 0 || !b[i - 1].is_ascii_alphanumeric());
        if !starts {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < b.len() && (b[j].is_ascii_digit() || b[j] == b'.' || b[j] == b',') {
            j += 1;
        }
        let num = text[i..j].trim_end_matches(['.', ',']);
        let after = &text[i + num.len()..];
        let unit_spaced = after.strip_prefix(' ').unwrap_or(after);
        let word = |w: &str| {
            unit_spaced.starts_with(w)
                && !unit_spaced[w.len()..]
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphanumeric())
        };
        let figure = if after.starts_with('%') || after.starts_with(" %") {
            Some(format!("{num}%"))
        } else if after.starts_with('x')
            && !after[1..]
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphanumeric())
        {
            Some(format!("{num}x"))
        } else if let Some(u) = ["Mb/s", "runs/s", "events/s", "runs", "claims"]
            .into_iter()
            .find(|u| word(u))
        {
            Some(format!("{num} {u}"))
        } else if let Some(rest) = unit_spaced.strip_prefix("of ") {
            let m: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
            (!m.is_empty()).then(|| format!("{num} of {m}"))
        } else if durations {
            ["s", "ms", "min", "minutes", "seconds", "hours"]
                .into_iter()
                .find(|u| word(u))
                .map(|u| format!("{num} {u}"))
        } else {
            None
        };
        if let Some(f) = figure {
            found.push(f);
        }
        i = j.max(i + 1);
    }
    found
}

/// `text` without its inline code spans.
fn without_code(text: &str) -> String {
    text.split('`').step_by(2).collect::<Vec<_>>().join(" ")
}

/// Every figure of the README outside its code, with its line: prose (durations included) and the
/// comments of its ```sh blocks.
fn readme_figures() -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut fence: Option<String> = None;
    for (i, l) in README.lines().enumerate() {
        if let Some(f) = l.strip_prefix("```") {
            fence = match fence {
                Some(_) => None,
                None => Some(f.trim().to_string()),
            };
            continue;
        }
        let found = match fence.as_deref() {
            None => figures(&without_code(l), true),
            Some("sh") => match l.split_once(" #") {
                Some((_, comment)) => figures(&without_code(comment), false),
                None => Vec::new(),
            },
            Some(_) => Vec::new(),
        };
        out.extend(found.into_iter().map(|f| (i + 1, f)));
    }
    out
}

#[test]
fn the_readmes_figures_are_what_the_main_job_prints() {
    let (job_line, args) = main_job();
    let dir = scratch("reproduce");
    let o = Command::new(env!("CARGO_BIN_EXE_snooplab"))
        .args(&args)
        .current_dir(&dir)
        .stdin(Stdio::null())
        .output()
        .expect("the snooplab binary runs");
    let _ = std::fs::remove_dir_all(&dir);
    let stdout = String::from_utf8_lossy(&o.stdout);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        o.status.success(),
        "README.md line {job_line}: the main job `snooplab {}` fails: {stderr}",
        args.join(" ")
    );

    // the verdict: the README shows the main job's last line as it is
    let verdict = stdout
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    assert!(
        verdict.starts_with("claims: "),
        "the main job ends with its verdict line, `claims: ...`; it ends with `{verdict}`"
    );
    let shown: Vec<(usize, &str)> = README
        .lines()
        .enumerate()
        .filter(|(_, l)| l.starts_with("claims: "))
        .map(|(i, l)| (i + 1, l))
        .collect();
    assert_eq!(
        shown.len(),
        1,
        "README.md shows the main job's verdict line (`claims: ...`) once: {shown:?}"
    );
    let (line, text) = shown[0];
    assert_eq!(
        text.trim_end(),
        verdict,
        "README.md line {line} shows the verdict of `cargo run --release -- {}` (line {job_line}), \
         which now ends with another line: replace README.md line {line} with\n{verdict}",
        args.join(" ")
    );

    // any other figure the README gives is one the main job prints on stdout, as a figure of its
    // own (the README's `45 s` is not found in a printed `32.45 s`); stdout holds the results,
    // the same on every machine, while stderr's progress and times vary from run to run
    let printed: Vec<String> = stdout.lines().flat_map(|l| figures(l, true)).collect();
    for (line, f) in readme_figures() {
        assert!(
            printed.contains(&f),
            "README.md line {line} gives the figure `{f}`, which `cargo run --release -- {}` does \
             not print: update README.md line {line} from the command's output, or move the \
             figure to the docs page of the command it comes from (times vary: the README gives \
             none)",
            args.join(" ")
        );
    }
}

#[test]
fn figures_are_found_where_a_reader_sees_them() {
    assert_eq!(
        figures(
            "snoop is 30% faster, 1.33x, at 1.4 Mb/s; 9 of 25 hold; 710 runs",
            false
        ),
        ["30%", "1.33x", "1.4 Mb/s", "9 of 25", "710 runs"]
    );
    assert_eq!(figures("live tests about 45 s", true), ["45 s"]);
    assert_eq!(
        figures("860 runs in 32.45 s, +27% MISS", true),
        ["860 runs", "32.45 s", "27%"]
    );
    assert!(figures("live tests about 45 s", false).is_empty());
    assert!(figures("paper 000, Tables II-V, Fig. 12, 8k, 1997", true).is_empty());
    assert_eq!(without_code("see `--seeds 10` and 5%"), "see   and 5%");
}

#[test]
fn the_tour_is_found_and_its_live_commands_told_apart() {
    let lines = sh_commands(TOUR);
    assert!(lines.iter().any(is_live), "{lines:?}");
    assert!(lines.iter().any(|l| !is_live(l)), "{lines:?}");
    for l in &lines {
        assert!(
            !l.text.contains('[') && !l.text.starts_with("sudo "),
            "README.md line {}: a tour command runs as pasted (no `[optional]` parts, no sudo: \
             the README says once which commands need root): {}",
            l.number,
            l.text
        );
    }
}
