//! What a twin changes in its member's network ([`Change`]): the one value the sharing of runs
//! passes between grouping them (`family.rs`) and running them (`line.rs`).

use snooplab_proto::tcp::Addition;

/// What a twin changes in its member's network: a rule the run reads in one place, so that the
/// two runs are one until it is first read there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// A policy point added to some flows' protocols, read in one place of a TCP, where a sender
    /// without it notes when it would have acted ([`SharingHook::witnesses`]).
    ///
    /// [`SharingHook::witnesses`]: snooplab_proto::tcp::SharingHook::witnesses
    Adds(Addition),
}
