//! Paper 001 itself: who it is for `reproduce`, and the numbers its text gives (section 6; its
//! figures are not in our copy).

use super::testbed;
use crate::study::About;

/// Who paper 001 is for `reproduce`: "averaging the results of 50 trials" (section 6.1), FreeBSD
/// 2.2.1 hosts ([`testbed::HOST`]).
pub const ABOUT: About = About {
    name: "paper001",
    citation: "Tamura, Tobe and Tokuda, \"EFR: Efficient Fast Retransmit Scheme for TCP in a \
               Wireless Multiple Access\" (1998)",
    default_seeds: 50,
    default_host: testbed::HOST,
    parts: "retransmissions = fig15, fig16, fig17, loss; throughput = fig18, fig19",
};

// The paper's numbers the text gives (section 6).

/// "In the case of 8 Mbyte data transfer with three and four hosts, the throughputs with EFR
/// are 14.4% and 12.2% higher than that with TCP-Reno" (section 6.2): (hosts, percent).
pub const EFR_GAIN_8MB: [(usize, f64); 2] = [(3, 14.4), (4, 12.2)];
/// Our gain must be within this many percentage points of the paper's (issue 15).
pub const GAIN_TOLERANCE_POINTS: f64 = 5.0;
/// "Regardless of the number of hosts, the number of retransmitted segments is reduced
/// approximately by 10% with EFR" (section 6.1).
pub const RETRANSMISSION_FALL_PCT: f64 = 10.0;
/// "When the number of hosts is 2, N_dup(1) and N_dup(2) are both reduced with EFR from 12 to
/// 8, and from 30 to 7" (section 6.1): (i, Reno, EFR).
pub const NDUP_2_HOSTS: [(usize, f64, f64); 2] = [(1, 12.0, 8.0), (2, 30.0, 7.0)];
/// The loss rate of a single host alone (section 4.1).
pub const SEGMENT_LOSS_ALONE: f64 = testbed::SEGMENT_LOSS_ALONE;
