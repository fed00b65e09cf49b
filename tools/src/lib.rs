//! karc's tools: generators, reproduction runners and benchmarks. Each
//! runner is a binary in `src/bin/`; what several share lives here.

pub mod adult_gen;
pub mod paper000;
pub mod paper004;
