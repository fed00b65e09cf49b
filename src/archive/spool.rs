//! Scratch space for the pack pipeline ([`super::pipeline`]): a run of
//! sections spooled to memory or an unnamed file, and the private part
//! checksummed, hashed and (unless in clear) sealed on its way there.

use std::fs::File;
use std::io::{BufWriter, Read, Seek, Write};

use super::format::{SectionKind, SectionSummary};

/// Scratch space for a run of sections: memory or an unnamed file.
pub(super) enum Spool {
    Memory(Vec<u8>),
    File(BufWriter<File>, u64),
}

impl Spool {
    pub(super) fn memory() -> Spool {
        Spool::Memory(Vec::new())
    }

    pub(super) fn file(dir: &std::path::Path) -> std::io::Result<Spool> {
        Ok(Spool::File(BufWriter::new(tempfile::tempfile_in(dir)?), 0))
    }

    pub(super) fn len(&self) -> u64 {
        match self {
            Spool::Memory(v) => v.len() as u64,
            Spool::File(_, n) => *n,
        }
    }

    /// Reads back what was written, from its start.
    pub(super) fn into_reader(self) -> std::io::Result<Box<dyn Read>> {
        match self {
            Spool::Memory(v) => Ok(Box::new(std::io::Cursor::new(v))),
            Spool::File(f, _) => {
                let mut f = f.into_inner().map_err(|e| e.into_error())?;
                f.rewind()?;
                Ok(Box::new(std::io::BufReader::new(f)))
            }
        }
    }

    /// Copies what was written to `w`.
    pub(super) fn copy_to(self, w: &mut dyn Write) -> std::io::Result<()> {
        match self {
            Spool::Memory(v) => w.write_all(&v),
            Spool::File(f, _) => {
                let mut f = f.into_inner().map_err(|e| e.into_error())?;
                f.rewind()?;
                std::io::copy(&mut f, w).map(|_| ())
            }
        }
    }
}

impl Write for Spool {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Spool::Memory(v) => v.write(buf),
            Spool::File(f, n) => {
                let written = f.write(buf)?;
                *n += written as u64;
                Ok(written)
            }
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Spool::Memory(_) => Ok(()),
            Spool::File(f, _) => f.flush(),
        }
    }
}

/// A writer that checksums and hashes what passes through it (the private
/// section, written piece by piece: its CRC-32 for the table, its BLAKE3
/// for a signature).
pub(super) struct Summed {
    inner: Spool,
    crc: crc32fast::Hasher,
    hash: blake3::Hasher,
}

impl Summed {
    pub(super) fn new(inner: Spool) -> Summed {
        Summed {
            inner,
            crc: crc32fast::Hasher::new(),
            hash: blake3::Hasher::new(),
        }
    }
}

impl Write for Summed {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.crc.update(&buf[..n]);
        self.hash.update(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// The private part on its way to scratch space: through the age
/// envelope, or in clear (`--no-encryption`).
pub(super) enum PrivateStream {
    Sealed(age::stream::StreamWriter<Summed>),
    Plain(Summed),
}

impl Write for PrivateStream {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            PrivateStream::Sealed(w) => w.write(buf),
            PrivateStream::Plain(w) => w.write(buf),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            PrivateStream::Sealed(w) => w.flush(),
            PrivateStream::Plain(w) => w.flush(),
        }
    }
}

impl PrivateStream {
    /// Ends the stream (the envelope's last chunk): the section's summary,
    /// its bytes and their BLAKE3 hash.
    pub(super) fn finish(self) -> std::io::Result<(SectionSummary, Spool, [u8; 32])> {
        let (kind, mut written) = match self {
            PrivateStream::Sealed(w) => (SectionKind::PrivateSealed, w.finish()?),
            PrivateStream::Plain(w) => (SectionKind::PrivatePlain, w),
        };
        written.flush()?;
        let summary = SectionSummary {
            kind,
            crc: written.crc.finalize(),
            length: written.inner.len(),
        };
        Ok((summary, written.inner, written.hash.finalize().into()))
    }
}
