//! File input and output: inputs read whole (standard input for `-`), and
//! outputs written so that no reader ever sees a partial file and no
//! interrupted run leaves one behind.
//!
//! Inputs are read into memory rather than memory-mapped: a mapped file that
//! another process truncates kills the reader with SIGBUS. The copy costs
//! little beside parsing: on Adult (2.5 MB of CSV), 0.8 ms of a pack's 29 ms
//! of CPU and 0.1 ms of a restore's 7 ms; on a 40 MB table, about 6 %.
//!
//! A regular output is written to an unnamed file in its directory (Linux's
//! `O_TMPFILE`), synced, and only then given its name (`linkat`, then
//! `rename` over an earlier file): a failed or killed run leaves the earlier
//! file as it was and no trace of the new one, which matters for a restore's
//! decrypted rows. Where the system has no unnamed files, a named temporary
//! file is used and removed on SIGINT, SIGTERM and SIGHUP. FIFOs, character
//! devices and standard output are written in place.

use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use crate::{Error, Result};

/// How inputs and outputs named `-` are shown in messages.
pub const STDIN: &str = "<stdin>";
/// How standard output (`-`) is shown in messages.
pub const STDOUT: &str = "<stdout>";

/// Whether a command-line path is `-` (standard input or output).
pub fn is_std(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// How `path`, a command-line input, is named in messages.
pub fn input_name(path: &Path) -> PathBuf {
    if is_std(path) {
        PathBuf::from(STDIN)
    } else {
        path.to_owned()
    }
}

/// The whole content of an input file.
pub struct Input(Vec<u8>);

impl std::ops::Deref for Input {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.0
    }
}

impl From<Vec<u8>> for Input {
    fn from(bytes: Vec<u8>) -> Input {
        Input(bytes)
    }
}

impl Input {
    /// Reads the file at `path`. A regular file whose size changes while
    /// it is read (another process writing or truncating it) is refused.
    pub fn open(path: &Path) -> Result<Input> {
        let io = |e| Error::io(path, e);
        let file = File::open(path).map_err(io)?;
        let meta = file.metadata().map_err(io)?;
        let expected = meta.is_file().then_some(meta.len());
        read_whole(file, expected).map_err(io).map(Input)
    }

    /// Reads a command-line input: `-` is standard input.
    pub fn open_arg(path: &Path) -> Result<Input> {
        if is_std(path) {
            let stdin = std::io::stdin().lock();
            return read_whole(stdin, None)
                .map_err(|e| Error::io(STDIN, e))
                .map(Input);
        }
        Input::open(path)
    }

    /// The bytes read.
    pub fn into_vec(self) -> Vec<u8> {
        self.0
    }
}

/// Reads `from` to its end; with `expected`, the size the file had when
/// opened, which the bytes read must match.
fn read_whole(mut from: impl Read, expected: Option<u64>) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    if let Some(len) = expected {
        // One more byte, so that reading to the end never reallocates.
        let want = usize::try_from(len).unwrap_or(usize::MAX).saturating_add(1);
        bytes
            .try_reserve_exact(want)
            .map_err(|_| std::io::Error::other(format!("{len} bytes do not fit in memory")))?;
    }
    from.read_to_end(&mut bytes)?;
    match expected {
        Some(len) if len != bytes.len() as u64 => Err(std::io::Error::other(format!(
            "the file changed size while karc read it ({len} bytes when opened, {} read); \
             read it again once nothing writes to it",
            bytes.len()
        ))),
        _ => Ok(bytes),
    }
}

/// Who may read an output once written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Original data (a restore, an archive with a private part): created
    /// readable by its owner only (0600).
    Private,
    /// A release or a report: created with the umask's permissions.
    Public,
}

impl Access {
    #[cfg_attr(not(unix), allow(dead_code))]
    fn mode(self) -> u32 {
        match self {
            Access::Private => 0o600,
            Access::Public => 0o666,
        }
    }
}

/// A file's identity: device and inode (after symlinks).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FileId {
    dev: u64,
    ino: u64,
    /// A character device (a terminal, `/dev/null`) may be both read and
    /// written without harm.
    char_device: bool,
}

impl FileId {
    #[cfg(unix)]
    fn of(meta: &std::fs::Metadata) -> FileId {
        use std::os::unix::fs::{FileTypeExt, MetadataExt};
        FileId {
            dev: meta.dev(),
            ino: meta.ino(),
            char_device: meta.file_type().is_char_device(),
        }
    }

