//! A restore's output rendered in pieces on two threads and handed on in
//! order: the thread that owns the output (a file, a buffer) writes each
//! piece as soon as it and the ones before it are rendered, and renders
//! pieces itself while the next one to write is not ready; the other
//! thread renders pieces until none is left. Writing (a copy into the page
//! cache) then overlaps rendering, both threads stay busy to the end, and
//! a handful of piece buffers, reused, replace a buffer of the whole output.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TryRecvError};

use super::layout::{Pieces, Texts};
use crate::Result;

/// Rendered pieces either thread may hold before the writer takes them:
/// past it, the helper waits and the writer stops rendering ahead, so that
/// memory stays a few pieces whatever the two threads' speeds.
const AHEAD: usize = 8;

/// A rendered piece: its number, bytes and their CRC-32.
pub(crate) struct Piece {
    index: usize,
    bytes: Vec<u8>,
    checksum: crc32fast::Hasher,
}

/// The pieces of one output, shared by the two threads.
pub(crate) struct Handoff<'p, T: Texts> {
    pieces: Pieces<'p, T>,
    /// The next piece no thread has taken.
    next: AtomicUsize,
    /// Set when the writer gives up (its sink failed): no piece is taken.
    stopped: AtomicBool,
    /// Buffers of written pieces, for the next pieces.
    spare: Mutex<Vec<Vec<u8>>>,
}

/// The channel the helper sends its pieces to the writer by.
pub(crate) fn channel() -> (SyncSender<Piece>, Receiver<Piece>) {
    std::sync::mpsc::sync_channel(AHEAD)
}

impl<'p, T: Texts> Handoff<'p, T> {
    pub(crate) fn new(pieces: Pieces<'p, T>) -> Self {
        Handoff {
            pieces,
            next: AtomicUsize::new(0),
            stopped: AtomicBool::new(false),
            spare: Mutex::new(Vec::new()),
        }
    }

    /// The next piece not taken yet, if any.
    fn take(&self) -> Option<usize> {
        if self.stopped.load(Ordering::Relaxed) {
            return None;
        }
        let i = self.next.fetch_add(1, Ordering::Relaxed);
        (i < self.pieces.count()).then_some(i)
    }

    fn render(&self, index: usize) -> Piece {
        let buf = self
            .spare
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .pop()
            .unwrap_or_default();
        let (bytes, checksum) = self.pieces.render(index, buf);
        Piece {
            index,
            bytes,
            checksum,
        }
    }

    /// The helper's part: renders pieces until none is left, each sent to
    /// the writer (which may have stopped: then so does this).
    pub(crate) fn help(&self, to: SyncSender<Piece>) {
        while let Some(i) = self.take() {
            if to.send(self.render(i)).is_err() {
                return;
            }
        }
    }

