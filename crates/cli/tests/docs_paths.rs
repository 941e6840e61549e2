//! docs/architecture.md is the authority for the code as it is: every file path and every type it
//! names in backticks must exist, so the page cannot drift from the tree unnoticed.
//!
//! A path (`run/route.rs`, `proto/src/tcp/policy.rs`, `scripts/test-all`) exists when some file or
//! folder of the repository ends with it; a type (`Simulation`, `SimNode::inbound`'s `SimNode`) when
//! some Rust file under `crates/` declares it (`struct`, `enum`, `trait`, `type`, or a `macro_rules!`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every file and folder under `dir`, as paths relative to the repository's root with `/`.
fn walk(dir: &Path, root: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || name == "target" || name == "node_modules" {
            continue;
        }
        if let Ok(rel) = p.strip_prefix(root) {
            out.push(rel.to_string_lossy().replace('\\', "/"));
        }
        if p.is_dir() {
            walk(&p, root, out);
        }
    }
}

/// The spans between backticks of a Markdown text (code blocks' fences excluded).
fn code_spans(text: &str) -> Vec<String> {
    let mut out = vec![];
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            continue;
        }
        let parts: Vec<&str> = line.split('`').collect();
        for (i, p) in parts.iter().enumerate() {
            if i % 2 == 1 {
                out.push(p.to_string());
            }
        }
    }
    out
}

/// A span that names a file or folder: no spaces, a `/`, and a last part with an extension or a
/// known file name (a span such as `a/b` that is an expression, e.g. `RTT/2`, has no extension).
fn as_path(span: &str) -> Option<&str> {
    let s = span.trim_end_matches('/').trim_end_matches(':');
    if s.contains(' ') || !s.contains('/') || s.contains("::") || s.starts_with('-') {
        return None;
    }
    // a pattern (`papers/src/NAME/`, `paperNNN_fixed.rs`, `proto/src/**/tests.rs`), not one path
    if s.contains("NNN") || s.contains("NAME") || s.contains('*') {
        return None;
    }
    let last = s.rsplit('/').next()?;
    let known = [
        "test-all",
        "instructions",
        "side-by-side",
        "build-pgo",
        "fuzz",
        "bless",
    ];
    let ext = [".rs", ".md", ".toml", ".py", ".trace", ".jq", ".sh", ".csv"];
    if ext.iter().any(|e| last.ends_with(e)) || known.contains(&last) || span.ends_with('/') {
        Some(s)
    } else {
        None
    }
}

/// A span that names a Rust type: `Name`, `Name::item` or `Name<..>` starting with a capital, in
/// CamelCase (not an all-capitals constant such as `PAPERS` or `SEC`).
fn as_type(span: &str) -> Option<&str> {
    let head = span.split("::").next()?.split('<').next()?.trim();
    let mut chars = head.chars();
    let first = chars.next()?;
    if !first.is_ascii_uppercase() || !head.chars().all(|c| c.is_ascii_alphanumeric()) {
        return None;
    }
    if !head.chars().any(|c| c.is_ascii_lowercase()) {
        return None;
    }
    // the standard library's, which the page names where the code uses them
    const STD: [&str; 14] = [
        "Vec", "VecDeque", "Option", "Some", "None", "Result", "Ok", "Err", "Box", "Clone",
        "String", "HashMap", "Rc", "Arc",
    ];
    if STD.contains(&head) {
        return None;
    }
    Some(head)
}

/// Every type name declared in the Rust sources under `crates/`, and every enum variant named by
/// a path (`Mobility::Buffer` declares `Buffer` for the page's "a `Buffer` request").
fn declared_types(root: &Path, files: &[String]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for f in files
        .iter()
        .filter(|f| f.starts_with("crates/") && f.ends_with(".rs"))
    {
        let Ok(text) = std::fs::read_to_string(root.join(f)) else {
            continue;
        };
        for line in text.lines() {
            let words: Vec<&str> = line
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '!'))
                .filter(|w| !w.is_empty())
                .collect();
            for w in words.windows(2) {
                if matches!(w[0], "struct" | "enum" | "trait" | "type" | "macro_rules!") {
                    out.insert(w[1].to_string());
                }
            }
            for (i, _) in line.match_indices("::") {
                let name: String = line[i + 2..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if name.starts_with(|c: char| c.is_ascii_uppercase()) {
                    out.insert(name);
                }
            }
            // a macro's name follows `macro_rules!` directly
            if let Some(rest) = line.trim_start().strip_prefix("macro_rules!") {
                let name: String = rest
                    .trim()
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                out.insert(name);
            }
        }
    }
    out
}

#[test]
fn architecture_names_only_paths_and_types_that_exist() {
    let root = root();
    let doc = root.join("docs/architecture.md");
    let text = std::fs::read_to_string(&doc).expect("docs/architecture.md is readable");
    let mut files = vec![];
    walk(&root, &root, &mut files);
    let types = declared_types(&root, &files);

    let mut missing = vec![];
    for span in code_spans(&text) {
        if let Some(p) = as_path(&span) {
            let found = files
                .iter()
                .any(|f| f == p || f.ends_with(&format!("/{p}")));
            if !found {
                missing.push(format!("path `{p}`"));
            }
        } else if let Some(t) = as_type(&span) {
            if !types.contains(t) {
                missing.push(format!("type `{t}` (in `{span}`)"));
            }
        }
    }
    missing.sort();
    missing.dedup();
    assert!(
        missing.is_empty(),
        "docs/architecture.md names what the tree does not have; correct the page:\n  {}",
        missing.join("\n  ")
    );
}

#[test]
fn the_checks_see_what_they_should() {
    assert_eq!(as_path("run/route.rs"), Some("run/route.rs"));
    assert_eq!(as_path("scripts/test-all"), Some("scripts/test-all"));
    assert_eq!(as_path("RTT/2"), None);
    assert_eq!(as_path("a b/c.rs"), None);
    assert_eq!(as_path("papers/tests/paperNNN_fixed.rs"), None);
    assert_eq!(as_type("SimNode::inbound"), Some("SimNode"));
    assert_eq!(as_type("Vec<u8>"), None);
    assert_eq!(as_type("Network<u8>"), Some("Network"));
    assert_eq!(as_type("PAPERS"), None);
    assert_eq!(as_type("run_events"), None);
}
