//! karc's tools: generators, reproduction runners and benchmarks. Each
//! runner is a binary in `src/bin/`; what several share lives here.

pub mod adult_gen;
pub mod adult_stream;
pub mod bench;
pub mod facade;
pub mod huffman_bench;
pub mod long;
pub mod measured;
pub mod paper000;
pub mod paper004;
pub mod realistic;
pub mod structure;

/// CPU time (user + system) of this process and its waited-for children,
/// in milliseconds: on a shared machine wall time also measures the
/// neighbours, CPU time only the code.
pub fn cpu_ms() -> f64 {
    let total = |who| {
        // SAFETY: getrusage fills the zeroed struct it is given.
        let mut u: libc::rusage = unsafe { std::mem::zeroed() };
        unsafe { libc::getrusage(who, &mut u) };
        let ms = |t: libc::timeval| t.tv_sec as f64 * 1e3 + t.tv_usec as f64 / 1e3;
        ms(u.ru_utime) + ms(u.ru_stime)
    };
    total(libc::RUSAGE_SELF) + total(libc::RUSAGE_CHILDREN)
}
