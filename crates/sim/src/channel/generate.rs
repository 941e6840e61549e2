//! Making channel traces (`snooplab channel-trace`): from a Gilbert-Elliott process, or from a measured
//! loss process (a `ping` log, whose missing sequence numbers are the lost frames).

use snooplab_proto::Time;

use super::{ChannelTrace, GilbertElliott, GilbertElliottParams, Marks};
use crate::rng::ChannelStreams;

/// Per-frame marks of a Gilbert-Elliott channel for `frames` frames of `frame_bytes` bytes starting
/// every `gap` ns (the first at time 0), drawn with `seed`.
pub fn gilbert_elliott_frames(
    p: GilbertElliottParams,
    seed: u64,
    frames: u64,
    frame_bytes: u32,
    gap: Time,
    repeat: bool,
) -> ChannelTrace {
    let mut g = GilbertElliott::new(p, &ChannelStreams::trace(seed));
    let lost = (0..frames)
        .map(|i| g.corrupts(i.saturating_mul(gap), frame_bytes))
        .collect();
    ChannelTrace {
        source: "gilbert-elliott".into(),
        marks: Marks::Frames { lost, repeat },
    }
}

/// The bad periods of a Gilbert-Elliott channel's state over `duration` ns, drawn with `seed`: the
/// time form, in which every frame starting in a bad period is lost and every other one passes.
///
/// Refused once the trace would hold more than `max_periods` bad periods (memory stays bounded
/// whatever the state times; the CLI passes what a trace file can hold, [`MAX_TRACE_PERIODS`]).
///
/// [`MAX_TRACE_PERIODS`]: super::replay::MAX_TRACE_PERIODS
pub fn gilbert_elliott_times(
    p: GilbertElliottParams,
    seed: u64,
    duration: Time,
    max_periods: usize,
) -> Result<ChannelTrace, String> {
    let mut g = GilbertElliott::new(p, &ChannelStreams::trace(seed));
    let mut bad = Vec::new();
    let mut start = g.is_bad(0).then_some(0);
    let mut t = 0;
    while t < duration {
        if bad.len() >= max_periods {
            return Err(format!(
                "more than {max_periods} bad periods within {:.3} s, more than a trace file holds: \
                 shorten --duration or lengthen --good-time/--bad-time",
                duration as f64 / 1e9
            ));
        }
        t = g.state_ends().min(duration);
        let now_bad = g.is_bad(t);
        match (start, now_bad) {
            (None, true) => start = Some(t),
            (Some(s), false) => {
                bad.push((s, t));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        if s < duration {
            bad.push((s, duration));
        }
    }
    Ok(ChannelTrace {
        source: "gilbert-elliott".into(),
        marks: Marks::Times { bad },
    })
}

/// Per-frame marks from a `ping` log (iputils or BSD format): each `icmp_seq=N` line is a frame that
/// arrived; a sequence number missing between the first and the last sent (the `N packets
/// transmitted` summary, when present) is a lost frame. Duplicates and other lines are ignored.
pub fn from_ping_log(text: &str, source: &str) -> Result<ChannelTrace, String> {
    let mut seen: Vec<u64> = Vec::new();
    let mut transmitted: Option<u64> = None;
    for line in text.lines() {
        if let Some(i) = line.find("icmp_seq=") {
            let digits: String = line[i + 9..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            if let Ok(n) = digits.parse::<u64>() {
                seen.push(n);
            }
        } else if let Some(i) = line.find(" packets transmitted") {
            transmitted = line[..i]
                .rsplit(|c: char| !c.is_ascii_digit())
                .next()
                .and_then(|d| d.parse().ok());
        }
    }
    seen.sort_unstable();
    seen.dedup();
    let (Some(&first), Some(&last)) = (seen.first(), seen.last()) else {
        return Err(format!(
            "{source}: no `icmp_seq=` replies found: is it the output of `ping`?"
        ));
    };
    // iputils counts from 1, BSD from 0: the summary's count runs from the first number seen
    let end = match transmitted {
        Some(n) if n > 0 => (first + n - 1).max(last),
        _ => last,
    };
    if end - first > 100_000_000 {
        return Err(format!("{source}: more than 100 million pings"));
    }
    let mut lost = vec![true; (end - first + 1) as usize];
    for n in seen {
        lost[(n - first) as usize] = false;
    }
    Ok(ChannelTrace {
        source: source.to_string(),
        marks: Marks::Frames {
            lost,
            repeat: false,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::channel::Replay;
    use std::sync::Arc;

    const MS: Time = 1_000_000;

    fn params() -> GilbertElliottParams {
        GilbertElliottParams {
            good_every: 0,
            bad_every: 64,
            good_time: 300 * MS,
            bad_time: 30 * MS,
        }
    }

    #[test]
    fn frame_traces_replay_the_process_they_came_from() {
        let t = gilbert_elliott_frames(params(), 7, 50_000, 1440, 6 * MS, false);
        let Marks::Frames { lost, .. } = &t.marks else {
            panic!("frame marks")
        };
        let share = lost.iter().filter(|&&l| l).count() as f64 / lost.len() as f64;
        assert!((share - params().loss_rate(1440)).abs() < 0.02, "{share}");
        let mut r = Replay::new(Arc::new(t.clone()));
        assert!(lost
            .iter()
            .enumerate()
            .all(|(i, &l)| r.corrupts(i as Time) == l));
    }

    #[test]
    fn time_traces_hold_the_bad_share() {
        let duration = 2_000_000 * MS;
        let t = gilbert_elliott_times(params(), 3, duration, usize::MAX).unwrap();
        let Marks::Times { bad } = &t.marks else {
            panic!("time marks")
        };
        let bad_time: Time = bad.iter().map(|(s, e)| e - s).sum();
        let share = bad_time as f64 / duration as f64;
        assert!((share / params().bad_share() - 1.0).abs() < 0.05, "{share}");
        assert!(
            bad.windows(2).all(|w| w[0].1 < w[1].0),
            "disjoint, in order"
        );
        // and the text form parses back to the same trace
        let back = ChannelTrace::parse(&t.to_text(""), "gilbert-elliott").unwrap();
        assert_eq!(back, t);
    }

    #[test]
    fn time_traces_past_their_bound_are_refused_not_grown() {
        // a microsecond-long state over a day would be 43 billion periods
        let p = GilbertElliottParams {
            good_time: 1_000,
            bad_time: 1_000,
            ..params()
        };
        let err = gilbert_elliott_times(p, 1, 86_400_000 * MS, 1_000).unwrap_err();
        assert!(err.contains("more than 1000 bad periods"), "{err}");
        // within the bound the same call succeeds
        let ok = gilbert_elliott_times(p, 1, MS, 1_000).unwrap();
        let Marks::Times { bad } = &ok.marks else {
            panic!("time marks")
        };
        assert!(!bad.is_empty() && bad.len() <= 1_000);
    }

    #[test]
    fn a_ping_log_gives_its_missing_replies() {
        let log = "PING 10.0.0.2 (10.0.0.2) 56(84) bytes of data.\n\
            64 bytes from 10.0.0.2: icmp_seq=1 ttl=64 time=0.05 ms\n\
            64 bytes from 10.0.0.2: icmp_seq=2 ttl=64 time=0.05 ms\n\
            64 bytes from 10.0.0.2: icmp_seq=4 ttl=64 time=0.05 ms\n\
            64 bytes from 10.0.0.2: icmp_seq=4 ttl=64 time=0.05 ms (DUP!)\n\
            \n--- 10.0.0.2 ping statistics ---\n\
            6 packets transmitted, 3 received, 50% packet loss, time 5005ms\n";
        let t = from_ping_log(log, "p").unwrap();
        assert_eq!(
            t.marks,
            Marks::Frames {
                lost: vec![false, false, true, false, true, true],
                repeat: false
            }
        );
        assert!(from_ping_log("hello\n", "p")
            .unwrap_err()
            .contains("icmp_seq"));
    }
}