    /// The identity of the file at `path` (`-`: `std_fd`, 0 or 1), if it
    /// exists.
    #[cfg(unix)]
    fn at(path: &Path, std_fd: i32) -> Option<FileId> {
        if is_std(path) {
            use std::os::fd::BorrowedFd;
            // SAFETY: 0 and 1 stay open for the whole process.
            let fd = unsafe { BorrowedFd::borrow_raw(std_fd) };
            let file = File::from(fd.try_clone_to_owned().ok()?);
            return file.metadata().ok().as_ref().map(FileId::of);
        }
        std::fs::metadata(path).ok().as_ref().map(FileId::of)
    }

    #[cfg(not(unix))]
    fn at(_path: &Path, _std_fd: i32) -> Option<FileId> {
        None
    }
}

/// Where an output's bytes go.
#[derive(Debug)]
enum Target {
    Stdout,
    /// A FIFO, character device or socket, written in place.
    Special(PathBuf),
    /// A regular file (existing or new), replaced whole; the path has its
    /// symlinks resolved, so that a link keeps pointing at the new file.
    Regular(PathBuf),
}

/// An output named on the command line.
#[derive(Debug)]
pub struct Output {
    /// As given, for messages.
    path: PathBuf,
    target: Target,
    access: Access,
}

impl Output {
    /// `path` as an output: `-` and `/dev/stdout` are standard output, an
    /// existing FIFO or device is written in place, anything else is a
    /// regular file.
    pub fn new(path: &Path, access: Access) -> Result<Output> {
        let target = if is_std(path) || path == Path::new("/dev/stdout") {
            Target::Stdout
        } else {
            match std::fs::metadata(path) {
                Ok(meta) if !meta.is_file() && !meta.is_dir() => Target::Special(path.to_owned()),
                Ok(meta) if meta.is_dir() => {
                    return Err(Error::io(
                        path,
                        std::io::Error::other("is a directory: expected a file to write"),
                    ));
                }
                // A file is written where its symlinks lead.
                _ => Target::Regular(resolve_links(path)),
            }
        };
        Ok(Output {
            path: path.to_owned(),
            target,
            access,
        })
    }

    /// The output's name in messages.
    pub fn name(&self) -> PathBuf {
        match self.target {
            Target::Stdout => PathBuf::from(STDOUT),
            _ => self.path.clone(),
        }
    }

    /// Whether bytes reach the output as they are written (standard
    /// output, a FIFO, a device): a command that checks its output after
    /// producing it must hold it back until checked.
    pub fn is_direct(&self) -> bool {
        !matches!(self.target, Target::Regular(_))
    }

    /// Where scratch files for this output belong: beside a regular file,
    /// else the system's temporary directory.
    pub fn scratch_dir(&self) -> PathBuf {
        match &self.target {
            Target::Regular(p) => parent_dir(p).to_owned(),
            _ => std::env::temp_dir(),
        }
    }

    fn identity(&self) -> Option<FileId> {
        FileId::at(&self.path, 1)
    }

    /// Runs `write` into the output. A regular file appears, complete and
    /// synced, only if `write` succeeds; on error, any earlier file is left
    /// as it was.
    pub fn write<T>(&self, write: impl FnOnce(&mut dyn Write) -> Result<T>) -> Result<T> {
        let name = self.name();
        let io = |e| Error::io(&name, e);
        match &self.target {
            Target::Stdout => {
                let mut out = BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
                let written = write(&mut out)?;
                out.flush().map_err(io)?;
                Ok(written)
            }
            Target::Special(path) => {
                let file = std::fs::OpenOptions::new()
                    .write(true)
                    .open(path)
                    .map_err(io)?;
                let mut out = BufWriter::with_capacity(1 << 16, file);
                let written = write(&mut out)?;
                out.flush().map_err(io)?;
                Ok(written)
            }
            Target::Regular(path) => replace_file(path, &name, self.access, write),
        }
    }

    /// Writes `bytes` as the whole output.
    pub fn write_bytes(&self, bytes: &[u8]) -> Result<()> {
        let name = self.name();
        self.write(|w| w.write_all(bytes).map_err(|e| Error::io(&name, e)))
    }
}

