//! A size or a time as a scenario or network file writes it (`buffer = "64k"`, `every-s = 0.5`,
//! `max-time-s = "1.5d"`), read by serde with messages that say what the value should look like
//! and what was found; the scenario's keys (`scenario/file.rs`) and the network's tables
//! (`network/file/`) both hold them.

use serde::Deserialize;
use snooplab_proto::duration::{self, Bare, Range};
use snooplab_proto::time::Time;

use crate::size::parse_size;

/// A size in a scenario file: a number of bytes or a string such as "32k".
#[derive(Clone, Debug)]
pub enum SizeValue {
    Bytes(i64),
    Text(String),
}

/// What a size in a file should look like, for messages.
const SIZE_EXPECTED: &str = "expected a size like 32k or 32768";

/// Written by hand rather than `#[serde(untagged)]`, whose only message is "data did not match any
/// variant of untagged enum SizeValue": this one says what a size looks like and what was found.
impl<'de> Deserialize<'de> for SizeValue {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<SizeValue, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = SizeValue;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str(SIZE_EXPECTED)
            }
            fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<SizeValue, E> {
                Ok(SizeValue::Bytes(n))
            }
            fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<SizeValue, E> {
                i64::try_from(n)
                    .map(SizeValue::Bytes)
                    .map_err(|_| E::custom(format!("size {n} is too large")))
            }
            // a whole number written as a float (`1400.0`) is that many bytes, as "1400.0" is
            // on the command line; anything else is not a number of bytes
            fn visit_f64<E: serde::de::Error>(self, x: f64) -> Result<SizeValue, E> {
                if x.is_finite() && x.fract() == 0.0 && x.abs() < 9.0e15 {
                    Ok(SizeValue::Bytes(x as i64))
                } else {
                    Err(E::custom(format!(
                        "{x} is not a whole number of bytes ({SIZE_EXPECTED})"
                    )))
                }
            }
            fn visit_str<E: serde::de::Error>(self, t: &str) -> Result<SizeValue, E> {
                Ok(SizeValue::Text(t.to_string()))
            }
            fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<SizeValue, E> {
                Err(E::custom(format!("{SIZE_EXPECTED}, got a boolean")))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, _: A) -> Result<SizeValue, A::Error> {
                Err(serde::de::Error::custom(format!(
                    "{SIZE_EXPECTED}, got an array"
                )))
            }
            // TOML hands dates and times over as a one-key table
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut m: A,
            ) -> Result<SizeValue, A::Error> {
                let date = m
                    .next_key::<String>()
                    .ok()
                    .flatten()
                    .is_some_and(|k| k.contains("datetime"));
                let found = if date { "a date or time" } else { "a table" };
                Err(serde::de::Error::custom(format!(
                    "{SIZE_EXPECTED}, got {found}"
                )))
            }
        }
        d.deserialize_any(V)
    }
}

impl SizeValue {
    pub fn bytes(&self, what: &str) -> Result<u64, String> {
        match self {
            SizeValue::Bytes(n) if *n < 0 => Err(format!("{what} {n} is negative")),
            SizeValue::Bytes(n) => Ok(*n as u64),
            SizeValue::Text(t) => parse_size(t).map_err(|e| format!("{what}: {e}")),
        }
    }
}

/// A time in a scenario file: a number in the unit the key's name ends in (`every-s = 0.5`,
/// `delay-ms = 2`) or a duration with its own unit (`every-s = "500ms"`, `max-time-s = "1.5d"`),
/// both read by the one duration grammar (`snooplab_proto::duration`).
#[derive(Clone, Debug, PartialEq)]
pub enum TimeValue {
    Number(f64),
    Text(String),
}

/// What a time in a file should look like, for messages.
const TIME_EXPECTED: &str = "expected a time like 1.5 or \"1.5s\"";

/// Written by hand for the reason [`SizeValue`]'s is.
impl<'de> Deserialize<'de> for TimeValue {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<TimeValue, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = TimeValue;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str(TIME_EXPECTED)
            }
            fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<TimeValue, E> {
                Ok(TimeValue::Number(n as f64))
            }
            fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<TimeValue, E> {
                Ok(TimeValue::Number(n as f64))
            }
            fn visit_f64<E: serde::de::Error>(self, x: f64) -> Result<TimeValue, E> {
                Ok(TimeValue::Number(x))
            }
            fn visit_str<E: serde::de::Error>(self, t: &str) -> Result<TimeValue, E> {
                Ok(TimeValue::Text(t.to_string()))
            }
            fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<TimeValue, E> {
                Err(E::custom(format!("{TIME_EXPECTED}, got a boolean")))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, _: A) -> Result<TimeValue, A::Error> {
                Err(serde::de::Error::custom(format!(
                    "{TIME_EXPECTED}, got an array"
                )))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, _: A) -> Result<TimeValue, A::Error> {
                Err(serde::de::Error::custom(format!(
                    "{TIME_EXPECTED}, got a table or a date"
                )))
            }
        }
        d.deserialize_any(V)
    }
}

/// Only for tables' `Default`: a key without a default of its own is given by the file.
impl Default for TimeValue {
    fn default() -> TimeValue {
        TimeValue::Number(0.0)
    }
}

impl TimeValue {
    /// The value as the file wrote it, for a message.
    pub fn text(&self) -> String {
        match self {
            TimeValue::Number(v) => format!("{v}"),
            TimeValue::Text(t) => t.clone(),
        }
    }

    /// The time in nanoseconds, a number read in `bare`'s unit, checked against `range`; `what`
    /// names the key in the message.
    pub fn time(&self, bare: Bare, range: Range, what: &str) -> Result<Time, String> {
        match self {
            TimeValue::Number(v) => duration::from_number(*v, bare, range, what),
            TimeValue::Text(t) => duration::parse_in(t, bare, range, what),
        }
    }
}
