//! Sizes in words for reports and plot titles. (Kept out of the simulator crate on purpose: adding
//! code there reshuffles its codegen units and moved the simulation benchmark by 3%.)

use snooplab_sim::size::format_size;

/// A size for people: "8 KB", "8 MB", or "1400 B" (K = 1024), as [`format_size`] picks the unit.
pub fn format_bytes(n: u64) -> String {
    let f = format_size(n);
    if let Some(k) = f.strip_suffix('k') {
        format!("{k} KB")
    } else if let Some(m) = f.strip_suffix('M') {
        format!("{m} MB")
    } else {
        format!("{f} B")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_for_people() {
        assert_eq!(format_bytes(8192), "8 KB");
        assert_eq!(format_bytes(8 << 20), "8 MB");
        assert_eq!(format_bytes(1400), "1400 B");
    }
}