/// Refuses outputs that are the same file as an input or as each other
/// (device and inode, after symlinks): writing one would destroy the other.
/// `-` among the inputs is standard input, among the outputs standard output.
pub fn refuse_same_files(inputs: &[&Path], outputs: &[&Output]) -> Result<()> {
    let inputs: Vec<(&Path, FileId)> = inputs
        .iter()
        .filter_map(|p| FileId::at(p, 0).map(|id| (*p, id)))
        .collect();
    for (i, out) in outputs.iter().enumerate() {
        let clash = |what: &str, other: &Path| {
            Err(Error::io(
                out.name(),
                std::io::Error::other(format!(
                    "the output is the same file as the {what} {}: karc would overwrite it; \
                     name another output",
                    input_name(other).display()
                )),
            ))
        };
        let earlier = &outputs[..i];
        if let Some(o) = earlier.iter().find(|o| o.name() == out.name()) {
            return clash("output", &o.name());
        }
        let Some(id) = out.identity().filter(|id| !id.char_device) else {
            continue;
        };
        if let Some((p, _)) = inputs.iter().find(|(_, i)| *i == id) {
            return clash("input", p);
        }
        if let Some(o) = earlier.iter().find(|o| o.identity() == Some(id)) {
            return clash("output", &o.name());
        }
    }
    Ok(())
}

/// Where `path`'s symlinks lead, even to a file that does not exist yet
/// (a link the output is to create); `path` itself when it is no link.
fn resolve_links(path: &Path) -> PathBuf {
    let mut path = path.to_owned();
    // As many links as the kernel follows (ELOOP beyond).
    for _ in 0..40 {
        match std::fs::read_link(&path) {
            Ok(to) => path = parent_dir(&path).join(to),
            Err(_) => break,
        }
    }
    path
}

fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Writes `path` atomically with `access`'s permissions, as [`Output::write`]
/// does for a regular file; `name` names it in messages.
fn replace_file<T>(
    path: &Path,
    name: &Path,
    access: Access,
    write: impl FnOnce(&mut dyn Write) -> Result<T>,
) -> Result<T> {
    let dir = parent_dir(path);
    let io = |e| Error::io(name, e);
    #[cfg(target_os = "linux")]
    if let Some(file) = unnamed::create(dir, access.mode()).map_err(|e| Error::io(dir, e))? {
        let written = fill(&file, name, write)?;
        unnamed::link(&file, path).map_err(io)?;
        return Ok(written);
    }
    let mut builder = tempfile::Builder::new();
    builder.prefix(".karc-").suffix(".tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(access.mode()));
    }
    #[cfg(not(unix))]
    let _ = access;
    let tmp = builder.tempfile_in(dir).map_err(|e| Error::io(dir, e))?;
    #[cfg(unix)]
    let _guard = on_signal::Removal::register(tmp.path());
    let written = fill(tmp.as_file(), name, write)?;
    tmp.persist(path).map_err(|e| io(e.error))?;
    Ok(written)
}

/// Runs `write` into `file`, then flushes and syncs it.
fn fill<T>(file: &File, name: &Path, write: impl FnOnce(&mut dyn Write) -> Result<T>) -> Result<T> {
    let io = |e| Error::io(name, e);
    let mut out = BufWriter::with_capacity(1 << 16, Chunked::new(file));
    let written = write(&mut out)?;
    out.flush().map_err(io)?;
    drop(out);
    // The data and what reading it needs (its length); the file has no
    // other metadata worth a journal commit before it is named.
    file.sync_data().map_err(io)?;
    Ok(written)
}

/// A file written at most [`Chunked::MAX`] bytes a call: a restore's 84 MB
/// in one `write` took 110 to 380 ms on Linux (ext4), in 1 MiB calls 30 to
/// 40 ms. On Linux, the writeback of every [`Chunked::WRITEBACK`] bytes is
/// started as soon as they are written, so that the disk works while the
/// rest is rendered and the final sync waits for the last MiB, not for the
/// whole file (109 MB: 51 ms of the sync otherwise, while the process did
/// nothing).
struct Chunked<'a> {
    file: &'a File,
    /// Bytes written, and those whose writeback was started.
    written: u64,
    started: u64,
}

impl<'a> Chunked<'a> {
    const MAX: usize = 1 << 20;
    const WRITEBACK: u64 = 1 << 20;

    fn new(file: &'a File) -> Self {
        Chunked {
            file,
            written: 0,
            started: 0,
        }
    }

    /// Starts the writeback of the bytes written since the last start,
    /// once they are [`Chunked::WRITEBACK`] bytes. A hint: the final sync
    /// reports any error.
    fn start_writeback(&mut self) {
        if self.written - self.started < Chunked::WRITEBACK {
            return;
        }
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            // SAFETY: a plain system call on a file descriptor this file
            // holds open; no memory is passed.
            unsafe {
                libc::sync_file_range(
                    self.file.as_raw_fd(),
                    self.started as libc::off64_t,
                    (self.written - self.started) as libc::off64_t,
                    libc::SYNC_FILE_RANGE_WRITE,
                );
            }
        }
        self.started = self.written;
    }
}

