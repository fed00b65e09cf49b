//! What the benchmark runners share: medians and timing.

use std::time::Instant;

/// The median of `v` (the upper one of an even count); `v` must not be empty.
pub fn median(mut v: Vec<f64>) -> f64 {
    assert!(!v.is_empty(), "median of no runs");
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Runs `f` once: its wall time in milliseconds and its result.
pub fn time_ms<T>(f: impl FnOnce() -> T) -> (f64, T) {
    let start = Instant::now();
    let out = f();
    (start.elapsed().as_secs_f64() * 1e3, out)
}
