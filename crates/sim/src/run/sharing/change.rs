//! What a twin changes in its member's network ([`Change`]): the one value the sharing of runs
//! passes between grouping them (`family.rs`) and running them (`line.rs`).

use snooplab_proto::tcp::Addition;

/// What a twin changes in its member's network: a rule the run reads in one place, so that the
/// two runs are one until it is first read there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// A policy point added to some flows' protocols, read in one place of a TCP
    /// ([`Tcp::would_have_acted`]).
    ///
    /// [`Tcp::would_have_acted`]: snooplab_proto::tcp::Tcp::would_have_acted
    Adds(Addition),
    /// Old primaries drop the frames their interface queue holds for the mobile host at its
    /// `Buffer` request, where the member's drain them ([`OldPrimaryQueue`](crate::network::OldPrimaryQueue)): read only when
    /// such a request reaches a base station (`roaming.rs`).
    DropsOldQueue,
}