    /// The writer's part: hands every piece to `sink` in order, rendering
    /// pieces itself while the next to hand on is not ready. Returns the
    /// length and CRC-32 of the bytes handed on. On `sink`'s error, the
    /// helper is stopped (drop `from` before joining it).
    pub(crate) fn write(
        &self,
        from: &Receiver<Piece>,
        sink: &mut dyn FnMut(&[u8]) -> Result<()>,
    ) -> Result<(u64, u32)> {
        let count = self.pieces.count();
        let mut ready: BTreeMap<usize, Piece> = BTreeMap::new();
        let mut checksum = crc32fast::Hasher::new();
        let (mut written, mut len) = (0, 0u64);
        while written < count {
            if let Some(piece) = ready.remove(&written) {
                if let Err(e) = sink(&piece.bytes) {
                    self.stopped.store(true, Ordering::Relaxed);
                    return Err(e);
                }
                checksum.combine(&piece.checksum);
                len += piece.bytes.len() as u64;
                self.spare
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push(piece.bytes);
                written += 1;
                continue;
            }
            let piece = match from.try_recv() {
                Ok(piece) => piece,
                Err(TryRecvError::Empty) => {
                    match (ready.len() < AHEAD).then(|| self.take()).flatten() {
                        Some(i) => self.render(i),
                        // The next piece is the helper's: wait for it.
                        None => match from.recv() {
                            Ok(piece) => piece,
                            Err(_) => break,
                        },
                    }
                }
                Err(TryRecvError::Disconnected) => match self.take() {
                    Some(i) => self.render(i),
                    None => break,
                },
            };
            ready.insert(piece.index, piece);
        }
        // Fewer pieces written only when the helper panicked with one it
        // took: joining it passes the panic on.
        Ok((len, checksum.finalize()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::archive::layout::Layout;
    use crate::table::{CsvOptions, Table};
    use std::path::Path;

    /// A CSV of `rows` records of varied lengths, and its table and layout.
    fn table(rows: u32) -> (Vec<u8>, Table, Layout) {
        let mut bytes = b"id,name,amount\n".to_vec();
        for r in 0..rows {
            let name = "x".repeat((r % 50) as usize);
            bytes.extend_from_slice(format!("{r},n{name},{}.{:02}\n", r * 7, r % 100).as_bytes());
        }
        let opts = CsvOptions {
            delimiter: None,
            header: true,
            trim: false,
        };
        let t = Table::from_bytes(Path::new("t.csv"), &bytes, &opts).unwrap();
        let layout = Layout::capture(&bytes, &t, t.delimiter, true, false).unwrap();
        (bytes, t, layout)
    }

    fn pieces<'a>(layout: &'a Layout, t: &'a Table, expected: usize) -> Pieces<'a, Table> {
        let n = t.columns.len();
        let rendered = (0..n)
            .map(|c| layout.render_column(c, n, &t.columns[c]))
            .collect();
        layout.pieces_of(t, rendered, expected)
    }

    /// Runs the writer on this thread and the helper on another into
    /// `sink`: the writer's result.
    fn run(
        handoff: &Handoff<'_, Table>,
        sink: &mut dyn FnMut(&[u8]) -> Result<()>,
    ) -> Result<(u64, u32)> {
        let (to, from) = channel();
        std::thread::scope(|scope| {
            let helper = scope.spawn(move || handoff.help(to));
            let written = handoff.write(&from, sink);
            drop(from);
            helper.join().unwrap();
            written
        })
    }

    /// Many pieces (the expected length far above the real one makes
    /// them small), taken by two threads: handed on in order, each once,
    /// with the whole output's CRC-32.
    #[test]
    fn pieces_are_handed_on_in_order() {
        let (bytes, t, layout) = table(40_000);
        let handoff = Handoff::new(pieces(&layout, &t, 64 * bytes.len()));
        assert!(handoff.pieces.count() > 100);
        let mut out = Vec::new();
        let mut calls = 0;
        let (len, crc) = run(&handoff, &mut |b| {
            out.extend_from_slice(b);
            calls += 1;
            Ok(())
        })
        .unwrap();
        assert!(out == bytes, "the pieces differ from the file");
        assert_eq!(calls, handoff.pieces.count());
        assert_eq!((len, crc), (bytes.len() as u64, crc32fast::hash(&bytes)));
    }

    /// A sink that fails stops both threads: its error comes back, no
    /// piece is handed on after it, and the helper ends (no wait forever).
    #[test]
    fn a_failing_sink_stops_the_helper() {
        let (bytes, t, layout) = table(40_000);
        let handoff = Handoff::new(pieces(&layout, &t, 64 * bytes.len()));
        let mut calls = 0;
        let e = run(&handoff, &mut |_| {
            calls += 1;
            match calls {
                3 => Err(crate::Error::Options("disk full".to_owned())),
                _ => Ok(()),
            }
        })
        .unwrap_err();
        assert!(e.to_string().contains("disk full"), "{e}");
        assert_eq!(calls, 3);
        assert!(handoff.take().is_none());
    }
}
