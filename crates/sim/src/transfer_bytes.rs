//! The bytes of a transfer whose ends are real (docs/live.md, "Mixed networks"): byte `i` of flow
//! `f` is a function of the flow's seed and `i`, so that snooplab's sender in a namespace, the
//! engine's modelled sender putting real packets on the wire, and every receiver agree on what
//! arrives where, without keeping the transfer anywhere. A segment delivered at the wrong offset
//! carries the wrong bytes.

/// The seed of flow `flow`'s bytes in a network seeded `net_seed`.
pub fn seed_of(net_seed: u64, flow: usize) -> u64 {
    net_seed.wrapping_add(flow as u64)
}

/// Fills `buf` with the transfer's bytes starting at `offset` (any offset).
pub fn fill(seed: u64, offset: u64, buf: &mut [u8]) {
    let mut word = offset / 8;
    let skip = (offset % 8) as usize;
    let mut at = 0;
    if skip > 0 {
        let v = word_at(seed, word);
        let take = (8 - skip).min(buf.len());
        buf[..take].copy_from_slice(&v[skip..skip + take]);
        at = take;
        word += 1;
    }
    // whole words, then what is left of the last: a whole word is one store, where a copy of
    // a length not known in advance was a call per word (the live sender fills 1 GB with this)
    let mut words = buf[at..].chunks_exact_mut(8);
    for chunk in &mut words {
        chunk.copy_from_slice(&word_at(seed, word));
        word += 1;
    }
    let rest = words.into_remainder();
    if !rest.is_empty() {
        rest.copy_from_slice(&word_at(seed, word)[..rest.len()]);
    }
}

/// Whether `bytes` are the transfer's bytes at `offset`.
pub fn matches(seed: u64, offset: u64, bytes: &[u8]) -> bool {
    let mut expect = [0u8; 256];
    let mut at = 0;
    while at < bytes.len() {
        let n = (bytes.len() - at).min(expect.len());
        fill(seed, offset + at as u64, &mut expect[..n]);
        if expect[..n] != bytes[at..at + n] {
            return false;
        }
        at += n;
    }
    true
}

fn word_at(seed: u64, word: u64) -> [u8; 8] {
    mix(seed ^ word.wrapping_mul(0x9E37_79B9_7F4A_7C15)).to_le_bytes()
}

/// splitmix64's finaliser (the live receiver's digest uses it too).
pub fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn any_piece_continues_the_stream(start in 0u64..300, len in 0usize..300) {
            let mut all = vec![0; start as usize + len];
            fill(5, 0, &mut all);
            let mut part = vec![0; len];
            fill(5, start, &mut part);
            prop_assert_eq!(&all[start as usize..], &part[..]);
            prop_assert!(matches(5, start, &part));
            if len > 0 {
                part[len / 2] ^= 1;
                prop_assert!(!matches(5, start, &part));
            }
        }
    }

    #[test]
    fn the_bytes_are_those_the_live_sender_always_wrote() {
        // word-aligned pieces are the words of splitmix64 over (seed ^ word * golden ratio)
        let mut b = [0u8; 16];
        fill(9, 8, &mut b);
        assert_eq!(b[..8], mix(9 ^ 0x9E37_79B9_7F4A_7C15).to_le_bytes());
        assert_ne!(seed_of(1, 0), seed_of(1, 1));
    }
}
