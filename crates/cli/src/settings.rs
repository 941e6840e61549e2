//! The parsers of flags the commands share, the library's (`snooplab_lab::settings`, which owns
//! every check and message); the `run` flags as its settings are `run_cmd.rs`'s.

pub use snooplab_lab::settings::{
    channel_flag, parse_max_time, parse_seconds, parse_seed, parse_u32, split_distinct,
};
