//! Independent jobs shared by threads: each thread that calls
//! [`Jobs::work`] takes the next job not taken yet, so that the columns of
//! a restore's row group, or the pairs of the derived-column check, are
//! shared by both threads whatever each one costs.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The machine's cores, asked once: `available_parallelism` reads the
/// cgroup quota files each time (about 40 us, more than a section of Adult
/// takes to decode).
pub(crate) fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, usize::from))
}

/// `run(job)` of jobs `0 .. count`, in job order: on this thread and a
/// second one when `parallel` and the machine has two cores, else on this
/// thread alone. A job's panic goes on here.
pub(crate) fn on_two_threads<T: Send>(
    count: usize,
    parallel: bool,
    run: impl Fn(usize) -> T + Sync,
) -> Vec<T> {
    let jobs = Jobs::new(count);
    match parallel && count > 1 && cores() > 1 {
        true => std::thread::scope(|scope| {
            scope.spawn(|| jobs.work(&run));
            jobs.work(&run);
        }),
        false => jobs.work(&run),
    }
    jobs.results()
}

/// `count` jobs, numbered from 0, and their results.
pub(crate) struct Jobs<T> {
    next: AtomicUsize,
    /// Each job's result (a panic caught, to be passed on by
    /// [`Jobs::results`]) once done.
    results: Vec<Mutex<Option<std::thread::Result<T>>>>,
}

impl<T> Jobs<T> {
    pub(crate) fn new(count: usize) -> Self {
        Jobs {
            next: AtomicUsize::new(0),
            results: (0..count).map(|_| Mutex::new(None)).collect(),
        }
    }

    /// Runs `run(job)` on jobs not taken yet until none is left.
    pub(crate) fn work(&self, run: impl Fn(usize) -> T) {
        loop {
            let job = self.next.fetch_add(1, Ordering::Relaxed);
            let Some(slot) = self.results.get(job) else {
                return;
            };
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(job)));
            *slot.lock().unwrap_or_else(|p| p.into_inner()) = Some(result);
        }
    }

    /// Every job's result in job order, once each thread that worked has
    /// returned from [`Jobs::work`] (which the caller makes sure of); a
    /// job's panic goes on here.
    pub(crate) fn results(&self) -> Vec<T> {
        self.results
            .iter()
            .map(|slot| {
                let result = slot.lock().unwrap_or_else(|p| p.into_inner()).take();
                match result.expect("every job done before its results are taken") {
                    Ok(value) => value,
                    Err(panic) => std::panic::resume_unwind(panic),
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two threads share the jobs: each is done once, results in order.
    #[test]
    fn every_job_is_done_once_in_order() {
        let jobs = Jobs::new(1000);
        let runs = AtomicUsize::new(0);
        let run = |i: usize| {
            runs.fetch_add(1, Ordering::Relaxed);
            i * 2
        };
        std::thread::scope(|scope| {
            scope.spawn(|| jobs.work(run));
            jobs.work(run);
        });
        assert_eq!(runs.load(Ordering::Relaxed), 1000);
        assert_eq!(jobs.results(), (0..1000).map(|i| i * 2).collect::<Vec<_>>());
    }

    /// A job's panic reaches the thread that takes the results.
    #[test]
    fn a_panic_is_passed_on() {
        let jobs = Jobs::new(3);
        jobs.work(|i| {
            assert_ne!(i, 1, "job 1 fails");
            i
        });
        let taken = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| jobs.results()));
        assert!(taken.is_err());
    }
}
