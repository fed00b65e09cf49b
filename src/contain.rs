//! Panics of a dependency held at the boundary: a corrupt Arrow IPC file
//! can make arrow-buffer panic (`the offset of the new Buffer cannot exceed
//! the existing length`) before arrow-ipc validates anything (issue 32:
//! 42 of 1,100 mutated files; in Python a `PanicException` that escapes
//! `except Exception`). [`contained`] turns such a panic into an error
//! message, without the panic's report on standard error.

use std::cell::Cell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

thread_local! {
    /// Whether this thread is inside [`contained`]: its panics are errors
    /// to return, not reports to print.
    static CONTAINED: Cell<bool> = const { Cell::new(false) };
}

static HOOK: Once = Once::new();

/// Runs `f`; a panic inside it becomes `Err` with the panic's message.
/// The process's panic hook is wrapped once, so that a contained panic
/// prints nothing while every other panic is reported as before.
pub fn contained<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if !CONTAINED.with(Cell::get) {
                previous(info);
            }
        }));
    });
    let outer = CONTAINED.with(|c| c.replace(true));
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    CONTAINED.with(|c| c.set(outer));
    result.map_err(|payload| {
        payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a decoder failed on malformed input".to_owned())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_its_message_and_values_pass() {
        assert_eq!(contained(|| 7), Ok(7));
        let v: Vec<u8> = Vec::new();
        let err = contained(|| v[3]).unwrap_err();
        assert!(err.contains("index out of bounds"), "{err}");
        assert_eq!(
            contained(|| panic!("{}", "own")),
            Err::<(), _>("own".to_owned())
        );
    }
}
