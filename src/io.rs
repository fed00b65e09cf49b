//! File input and output: memory-mapped reading and atomic writing.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use crate::{Error, Result};

/// The bytes of a file, memory-mapped when it is a regular, non-empty file
/// (large inputs are never copied) and read into memory otherwise (pipes,
/// empty files, which cannot be mapped).
pub enum Input {
    Mapped(memmap2::Mmap),
    Owned(Vec<u8>),
}

impl std::ops::Deref for Input {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Input::Mapped(m) => m,
            Input::Owned(v) => v,
        }
    }
}

impl Input {
    pub fn open(path: &Path) -> Result<Input> {
        let file = File::open(path).map_err(|e| Error::io(path, e))?;
        let meta = file.metadata().map_err(|e| Error::io(path, e))?;
        if meta.is_file() && meta.len() > 0 {
            // SAFETY: the map is read-only; a file truncated under us by another
            // process is outside what a CLI tool can guard against (as ripgrep).
            let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| Error::io(path, e))?;
            Ok(Input::Mapped(map))
        } else {
            let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
            Ok(Input::Owned(bytes))
        }
    }
}

/// Writes `path` atomically: the content goes to a temporary file in the same
/// directory, which is renamed over `path` only once `write` succeeded and the
/// data is flushed. A failure leaves any existing file untouched.
pub fn write_atomically<F>(path: &Path, write: F) -> Result<()>
where
    F: FnOnce(&mut dyn Write) -> std::io::Result<()>,
{
    write_atomically_with(path, |w| write(w).map_err(|e| Error::io(path, e)))
}

/// As [`write_atomically`], for a writer that fails with the library's
/// errors (a restore that checks what it writes) and returns what `write`
/// returns: on any error the temporary file is removed and the error
/// returned as it is.
pub fn write_atomically_with<T, F>(path: &Path, write: F) -> Result<T>
where
    F: FnOnce(&mut dyn Write) -> Result<T>,
{
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let tmp = tempfile::Builder::new()
        .prefix(".karc-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(|e| Error::io(dir, e))?;
    let written = {
        let mut out = BufWriter::new(tmp.as_file());
        let written = write(&mut out)?;
        out.flush().map_err(|e| Error::io(path, e))?;
        written
    };
    tmp.as_file().sync_all().map_err(|e| Error::io(path, e))?;
    tmp.persist(path).map_err(|e| Error::io(path, e.error))?;
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failed_write_leaves_existing_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.csv");
        std::fs::write(&path, b"keep me").unwrap();
        let r = write_atomically(&path, |w| {
            w.write_all(b"partial")?;
            Err(std::io::Error::other("boom"))
        });
        assert!(r.is_err());
        assert_eq!(std::fs::read(&path).unwrap(), b"keep me");
        write_atomically(&path, |w| w.write_all(b"new")).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        // no temporary file left behind
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
