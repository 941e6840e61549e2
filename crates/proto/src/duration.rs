//! Durations as text: the one grammar every command-line flag and scenario-file key that takes a
//! time reads (issue 49), and the one way their limits are said.
//!
//! A duration is a decimal number, with an optional fraction and exponent, and a unit: `50ms`,
//! `1.5s`, `1e7s`, `2min`, `1.5d`, `250 us`. The units are `ns`, `us` (also `µs`), `ms`, `s`, `min`,
//! `h` and `d`. A number without a unit is read in the unit its setting names (`--max-time 600`
//! and `every-s = 2` are seconds, a host's `read-delay = 5` milliseconds, as each was before this
//! grammar); a setting may refuse bare numbers instead. The value is exact decimal arithmetic
//! rounded to the nearest nanosecond (half up), never a float, so `0.1s` is 100,000,000 ns.
//!
//! Each setting has its own [`Range`], a named constant where it is defined with why; every
//! message says it in the one form [`Range::text`] gives, `between 1 ns and 1 d`.

use crate::time::{Time, MS, SEC, US};

/// One minute.
pub const MIN: Time = 60 * SEC;
/// One hour.
pub const HOUR: Time = 60 * MIN;
/// One day.
pub const DAY: Time = 24 * HOUR;

/// The units a duration may carry, from the longest to the shortest (the order messages show a
/// value in: the largest unit that divides it).
const UNITS: [(&str, Time); 7] = [
    ("d", DAY),
    ("h", HOUR),
    ("min", MIN),
    ("s", SEC),
    ("ms", MS),
    ("us", US),
    ("ns", 1),
];

/// Significant digits a duration's number may have: more than any time a nanosecond clock can tell
/// apart (2^64 ns has 20), few enough that a number times a day in nanoseconds fits a `u128`.
const MAX_DIGITS: usize = 24;

/// How a number without a unit is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bare {
    /// As seconds (`--max-time 600`, `every-s = 2`).
    Seconds,
    /// As milliseconds (a host's `read-delay = 5`).
    Millis,
    /// As microseconds (a node's `forwarding-us = 250`).
    Micros,
    /// Not at all: the unit is required (a channel's `good-time`).
    Refused,
}

impl Bare {
    fn unit(self) -> Option<Time> {
        match self {
            Bare::Seconds => Some(SEC),
            Bare::Millis => Some(MS),
            Bare::Micros => Some(US),
            Bare::Refused => None,
        }
    }
}

/// The durations a setting takes, both ends included.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Range {
    pub min: Time,
    pub max: Time,
}

impl Range {
    pub const fn new(min: Time, max: Time) -> Range {
        Range { min, max }
    }

    pub fn contains(&self, t: Time) -> bool {
        (self.min..=self.max).contains(&t)
    }

    /// The range as every message says it: `between 1 ns and 1 d`.
    pub fn text(&self) -> String {
        format!("between {} and {}", show(self.min), show(self.max))
    }
}

/// Why a text is not a duration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DurationError {
    /// Not of the grammar at all.
    NotADuration,
    /// A number without a unit where the setting requires one.
    NeedsUnit,
    /// Of the grammar, but negative or beyond what 64-bit nanoseconds hold.
    OutOfRange,
}

/// Reads a duration, in nanoseconds; `bare` says how a number without a unit is read.
pub fn parse(text: &str, bare: Bare) -> Result<Time, DurationError> {
    let t = text.trim();
    let (negative, t) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let (number, rest) = split_number(t).ok_or(DurationError::NotADuration)?;
    let unit = match rest.trim() {
        "" => bare.unit().ok_or(DurationError::NeedsUnit)?,
        "µs" => US,
        u => UNITS
            .iter()
            .find(|(name, _)| *name == u)
            .map(|(_, ns)| *ns)
            .ok_or(DurationError::NotADuration)?,
    };
    let ns = number.times(unit).ok_or(DurationError::OutOfRange)?;
    if negative && ns != 0 {
        return Err(DurationError::OutOfRange);
    }
    Ok(ns)
}

