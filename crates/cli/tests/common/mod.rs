//! Support shared by the integration tests.

pub mod argv;
pub mod guarded;