impl Write for Chunked<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.file.write(&buf[..buf.len().min(Chunked::MAX)])?;
        self.written += n as u64;
        self.start_writeback();
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

/// Unnamed files (`O_TMPFILE`), named once complete.
#[cfg(target_os = "linux")]
mod unnamed {
    use std::ffi::CString;
    use std::fs::File;
    use std::io;
    use std::os::fd::AsRawFd;
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::OpenOptionsExt;
    use std::path::Path;

    /// An unnamed file in `dir` with permissions `mode` (less the umask), or
    /// `None` where the file system has no unnamed files or `/proc`, which
    /// naming it needs, is not mounted.
    pub fn create(dir: &Path, mode: u32) -> io::Result<Option<File>> {
        if !Path::new("/proc/self/fd").is_dir() {
            return Ok(None);
        }
        let opened = std::fs::OpenOptions::new()
            .write(true)
            .mode(mode)
            .custom_flags(libc::O_TMPFILE)
            .open(dir);
        match opened {
            Ok(file) => Ok(Some(file)),
            // What kernels and file systems without O_TMPFILE answer.
            Err(e)
                if matches!(
                    e.raw_os_error(),
                    Some(libc::EOPNOTSUPP | libc::EISDIR | libc::EINVAL)
                ) =>
            {
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    fn c_path(path: &Path) -> io::Result<CString> {
        CString::new(path.as_os_str().as_bytes())
            .map_err(|_| io::Error::other("the path holds a NUL byte"))
    }

    /// Names `file` `path`: directly when `path` is free, else under a
    /// fresh name that is then renamed over `path`.
    pub fn link(file: &File, path: &Path) -> io::Result<()> {
        let proc = CString::new(format!("/proc/self/fd/{}", file.as_raw_fd()))
            .expect("no NUL in a number");
        let link_to = |to: &CString| {
            // SAFETY: both paths are NUL-terminated C strings that outlive
            // the call.
            let r = unsafe {
                libc::linkat(
                    libc::AT_FDCWD,
                    proc.as_ptr(),
                    libc::AT_FDCWD,
                    to.as_ptr(),
                    libc::AT_SYMLINK_FOLLOW,
                )
            };
            if r == 0 {
                Ok(())
            } else {
                Err(io::Error::last_os_error())
            }
        };
        match link_to(&c_path(path)?) {
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            other => return other,
        }
        let dir = super::parent_dir(path);
        for attempt in 0u32.. {
            let temp = dir.join(format!(".karc-{}-{attempt}.tmp", std::process::id()));
            match link_to(&c_path(&temp)?) {
                Ok(()) => {
                    return std::fs::rename(&temp, path).inspect_err(|_| {
                        let _ = std::fs::remove_file(&temp);
                    });
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempt < 1000 => {}
                Err(e) => return Err(e),
            }
        }
        unreachable!("the loop returns")
    }
}

/// Named temporary files removed when SIGINT, SIGTERM or SIGHUP ends the
/// process (where unnamed files are not available).
#[cfg(unix)]
mod on_signal {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    use std::path::Path;
    use std::sync::Once;
    use std::sync::atomic::{AtomicPtr, Ordering};

    /// The paths to remove; a path's string is leaked, so that the handler
    /// never reads freed memory.
    static PENDING: [AtomicPtr<libc::c_char>; 8] =
        [const { AtomicPtr::new(std::ptr::null_mut()) }; 8];
    const SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

    /// Removes the pending files (what the handler does; async-signal-safe).
    pub(super) fn remove_pending() {
        for slot in &PENDING {
            let p = slot.load(Ordering::SeqCst);
            if !p.is_null() {
                // SAFETY: a leaked, NUL-terminated string.
                unsafe { libc::unlink(p) };
            }
        }
    }

    extern "C" fn handler(signal: libc::c_int) {
        remove_pending();
        // SAFETY: restoring the default action and raising the signal again
        // ends the process as the signal would have.
        unsafe {
            libc::signal(signal, libc::SIG_DFL);
            libc::raise(signal);
        }
    }

    fn install() {
        for signal in SIGNALS {
            // SAFETY: a zeroed sigaction is valid; the handler only calls
            // async-signal-safe functions. A signal the process ignores
            // (nohup) or handles itself is left alone.
            unsafe {
                let mut old: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(signal, std::ptr::null(), &mut old) != 0
                    || old.sa_sigaction != libc::SIG_DFL
                {
                    continue;
                }
                let mut new: libc::sigaction = std::mem::zeroed();
                new.sa_sigaction = handler as extern "C" fn(libc::c_int) as libc::sighandler_t;
                libc::sigemptyset(&mut new.sa_mask);
                libc::sigaction(signal, &new, std::ptr::null_mut());
            }
        }
    }

    /// A path removed on those signals until dropped.
    pub struct Removal(Option<usize>);

    impl Removal {
        pub fn register(path: &Path) -> Removal {
            static INSTALL: Once = Once::new();
            INSTALL.call_once(install);
            let Ok(c) = CString::new(path.as_os_str().as_bytes()) else {
                return Removal(None);
            };
            let p = c.into_raw();
            for (i, slot) in PENDING.iter().enumerate() {
                if slot
                    .compare_exchange(std::ptr::null_mut(), p, Ordering::SeqCst, Ordering::SeqCst)
                    .is_ok()
                {
                    return Removal(Some(i));
                }
            }
            Removal(None)
        }
    }

    impl Drop for Removal {
        fn drop(&mut self) {
            if let Some(i) = self.0 {
                PENDING[i].store(std::ptr::null_mut(), Ordering::SeqCst);
            }
        }
    }
}

/// Writes `path` as a public output (see [`Output`]): atomically for a
/// regular file. For tools and reports.
pub fn write_atomically<F>(path: &Path, write: F) -> Result<()>
where
    F: FnOnce(&mut dyn Write) -> std::io::Result<()>,
{
    let out = Output::new(path, Access::Public)?;
    let name = out.name();
    out.write(|w| write(w).map_err(|e| Error::io(&name, e)))
}

/// Hands the memory the allocator holds free back to the system (glibc:
/// `malloc_trim`), between two steps of which the first freed more than
/// the second reuses at once: the anonymization's cells and labels,
/// before a pack codes the file (1M rows of `gen-table mixed`: the pack's
/// peak 1,050 -> 955 MB).
pub fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free pages of the allocator's heaps.
    unsafe {
        libc::malloc_trim(0);
    }
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

    #[test]
    fn new_file_appears_only_when_complete() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("new.csv");
        let out = Output::new(&path, Access::Private).unwrap();
        out.write(|w| {
            w.write_all(b"rows").unwrap();
            // Nothing is named yet: not the output, not a temporary file.
            #[cfg(target_os = "linux")]
            assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
            Ok(())
        })
        .unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"rows");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }

    #[test]
    fn a_file_that_changes_size_is_refused() {
        let bytes = b"a,b\n1,2\n".as_slice();
        assert_eq!(read_whole(bytes, Some(8)).unwrap(), bytes);
        let err = read_whole(bytes, Some(100)).unwrap_err().to_string();
        assert!(
            err.contains("changed size") && err.contains("100 bytes when opened, 8 read"),
            "{err}"
        );
        assert!(read_whole(bytes, Some(3)).is_err());
        // Pipes have no size to compare.
        assert_eq!(read_whole(bytes, None).unwrap(), bytes);
    }

    #[cfg(unix)]
    #[test]
    fn pending_temporary_files_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".karc-x.tmp");
        std::fs::write(&path, b"plaintext").unwrap();
        let removal = on_signal::Removal::register(&path);
        on_signal::remove_pending();
        assert!(!path.exists());
        drop(removal);
        // Once dropped, the path is no longer removed.
        std::fs::write(&path, b"kept").unwrap();
        on_signal::remove_pending();
        assert!(path.exists());
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_keeps_pointing_at_the_new_file() {
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("link.csv");
        // A link to a file yet to be written, then to an existing one.
        std::os::unix::fs::symlink("sub/target.csv", &link).unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        for content in [b"first", b"again"] {
            write_atomically(&link, |w| w.write_all(content)).unwrap();
            assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
            assert_eq!(
                std::fs::read(dir.path().join("sub/target.csv")).unwrap(),
                content
            );
        }
    }

    #[test]
    fn same_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.csv");
        std::fs::write(&a, b"x").unwrap();
        let out = Output::new(&a, Access::Public).unwrap();
        let err = refuse_same_files(&[&a], &[&out]).unwrap_err().to_string();
        assert!(err.contains("same file as the input"), "{err}");
        let b = dir.path().join("b.csv");
        let other = Output::new(&b, Access::Public).unwrap();
        refuse_same_files(&[&a], &[&other]).unwrap();
        let twice = Output::new(&b, Access::Public).unwrap();
        assert!(refuse_same_files(&[&a], &[&other, &twice]).is_err());
    }
}
