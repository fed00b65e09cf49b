//! Measuring karc against general-purpose compressors (paper 004's
//! comparison with zip, and zstd/xz besides).

pub mod baseline;
pub mod chart;
