//! Progress on long runs: bars on a terminal, nothing when stderr is piped
//! or redirected (scripts and CI see only the final summary).

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

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

/// A spinner for a step of unknown length, hidden unless stderr is a terminal.
pub fn spinner(message: &str) -> ProgressBar {
    if !visible() {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::new_spinner();
    if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} {elapsed}") {
        pb.set_style(style);
    }
    pb.set_message(message.to_owned());
    pb.enable_steady_tick(Duration::from_millis(120));
    pb
}