/// A decimal number as digits and a power of ten: `mantissa * 10^exp`.
struct Decimal {
    mantissa: u128,
    exp: i64,
}

impl Decimal {
    /// `self * unit` in nanoseconds, rounded half up; `None` beyond `u64`.
    fn times(&self, unit: Time) -> Option<Time> {
        let scaled = self.mantissa.checked_mul(u128::from(unit))?;
        if scaled == 0 {
            return Some(0);
        }
        let ns = if self.exp >= 0 {
            let p = 10u128.checked_pow(u32::try_from(self.exp).ok()?)?;
            scaled.checked_mul(p)?
        } else {
            // `scaled` is below 10^38 (24 digits times a day in ns): past 10^39 it rounds to 0
            match 10u128.checked_pow(u32::try_from(-self.exp).ok()?) {
                Some(p) => (scaled + p / 2) / p,
                None => 0,
            }
        };
        Time::try_from(ns).ok()
    }
}

/// The leading number of `t` (`12`, `1.5`, `.5`, `1e7`, `2.5E-3`) and what follows it.
fn split_number(t: &str) -> Option<(Decimal, &str)> {
    let b = t.as_bytes();
    let digits_from = |i: usize| b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
    let int_len = digits_from(0);
    let mut i = int_len;
    let mut frac_len = 0;
    if b.get(i) == Some(&b'.') {
        frac_len = digits_from(i + 1);
        i += 1 + frac_len;
    }
    if int_len + frac_len == 0 {
        return None;
    }
    let mut exp: i64 = 0;
    if matches!(b.get(i), Some(b'e' | b'E')) {
        let mut j = i + 1;
        let sign = match b.get(j) {
            Some(b'-') => {
                j += 1;
                -1
            }
            Some(b'+') => {
                j += 1;
                1
            }
            _ => 1,
        };
        let n = digits_from(j);
        if n > 0 {
            // an exponent past 4 digits is out of any range; the cap keeps the sum in an i64
            let e: i64 = t[j..j + n.min(5)].parse().ok()?;
            exp = sign * if n > 5 { 99_999 } else { e };
            i = j + n;
        }
        // `1e` with no digits: the `e` is not an exponent, and no unit starts with it
    }
    let digits: String = t[..int_len]
        .chars()
        .chain(t[int_len..].chars().skip(1).take(frac_len))
        .collect();
    let significant = digits.trim_start_matches('0');
    let trimmed = significant.trim_end_matches('0');
    let trailing_zeros = (significant.len() - trimmed.len()) as i64;
    if trimmed.len() > MAX_DIGITS {
        return None;
    }
    let mantissa: u128 = if trimmed.is_empty() {
        0
    } else {
        trimmed.parse().ok()?
    };
    Some((
        Decimal {
            mantissa,
            exp: exp + trailing_zeros - frac_len as i64,
        },
        &t[i..],
    ))
}

/// A duration as messages show it: the largest unit that divides it (`1 ns`, `1024 us`, `1 d`,
/// `10000000 s`); `0` alone.
pub fn show(t: Time) -> String {
    if t == 0 {
        return "0".into();
    }
    let (name, ns) = UNITS
        .iter()
        .find(|(_, ns)| t.is_multiple_of(*ns))
        .copied()
        .unwrap_or(("ns", 1));
    format!("{} {name}", t / ns)
}

/// The first 40 characters of what the user wrote, for a message.
fn quoted(text: &str) -> String {
    text.trim().chars().take(40).collect()
}

/// The message for `text`, given as `what`, that is not a duration: what one looks like.
pub fn not_a_duration(what: &str, text: &str, bare: Bare) -> String {
    let bare = match bare {
        Bare::Seconds => "; a bare number is seconds",
        Bare::Millis => "; a bare number is milliseconds",
        Bare::Micros => "; a bare number is microseconds",
        Bare::Refused => "",
    };
    format!(
        "{what} '{}' is not a duration (a number and a unit: ns, us, ms, s, min, h or d, e.g. \
         50ms, 1.5s, 1e7s, 1d{bare})",
        quoted(text)
    )
}

