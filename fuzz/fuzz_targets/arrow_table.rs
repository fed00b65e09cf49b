#![no_main]
//! Fuzz target: see `karc::fuzzing::arrow_table` (the entry point the regression test shares).

libfuzzer_sys::fuzz_target!(|data: &[u8]| karc::fuzzing::arrow_table(data));
