//! A CSV file read where it lies, piece by piece, instead of held whole: a
//! pack reads it once for the table and again, row group by row group, for
//! the private part, so it never holds the input beside its columns.
//! Between the reads the file must not change: its size and modification
//! time are checked at every read (a changed file is refused, as a file
//! whose size changes while it is read whole is).

use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::{Error, Result};

/// The reading buffer of a CSV parser over a file.
const READ_BUFFER: usize = 1 << 20;

/// Bytes read at a time when looking for a line's end.
const LINE_PIECE: usize = 64 << 10;

/// A regular file, its size and modification time when opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CsvFile {
    path: PathBuf,
    len: u64,
    modified: Option<SystemTime>,
}

impl CsvFile {
    /// The regular file at `path`; `None` for anything else (a pipe, a
    /// device), which can be read only once.
    pub fn open(path: &Path) -> Result<Option<CsvFile>> {
        let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
        Ok(meta.is_file().then(|| CsvFile {
            path: path.to_owned(),
            len: meta.len(),
            modified: meta.modified().ok(),
        }))
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Its size in bytes when opened.
    pub fn len(&self) -> usize {
        usize::try_from(self.len).unwrap_or(usize::MAX)
    }

    /// Whether it is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Refuses a file whose size or modification time is not what they
    /// were when it was opened.
    pub fn check_unchanged(&self) -> Result<()> {
        let meta = std::fs::metadata(&self.path).map_err(|e| Error::io(&self.path, e))?;
        if meta.len() == self.len && meta.modified().ok() == self.modified {
            return Ok(());
        }
        Err(Error::io(
            &self.path,
            std::io::Error::other(format!(
                "the file changed while karc read it ({} bytes when opened, {} now, or a new \
                 modification time); run again once nothing writes to it",
                self.len,
                meta.len()
            )),
        ))
    }

    /// A buffered reader from byte `at` to the end.
    pub fn reader_at(&self, at: usize) -> Result<BufReader<File>> {
        Ok(BufReader::with_capacity(READ_BUFFER, self.file_at(at)?))
    }

    /// The file opened at byte `at` (for a reader that buffers itself).
    pub fn file_at(&self, at: usize) -> Result<File> {
        let io = |e| Error::io(&self.path, e);
        let mut file = File::open(&self.path).map_err(io)?;
        file.seek(SeekFrom::Start(at as u64)).map_err(io)?;
        Ok(file)
    }

    /// Bytes `range`, which must lie in the file as opened.
    pub fn read_range(&self, range: Range<usize>) -> Result<Vec<u8>> {
        self.check_unchanged()?;
        let want = range.end.saturating_sub(range.start);
        let mut bytes = Vec::new();
        bytes.try_reserve_exact(want).map_err(|_| {
            Error::io(
                &self.path,
                std::io::Error::other(format!("{want} bytes do not fit in memory")),
            )
        })?;
        let mut reader = self.reader_at(range.start)?.take(want as u64);
        reader
            .read_to_end(&mut bytes)
            .map_err(|e| Error::io(&self.path, e))?;
        if bytes.len() != want {
            // Shorter than when opened: truncated since.
            self.check_unchanged()?;
        }
        Ok(bytes)
    }

    /// The whole file.
    pub fn read_all(&self) -> Result<Vec<u8>> {
        let bytes = self.read_range(0..self.len())?;
        self.check_unchanged()?;
        Ok(bytes)
    }

    /// The file's first bytes, up to and with its first line end outside
    /// quotes (the whole file when it has none): what the delimiter and
    /// the line ending are told from.
    pub fn head(&self) -> Result<Vec<u8>> {
        let mut reader = self.reader_at(0)?;
        let mut head = Vec::new();
        let mut quoted = false;
        let mut scanned = 0;
        loop {
            let read = (&mut reader)
                .take(LINE_PIECE as u64)
                .read_to_end(&mut head)
                .map_err(|e| Error::io(&self.path, e))?;
            let end = head[scanned..].iter().position(|&b| {
                quoted ^= b == b'"';
                b == b'\n' && !quoted
            });
            if let Some(i) = end {
                head.truncate(scanned + i + 1);
                return Ok(head);
            }
            scanned = head.len();
            if read == 0 {
                return Ok(head);
            }
        }
    }

    /// The first line start at or after byte `from` (after a `\n`), when
    /// one is before the end.
    pub fn line_start(&self, from: usize) -> Result<Option<usize>> {
        let mut reader = self.reader_at(from)?;
        let mut piece = Vec::with_capacity(LINE_PIECE);
        let mut at = from;
        loop {
            piece.clear();
            let read = (&mut reader)
                .take(LINE_PIECE as u64)
                .read_to_end(&mut piece)
                .map_err(|e| Error::io(&self.path, e))?;
            if read == 0 {
                return Ok(None);
            }
            if let Some(i) = piece.iter().position(|&b| b == b'\n') {
                let start = at + i + 1;
                return Ok((start < self.len()).then_some(start));
            }
            at += read;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file_of(dir: &tempfile::TempDir, bytes: &[u8]) -> CsvFile {
        let path = dir.path().join("t.csv");
        std::fs::write(&path, bytes).unwrap();
        CsvFile::open(&path).unwrap().unwrap()
    }

    #[test]
    fn reads_ranges_heads_and_line_starts() {
        let dir = tempfile::tempdir().unwrap();
        let bytes = b"\"a\nb\",c\r\n1,2\n3,4";
        let file = file_of(&dir, bytes);
        assert_eq!(file.len(), bytes.len());
        assert_eq!(file.read_all().unwrap(), bytes);
        assert_eq!(file.read_range(3..9).unwrap(), &bytes[3..9]);
        // The quoted line break is not the head's end.
        assert_eq!(file.head().unwrap(), b"\"a\nb\",c\r\n");
        assert_eq!(file.line_start(0).unwrap(), Some(3));
        assert_eq!(file.line_start(4).unwrap(), Some(9));
        assert_eq!(file.line_start(9).unwrap(), Some(13));
        assert_eq!(file.line_start(14).unwrap(), None);
        let one_line = file_of(&dir, b"x,y");
        assert_eq!(one_line.head().unwrap(), b"x,y");
    }

    #[test]
    fn a_file_changed_since_opened_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let file = file_of(&dir, b"a,b\n1,2\n");
        std::fs::write(file.path(), b"a,b\n1,2\n3,4\n").unwrap();
        let e = file.read_all().unwrap_err().to_string();
        assert!(e.contains("changed while karc read it"), "{e}");
    }

    #[test]
    fn only_regular_files_are_read_in_pieces() {
        let dir = tempfile::tempdir().unwrap();
        assert!(CsvFile::open(dir.path()).unwrap().is_none());
    }
}