/// The message for a duration outside its setting's range.
pub fn out_of_range(what: &str, text: &str, range: Range) -> String {
    format!("{what} '{}' must be {}", quoted(text), range.text())
}

/// Reads the duration `text` of the setting `what` and checks it against `range`: the one call of
/// every flag and key, with one message per failure.
pub fn parse_in(text: &str, bare: Bare, range: Range, what: &str) -> Result<Time, String> {
    match parse(text, bare) {
        Ok(t) if range.contains(t) => Ok(t),
        Ok(_) | Err(DurationError::OutOfRange) => Err(out_of_range(what, text, range)),
        Err(DurationError::NeedsUnit) => Err(format!(
            "{what} '{}' needs a unit (ns, us, ms, s, min, h or d, e.g. 50ms)",
            quoted(text)
        )),
        Err(DurationError::NotADuration) => Err(not_a_duration(what, text, bare)),
    }
}

/// A number from a file (a TOML or JSON number), in the unit `bare` names, read as its text
/// would be: its shortest decimal form through [`parse`], so `every-s = 0.1` and `every-s =
/// "0.1s"` are one value. Negative, infinite and NaN numbers are out of range.
pub fn from_number(v: f64, bare: Bare, range: Range, what: &str) -> Result<Time, String> {
    let shown = format!("{v}");
    let unit = bare.unit().unwrap_or(SEC) as f64;
    if !v.is_finite() || v < 0.0 || v * unit >= u64::MAX as f64 {
        return Err(out_of_range(what, &shown, range));
    }
    // `{:?}` would write an exponent for tiny numbers; `{}` writes every digit, which the
    // grammar reads to the nanosecond
    parse_in(&shown, bare, range, what)
}

