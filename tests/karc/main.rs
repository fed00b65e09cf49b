//! karc's integration tests: one binary, one module per area.
//! Regression tests are named after the bug they pin down.

mod common;

mod compare;

mod anonymize;
mod api;
mod archive;
mod arrow;
mod bad_input;
mod cli;
mod codec;
mod constraints;
mod files;
mod forged;
mod fuzzed;
mod incognito;
mod mixed;
mod partitioning;
mod pipeline;
mod robust;
mod stream;
mod sweep;
mod verify;
