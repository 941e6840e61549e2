//! The one `error:` line: whatever a message quotes back from the user stays short and on the line.
//! Messages echo the value they refuse ("unknown protocol 'x'") or the path they could not use, and
//! that may be a 10 MB string from a scenario file or hold newlines; shortening it here covers every
//! message at once, clap's included (`main`).

/// Quoted values longer than this are cut to a prefix of it.
const QUOTE_MAX: usize = 40;
/// An unquoted word longer than this (a path the user named, a value clap echoes) is cut to its
/// first [`QUOTE_MAX`] characters as a quoted value is; ordinary paths are shorter and stay whole,
/// as they are what the user needs to find the file.
const WORD_MAX: usize = 4 * QUOTE_MAX;
/// A message longer than this after that (a long value not in quotes) keeps its start and end.
const LINE_MAX: usize = 600;

/// `msg` on one line, each quoted value ('...', `...`, "...") over [`QUOTE_MAX`] characters cut to
/// its start and its length, the whole at most about [`LINE_MAX`] characters.
pub fn one_line(msg: &str) -> String {
    let chars: Vec<char> = msg.chars().collect();
    // where each kind of quote can close a value, so finding the close is a search, not a scan
    // (a message of many unclosed quotes would otherwise take quadratic time)
    let closers: Vec<Vec<usize>> = QUOTES
        .iter()
        .map(|&q| {
            (0..chars.len())
                .filter(|&j| chars[j] == q && ends_value(&chars, j))
                .collect()
        })
        .collect();
    let mut out = String::with_capacity(msg.len().min(4 * LINE_MAX));
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let kind = QUOTES.iter().position(|&q| q == c);
        if let Some(k) = kind.filter(|_| opens(&chars, i)) {
            let after = closers[k].partition_point(|&j| j <= i);
            if let Some(&end) = closers[k].get(after) {
                let inner = &chars[i + 1..end];
                out.push(c);
                if inner.len() > QUOTE_MAX {
                    push_escaped(&mut out, &inner[..QUOTE_MAX]);
                    out.push_str(&format!("... ({} characters)", inner.len()));
                } else {
                    push_escaped(&mut out, inner);
                }
                out.push(c);
                i = end + 1;
                continue;
            }
        }
        push_escaped(&mut out, &chars[i..=i]);
        i += 1;
    }
    let out = shorten_words(&out);
    let n = out.chars().count();
    if n <= LINE_MAX {
        return out;
    }
    let keep = LINE_MAX / 2;
    let head: String = out.chars().take(keep).collect();
    let tail: String = out.chars().skip(n - keep).collect();
    format!(
        "{head} ... ({} characters left out) ... {tail}",
        n - 2 * keep
    )
}

/// `s` with every space-separated word over [`WORD_MAX`] characters cut to its first
/// [`QUOTE_MAX`] and its length.
fn shorten_words(s: &str) -> String {
    let words: Vec<String> = s
        .split(' ')
        .map(|w| {
            let n = w.chars().count();
            if n > WORD_MAX {
                let head: String = w.chars().take(QUOTE_MAX).collect();
                format!("{head}... ({n} characters)")
            } else {
                w.to_string()
            }
        })
        .collect();
    words.join(" ")
}

const QUOTES: [char; 3] = ['\'', '`', '"'];

/// A quote opens a value at the start or after a space, `(`, `=` or `:`; an apostrophe inside a
/// word ("file's") does not.
fn opens(chars: &[char], i: usize) -> bool {
    i == 0 || matches!(chars[i - 1], ' ' | '(' | '=' | ':' | '[' | '\t' | '\n')
}

/// A quote ends a value when the end, a space or punctuation follows it.
fn ends_value(chars: &[char], j: usize) -> bool {
    chars
        .get(j + 1)
        .is_none_or(|n| !n.is_alphanumeric() && *n != '_')
}

/// Control characters (a newline in a value) as escapes, so the message stays one line.
fn push_escaped(out: &mut String, s: &[char]) {
    for &c in s {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_messages_are_unchanged() {
        for m in [
            "unknown protocol 'tahoe' (known: e2e, snoop)",
            "the file's settings: size '8q' is not a whole number",
            "line 3: unknown field `bufer`, expected one of `protocol`, `env`",
            "",
        ] {
            assert_eq!(one_line(m), m);
        }
    }

    #[test]
    fn long_quoted_values_are_cut_to_a_prefix() {
        let v = "x".repeat(10_000_000);
        let m = one_line(&format!("unknown protocol '{v}' (known: e2e, snoop)"));
        assert_eq!(
            m,
            format!(
                "unknown protocol '{}... (10000000 characters)' (known: e2e, snoop)",
                "x".repeat(QUOTE_MAX)
            )
        );
    }

    #[test]
    fn many_unclosed_quotes_take_linear_time() {
        // would be about 10^11 steps with a scan per quote
        let m = one_line(&" 'a".repeat(300_000));
        assert!(m.chars().count() < LINE_MAX + 100);
    }

    #[test]
    fn newlines_are_escaped_and_unquoted_text_is_bounded() {
        assert_eq!(one_line("a 'b\nc' d"), "a 'b\\nc' d");
        let m = one_line(&format!("path {} is missing", "y".repeat(5000)));
        assert_eq!(
            m,
            format!(
                "path {}... (5000 characters) is missing",
                "y".repeat(QUOTE_MAX)
            )
        );
        let words = "y ".repeat(5000);
        let m = one_line(&words);
        assert!(m.chars().count() < LINE_MAX + 100, "{m}");
        assert!(m.starts_with("y y y") && m.ends_with("y y "), "{m}");
        assert!(!m.contains('\n'));
    }

    #[test]
    fn a_long_path_is_cut_and_an_ordinary_one_kept() {
        let p = format!("/tmp/{}", "x".repeat(422));
        let m = one_line(&format!("cannot read scenario file {p}: No such file"));
        assert_eq!(
            m,
            format!(
                "cannot read scenario file /tmp/{}... (428 characters) No such file",
                "x".repeat(QUOTE_MAX - 5)
            )
        );
        let ordinary = "cannot read /work/snooplab/examples/paper002-handoff.toml: denied";
        assert_eq!(one_line(ordinary), ordinary);
    }
}

/// `n` and its noun, singular for one: "1 flow", "2 flows", "0 runs".
pub fn count(n: impl Into<u64>, noun: &str) -> String {
    let n = n.into();
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

#[cfg(test)]
mod count_tests {
    use super::count;

    #[test]
    fn one_is_singular_and_the_rest_plural() {
        assert_eq!(count(1u64, "flow"), "1 flow");
        assert_eq!(count(0u64, "run"), "0 runs");
        assert_eq!(count(2u32, "run"), "2 runs");
    }
}