/// A duration as [`parse`] reads it back with bare milliseconds or none: `0`, `250us`, `2ms`,
/// `1s`, `1.250us` (a host profile's `read-delay`, a channel's times).
pub fn format_duration(t: Time) -> String {
    if t == 0 {
        "0".into()
    } else if t.is_multiple_of(SEC) {
        format!("{}s", t / SEC)
    } else if t.is_multiple_of(MS) {
        format!("{}ms", t / MS)
    } else if t.is_multiple_of(US) {
        format!("{}us", t / US)
    } else {
        format!("{}.{:03}us", t / US, t % US)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn s(text: &str) -> Result<Time, DurationError> {
        parse(text, Bare::Seconds)
    }

    #[test]
    fn the_grammar() {
        assert_eq!(s("1e7s"), Ok(10_000_000 * SEC));
        assert_eq!(s("1e7"), Ok(10_000_000 * SEC));
        assert_eq!(s("1.5d"), Ok(DAY + 12 * HOUR));
        assert_eq!(s("1d"), Ok(DAY));
        assert_eq!(s("2min"), Ok(120 * SEC));
        assert_eq!(s("3h"), Ok(3 * HOUR));
        assert_eq!(s("250 us"), Ok(250 * US));
        assert_eq!(s("250µs"), Ok(250 * US));
        assert_eq!(s("7ns"), Ok(7));
        assert_eq!(s(".5ms"), Ok(500 * US));
        assert_eq!(s("0.1"), Ok(100 * MS));
        assert_eq!(s("2.5E-3s"), Ok(2_500 * US));
        assert_eq!(s("1e-6"), Ok(US));
        assert_eq!(s("0.000001"), Ok(US));
        assert_eq!(s("+3s"), Ok(3 * SEC));
        assert_eq!(s("-0"), Ok(0));
        // below a nanosecond: rounded half up
        assert_eq!(s("1.5ns"), Ok(2));
        assert_eq!(s("0.4ns"), Ok(0));
        assert_eq!(s("1e-300s"), Ok(0));
        assert_eq!(parse("5", Bare::Millis), Ok(5 * MS));
        assert_eq!(parse("5", Bare::Micros), Ok(5 * US));
        assert_eq!(parse("5", Bare::Refused), Err(DurationError::NeedsUnit));
        for bad in [
            "", "s", "x", "1x", "1 s s", "1..5s", "1e", "1es", "e7s", "1msx", "1m",
        ] {
            assert_eq!(s(bad), Err(DurationError::NotADuration), "{bad}");
        }
        for big in ["-1s", "1e300s", "600000d", "18446744073709551616ns"] {
            assert_eq!(s(big), Err(DurationError::OutOfRange), "{big}");
        }
        assert_eq!(s("18446744073709551615ns"), Ok(u64::MAX));
    }

    #[test]
    fn messages_say_the_range_one_way() {
        let day = Range::new(1, DAY);
        assert_eq!(day.text(), "between 1 ns and 1 d");
        assert_eq!(
            parse_in("2d", Bare::Seconds, day, "duration"),
            Err("duration '2d' must be between 1 ns and 1 d".into())
        );
        assert_eq!(
            parse_in("0", Bare::Seconds, day, "duration"),
            Err("duration '0' must be between 1 ns and 1 d".into())
        );
        assert!(parse_in("soon", Bare::Seconds, day, "duration")
            .unwrap_err()
            .starts_with("duration 'soon' is not a duration"));
        assert_eq!(
            parse_in("5", Bare::Refused, day, "good-time"),
            Err("good-time '5' needs a unit (ns, us, ms, s, min, h or d, e.g. 50ms)".into())
        );
        assert_eq!(
            Range::new(1024 * US, 10_000_000 * SEC).text(),
            "between 1024 us and 10000000 s"
        );
        assert_eq!(
            from_number(1e-6, Bare::Seconds, Range::new(MS, DAY), "every-s"),
            Err("every-s '0.000001' must be between 1 ms and 1 d".into())
        );
        assert_eq!(
            from_number(0.1, Bare::Seconds, Range::new(0, DAY), "x"),
            Ok(100 * MS)
        );
        for v in [f64::NAN, f64::INFINITY, -1.0, 1e300] {
            assert!(
                from_number(v, Bare::Seconds, Range::new(0, DAY), "x").is_err(),
                "{v}"
            );
        }
    }

    proptest! {
        #[test]
        fn formatted_durations_round_trip(ns in 0u64..20_000_000_000) {
            prop_assert_eq!(parse(&format_duration(ns), Bare::Millis), Ok(ns));
        }

        #[test]
        fn shown_durations_round_trip(ns in any::<u64>()) {
            prop_assert_eq!(parse(&show(ns), Bare::Refused).or(parse(&show(ns), Bare::Seconds)), Ok(ns));
        }

        #[test]
        fn numbers_are_read_as_their_decimal_text(v in 0.0f64..1e7) {
            let old = (v * SEC as f64).round() as Time;
            let new = from_number(v, Bare::Seconds, Range::new(0, u64::MAX), "x");
            // the same nanosecond as multiplying by 1e9 and rounding, but for a float's last bit
            prop_assert!(new.as_ref().is_ok_and(|t| t.abs_diff(old) <= 1), "{v}: {new:?} vs {old}");
        }

        #[test]
        fn the_parser_never_panics(text in "\\PC{0,16}") {
            let _ = parse(&text, Bare::Seconds);
            let _ = parse_in(&text, Bare::Refused, Range::new(1, DAY), "x");
        }

        #[test]
        fn the_parser_never_panics_on_numbers(text in "[-+]?[0-9.]{0,30}([eE][-+]?[0-9]{0,8})? ?(ns|us|ms|s|min|h|d)?") {
            let _ = parse(&text, Bare::Seconds);
        }
    }
}
