//! snooplab's experiments as a library, for the command line and the Python package alike: a
//! scenario from settings, a TOML file or JSON ([`scenario`], [`settings`]), a sweep's grid of
//! combinations ([`grid`]) and its summaries ([`summary`]), a paper's runs and report
//! ([`reproduce`]), and the runner that spreads runs over the cores ([`parallel`]). Errors are one
//! [`Error`] whose text is the command line's message.

pub mod error;
pub mod grid;
pub mod parallel;
pub mod reproduce;
pub mod scenario;
pub mod settings;
pub mod summary;

pub use error::Error;
