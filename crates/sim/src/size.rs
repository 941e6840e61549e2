//! Byte sizes as users write them: `8192`, `8k`, `8K`, `64KiB`, `8M`.

/// Parses a size in bytes. `k`/`K` is 1024 and `m`/`M` is 1024 * 1024, as in the papers
/// ("8 Mbyte" transfers are 8 * 2^20 bytes, "32 kbyte" buffers 32768). A decimal point is allowed
/// when the result is a whole number of bytes (`1.5M` is 1572864, `1.5k` 1536), so a size means the
/// same here and in a scenario file, where `1400.0` is 1400 bytes.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    if t.is_empty() {
        return Err("empty size".into());
    }
    if t.starts_with('-') {
        return Err(format!("size '{text}' is negative"));
    }
    let lower = t.to_ascii_lowercase();
    let stripped = lower
        .strip_suffix("ib")
        .or_else(|| lower.strip_suffix('b'))
        .unwrap_or(&lower);
    let (number, mult) = match stripped.chars().last() {
        Some('k') => (&stripped[..stripped.len() - 1], 1u64 << 10),
        Some('m') => (&stripped[..stripped.len() - 1], 1u64 << 20),
        Some('g') => (&stripped[..stripped.len() - 1], 1u64 << 30),
        _ => (stripped, 1),
    };
    let (whole, frac) = number.split_once('.').unwrap_or((number, ""));
    let digits = |s: &str| s.chars().all(|c| c.is_ascii_digit());
    if whole.is_empty() || !digits(whole) || !digits(frac) {
        return Err(not_a_size(text, number));
    }
    let too_large = || format!("size '{text}' is too large");
    let n: u64 = whole.parse().map_err(|_| too_large())?;
    let n = n.checked_mul(mult).ok_or_else(too_large)?;
    // the fraction's bytes, exactly: frac / 10^len * mult, in integers; trailing zeros say nothing
    let frac = frac.trim_end_matches('0');
    if frac.is_empty() {
        return Ok(n);
    }
    let not_whole = || format!("size '{text}' is not a whole number of bytes");
    if frac.len() > 20 {
        return Err(not_whole());
    }
    let f: u128 = frac.parse().map_err(|_| not_whole())?;
    let scaled = f * u128::from(mult);
    let unit = 10u128.pow(frac.len() as u32);
    if !scaled.is_multiple_of(unit) {
        return Err(not_whole());
    }
    let extra = u64::try_from(scaled / unit).map_err(|_| too_large())?;
    n.checked_add(extra).ok_or_else(too_large)
}

/// Why `text` is not a size, `number` being what is left after the unit was taken off: a unit
/// that is not known (`2T`), a number with an exponent (`1e6`), or no number at all. Each says what
/// to write instead; "not a whole number" would send the user looking for a fraction.
fn not_a_size(text: &str, number: &str) -> String {
    const EXAMPLES: &str = "examples: 8192, 8k, 1.5M";
    let t = text.trim();
    let unit: String = t
        .chars()
        .rev()
        .take_while(|c| c.is_ascii_alphabetic())
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    let before_unit = &t[..t.len() - unit.len()];
    let looks_numeric = |s: &str| s.parse::<f64>().is_ok_and(f64::is_finite);
    if !unit.is_empty() && looks_numeric(before_unit) {
        let e_form = before_unit.contains(['e', 'E']);
        if !e_form {
            return format!(
                "size '{text}' has an unknown unit '{unit}' (known: k, M, G, also as kB or KiB; \
                 k = 1024)"
            );
        }
    }
    if looks_numeric(number) {
        return format!(
            "size '{text}' has an exponent: write the bytes in digits, or with a unit ({EXAMPLES})"
        );
    }
    format!("size '{text}' is not a number of bytes ({EXAMPLES})")
}

/// Formats a size the way `parse_size` reads it, compactly (`32k`, `8M`, `1400`).
pub fn format_size(n: u64) -> String {
    if n >= 1 << 20 && n.is_multiple_of(1 << 20) {
        format!("{}M", n >> 20)
    } else if n >= 1 << 10 && n.is_multiple_of(1 << 10) {
        format!("{}k", n >> 10)
    } else {
        n.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn examples() {
        assert_eq!(parse_size("8192"), Ok(8192));
        assert_eq!(parse_size("8k"), Ok(8192));
        assert_eq!(parse_size("8K"), Ok(8192));
        assert_eq!(parse_size("64KiB"), Ok(65536));
        assert_eq!(parse_size("8M"), Ok(8 << 20));
        assert_eq!(parse_size("0"), Ok(0));
        assert!(parse_size("-8k").unwrap_err().contains("negative"));
        assert!(parse_size("eight").is_err());
        assert_eq!(parse_size("1.5k"), Ok(1536));
        assert_eq!(parse_size("1.5M"), Ok(1_572_864));
        assert_eq!(parse_size("1400.0"), Ok(1400));
        assert_eq!(parse_size("0.25k"), Ok(256));
        assert!(parse_size("1.1k")
            .unwrap_err()
            .contains("not a whole number of bytes"));
        assert!(parse_size("1400.5")
            .unwrap_err()
            .contains("not a whole number of bytes"));
        assert!(parse_size(".5k").is_err());
        assert!(parse_size("1.2.3k").is_err());
        assert!(parse_size("1e3").is_err());
        assert!(parse_size("").is_err());
        assert!(parse_size("99999999999999999999G").is_err());
    }

    #[test]
    fn messages_say_what_is_wrong_with_the_number() {
        let e = |t: &str| parse_size(t).unwrap_err();
        assert!(e("2T").contains("unknown unit 'T'"), "{}", e("2T"));
        assert!(e("2TB").contains("unknown unit 'TB'"), "{}", e("2TB"));
        assert!(e("1.5x").contains("unknown unit 'x'"), "{}", e("1.5x"));
        assert!(e("1e300").contains("has an exponent"), "{}", e("1e300"));
        assert!(e("1e3k").contains("has an exponent"), "{}", e("1e3k"));
        assert!(e("18446744073709551616").contains("too large"));
        assert!(
            e("eight").contains("not a number of bytes"),
            "{}",
            e("eight")
        );
        assert!(e("1.1k").contains("not a whole number of bytes"));
    }

    proptest! {
        #[test]
        fn format_then_parse_round_trips(n in 0u64..(1 << 40)) {
            prop_assert_eq!(parse_size(&format_size(n)), Ok(n));
        }

        #[test]
        fn never_panics(s in "\\PC*") {
            let _ = parse_size(&s);
        }
    }
}
