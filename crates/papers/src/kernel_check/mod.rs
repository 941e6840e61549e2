//! The kernel check: the simulator's `linux` host profile held to the Linux kernel it models, on
//! the same network in both clocks. The grid of points ([`grid`]) is run live with kernel hosts
//! by `snooplab kernel-check measure`, which writes the kernel's side to a data file ([`data`],
//! committed under `data/kernel-check/`), so that the simulator's side can be held to it without
//! root. docs/kernel-check.md says what each point shows.

pub mod data;
pub mod grid;
pub mod report;
pub mod study;

pub use data::{KernelData, KernelRun, PointRuns};
pub use grid::{Point, Settings};
pub use study::KernelCheck;
