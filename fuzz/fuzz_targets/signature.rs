#![no_main]
//! Fuzz target: see `karc::fuzzing::signature` (the entry point the regression test shares).

libfuzzer_sys::fuzz_target!(|data: &[u8]| karc::fuzzing::signature(data));
