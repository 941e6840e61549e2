//! The value forms every key row shares (`node.rs`, `link.rs`, `cell.rs`, `flow.rs`), read and
//! written: a leaf below both `resolve.rs` and `write.rs`, so that the rows and the two walks over
//! them do not import each other.

use snooplab_proto::duration::{format_duration, Range};
use snooplab_proto::time::{Time, SEC, US};

use crate::scenario::MAX_TIME_RANGE;
use crate::size::format_size;

/// When things happen in a file's network (`start-s`, a crash's `at-s`) and a link's delay: points
/// in a run's time, or a delay that may be none, so from 0 to the longest run there is
/// ([`MAX_TIME_RANGE`]); none of them repeats, so none can make a run that never ends.
pub(super) const FILE_TIME_RANGE: Range = Range::new(0, MAX_TIME_RANGE.max);

/// A TOML string, quoted and escaped.
pub(super) fn quote(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// A size as the files write it: `32k`, `8M` where that is exact, else the number of bytes.
pub(super) fn size(n: u64) -> String {
    let text = format_size(n);
    if text == n.to_string() {
        text
    } else {
        quote(&text)
    }
}

/// A TOML float that reads back to the same `f64` (Rust's shortest round-trip form, which always
/// has a `.` or an exponent, as TOML needs).
pub(super) fn float(x: f64) -> String {
    format!("{x:?}")
}

pub(super) fn secs(t: Time) -> f64 {
    t as f64 / SEC as f64
}

/// A time a table takes in whole microseconds; refused if it is not one.
pub(super) fn whole_us(t: Time, what: &str) -> Result<u64, String> {
    if t.is_multiple_of(US) {
        Ok(t / US)
    } else {
        Err(format!(
            "{what}: {} is not a whole number of microseconds, which the file's key needs",
            format_duration(t)
        ))
    }
}
