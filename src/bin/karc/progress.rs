//! Progress on long runs: bars on a terminal, nothing when stderr is piped
//! or redirected (scripts and CI see only the final summary).

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

fn visible() -> bool {
    std::io::stderr().is_terminal()
}

/// A bar over `len` steps, hidden unless stderr is a terminal.
pub fn bar(len: u64, message: &str) -> ProgressBar {
    if !visible() {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::new(len);
    if let Ok(style) = ProgressStyle::with_template(
        "{msg:>12} [{bar:30}] {pos}/{len} {elapsed_precise} {wide_msg}",
    ) {
        pb.set_style(style.progress_chars("=> "));
    }
    pb.set_message(message.to_owned());
    pb
}

/// How long a step runs before its progress shows: a quick command prints
/// nothing but its result.
const SHOW_AFTER: Duration = Duration::from_secs(1);

/// A spinner that is cleared when dropped, so that an error's line never
/// lands beside it.
pub struct Spinner(ProgressBar);

impl std::ops::Deref for Spinner {
    type Target = ProgressBar;

    fn deref(&self) -> &ProgressBar {
        &self.0
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        self.0.finish_and_clear();
    }
}

/// A spinner for a step of unknown length, hidden unless stderr is a
/// terminal, and drawn only once the step has run for a second.
pub fn spinner(message: &str) -> Spinner {
    if !visible() {
        return Spinner(ProgressBar::hidden());
    }
    let pb = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
    if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} {elapsed}") {
        pb.set_style(style);
    }
    pb.set_message(message.to_owned());
    let shown = pb.clone();
    // Detached: it only sleeps, and ends at once when the step did.
    std::thread::spawn(move || {
        std::thread::sleep(SHOW_AFTER);
        if !shown.is_finished() {
            shown.set_draw_target(ProgressDrawTarget::stderr());
            shown.enable_steady_tick(Duration::from_millis(120));
        }
    });
    Spinner(pb)
}
