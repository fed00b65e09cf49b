//! karc's integration tests: one binary, one module per area.
//! Regression tests are named after the bug they pin down.

mod common;

mod compare;

mod anonymize;
mod api;
mod archive;
mod archive_commands;
mod archive_generated;
mod archive_refusals;
mod arrow;
mod bad_input;
mod cli;
mod codec;
mod config_docs;
mod constraints;
mod decimals;
mod declared;
mod derived;
mod docs;
mod files;
mod forged;
mod frequencies;
mod fuzzed;
mod incognito;
mod init;
mod keys;
mod mixed;
mod models;
mod newcomer;
mod partitioning;
mod parts;
mod pipeline;
mod pseudonym;
mod public_bytes;
mod public_scan;
mod report;
mod robust;
mod row_groups;
mod signed;
mod stream;
mod sweep;
mod verify;
