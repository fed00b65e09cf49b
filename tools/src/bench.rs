//! What the benchmark runners share: medians and timing, an anonymized
//! table ready to pack, the archive-against-zip measurement (`bench_archive`
//! and `bench`), and the stages of the scaling benchmark, each run in a
//! child process whose peak memory the parent reads from the kernel.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::str::FromStr;
use std::time::Instant;

use karc::anonymize::{self, Algorithm};
use karc::archive::reader::{Archive, ClaimCheck};
use karc::archive::seal::{Key, Seal};
use karc::archive::writer::{self, Anonymization, PackOptions, released_columns};
use karc::codec::DiffMode;
use karc::codec::ReleasedColumn;
use karc::compare::baseline::Compressor;
use karc::config::Config;
use karc::dataset::Dataset;
use karc::privacy::PrivacyModel;
use karc::report::Report;

use crate::cpu_ms;

/// Any error of a runner (they print it and stop).
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The median of `v` (the upper one of an even count); `v` must not be empty.
pub fn median(mut v: Vec<f64>) -> f64 {
    assert!(!v.is_empty(), "median of no runs");
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Runs `f` once: its wall time in milliseconds and its result.
pub fn time_ms<T>(f: impl FnOnce() -> T) -> (f64, T) {
    let start = Instant::now();
    let out = f();
    (start.elapsed().as_secs_f64() * 1e3, out)
}

/// Median wall time and median CPU time (this process) of `runs` calls of
/// `f`, in milliseconds.
pub fn median_ms(runs: usize, mut f: impl FnMut()) -> (f64, f64) {
    let (mut wall, mut cpu) = (Vec::with_capacity(runs), Vec::with_capacity(runs));
    for _ in 0..runs {
        let start_cpu = cpu_ms();
        let (ms, ()) = time_ms(&mut f);
        wall.push(ms);
        cpu.push(cpu_ms() - start_cpu);
    }
    (median(wall), median(cpu))
}

/// `config` with the privacy model reduced to k-anonymity with this `k`
/// (other constraints dropped) and this algorithm, as the runners measure.
pub fn with_k(mut config: Config, algorithm: Algorithm, k: usize) -> Config {
    config.privacy.k = Some(k);
    config.privacy.constraints.clear();
    config.algorithm.name = algorithm.name().to_owned();
    config
}

/// A table loaded and anonymized, with everything `writer::pack` needs.
pub struct Prepared {
    pub config: Config,
    pub data: Dataset,
    pub model: PrivacyModel,
    /// The released QI columns, which `writer::pack` codes (the outcome's
    /// cells are dropped, as `karc pack` drops them).
    pub released: Vec<ReleasedColumn>,
    pub report: Report,
}

impl Prepared {
    /// Loads `csv` with `config` and anonymizes it with the config's algorithm.
    pub fn new(config: Config, csv: &Path) -> Result<Prepared, BoxError> {
        let data = Dataset::load(&config, csv)?;
        Prepared::of(config, data)
    }

    /// Anonymizes an already loaded table.
    pub fn of(config: Config, data: Dataset) -> Result<Prepared, BoxError> {
        let model = PrivacyModel::from_config(&config, &data)?;
        let (outcome, report) = Report::anonymize(&data, &model, &config.algorithm)?;
        let released = released_columns(&data, &outcome);
        Ok(Prepared {
            config,
            data,
            model,
            released,
            report,
        })
    }

    pub fn anonymization(&self) -> Anonymization<'_> {
        Anonymization {
            classes: None,
            config: &self.config,
            data: &self.data,
            model: &self.model,
            released: &self.released,
            report: &self.report,
        }
    }
}

/// A fresh X25519 key pair: the seal of issue 3's speed target (scrypt
/// passphrases are slow on purpose and would measure scrypt).
pub fn x25519_pair() -> (age::x25519::Identity, Seal) {
    let identity = age::x25519::Identity::generate();
    let seal = Seal::Recipients(vec![identity.to_public()]);
    (identity, seal)
}

/// Pack and restore of one difference mode against zip and unzip of the same
/// CSV (medians, milliseconds; sizes in bytes).
#[derive(Debug, Clone)]
pub struct ArchiveRow {
    pub mode: DiffMode,
    pub csv_bytes: usize,
    pub zip_bytes: usize,
    /// The sealed `.karc` file.
    pub karc_bytes: usize,
    pub zip_ms: f64,
    /// `writer::pack` from the loaded, anonymized table (issue 3's
    /// "without the anonymization").
    pub pack_ms: f64,
    /// Loading the CSV again, then packing (the anonymization excluded).
    pub load_pack_ms: f64,
    pub unzip_ms: f64,
    /// Open (integrity and claim checks), unseal, decode, render, checksum.
    pub restore_ms: f64,
}

impl ArchiveRow {
    pub fn pack_vs_zip(&self) -> f64 {
        self.pack_ms / self.zip_ms
    }

    pub fn restore_vs_unzip(&self) -> f64 {
        self.restore_ms / self.unzip_ms
    }
}

/// Packs and restores `p` (whose CSV is `csv`) in every difference mode,
/// `runs` times each, interleaved with zip and unzip of the same bytes; each
/// restore and unzip is checked byte for byte.
pub fn archive_vs_zip(p: &Prepared, csv: &Path, runs: usize) -> Result<Vec<ArchiveRow>, BoxError> {
    let original = std::fs::read(csv)?;
    let name = csv
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("data.csv");
    let (identity, seal) = x25519_pair();
    let key = Key::Identities(vec![Box::new(identity)]);
    let a = p.anonymization();
    let mut rows = Vec::new();
    for &mode in DiffMode::ALL {
        let options = PackOptions {
            mode,
            seal: &seal,
            groups: Default::default(),
        };
        let (mut t_zip, mut t_pack, mut t_load_pack, mut t_unzip, mut t_restore) =
            (vec![], vec![], vec![], vec![], vec![]);
        let (mut zip_bytes, mut karc_bytes) = (0, 0);
        for _ in 0..runs.max(1) {
            let (t, z) = time_ms(|| Compressor::Zip.compress(&original, name));
            let z = z?;
            t_zip.push(t);
            let (t, k) = time_ms(|| writer::pack(&a, &original, &options));
            let k = k?;
            t_pack.push(t);
            let (t, again) = time_ms(|| -> Result<Vec<u8>, BoxError> {
                let data = Dataset::load(&p.config, csv)?;
                Ok(writer::pack(
                    &Anonymization { data: &data, ..a },
                    &original,
                    &options,
                )?)
            });
            // (Sealing is randomized, so the bytes differ from `k`'s.)
            again?;
            t_load_pack.push(t);
            let (t, u) = time_ms(|| Compressor::Zip.decompress(&z));
            t_unzip.push(t);
            if u? != original {
                return Err("unzip did not restore the CSV".into());
            }
            let (t, r) = time_ms(|| {
                Archive::from_bytes_and_restore(
                    Path::new("bench.karc"),
                    k.clone(),
                    ClaimCheck::Enforce,
                    Some(&key),
                )
            });
            t_restore.push(t);
            if r?.1 != original {
                return Err(format!("mode {mode}: restore differs from the CSV").into());
            }
            (zip_bytes, karc_bytes) = (z.len(), k.len());
        }
        rows.push(ArchiveRow {
            mode,
            csv_bytes: original.len(),
            zip_bytes,
            karc_bytes,
            zip_ms: median(t_zip),
            pack_ms: median(t_pack),
            load_pack_ms: median(t_load_pack),
            unzip_ms: median(t_unzip),
            restore_ms: median(t_restore),
        });
    }
    Ok(rows)
}

/// A stage of the scaling benchmark. Each runs in its own process, so that
/// its peak memory is its own: a stage loads what it needs first (untimed),
/// so its peak includes that input, as in the `karc` command that runs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Read the CSV and dictionary-encode it (`Dataset::load`).
    Load,
    /// Anonymize the loaded table (`anonymize::run`, release re-verified).
    Anonymize,
    /// Pack the anonymized table, default difference mode, sealed for an
    /// X25519 recipient, and write the file (`karc pack` minus anonymizing).
    Pack,
    /// Open the file (integrity and claim checks) and restore the CSV,
    /// checksum checked (`karc restore` minus writing the output).
    Restore,
}

impl Stage {
    pub const ALL: [Stage; 4] = [Stage::Load, Stage::Anonymize, Stage::Pack, Stage::Restore];

    pub fn name(self) -> &'static str {
        match self {
            Stage::Load => "load",
            Stage::Anonymize => "anonymize",
            Stage::Pack => "pack",
            Stage::Restore => "restore",
        }
    }
}

impl FromStr for Stage {
    type Err = String;

    fn from_str(s: &str) -> Result<Stage, String> {
        Stage::ALL
            .into_iter()
            .find(|st| st.name() == s)
            .ok_or_else(|| format!("unknown stage {s:?} (load, anonymize, pack, restore)"))
    }
}

/// What a stage works on.
#[derive(Debug, Clone)]
pub struct StageInput {
    pub config: PathBuf,
    pub csv: PathBuf,
    pub algorithm: Algorithm,
    pub k: usize,
    /// The `.karc` file `Pack` writes and `Restore` reads.
    pub archive: PathBuf,
    /// The X25519 identity file (one `AGE-SECRET-KEY-...` line).
    pub identity: PathBuf,
}

/// Runs `stage` in this process; returns its wall and CPU time in
/// milliseconds (the untimed preparation excluded) and a note on what it
/// made (the generalization levels, the file size), which explains times
/// that depend on the release rather than on the row count.
pub fn run_stage(stage: Stage, input: &StageInput) -> Result<(f64, f64, String), BoxError> {
    let config = with_k(Config::load(&input.config)?, input.algorithm, input.k);
    let timed =
        |f: &mut dyn FnMut() -> Result<String, BoxError>| -> Result<(f64, f64, String), BoxError> {
            let cpu = cpu_ms();
            let (ms, r) = time_ms(f);
            let note = r?;
            Ok((ms, cpu_ms() - cpu, note))
        };
    match stage {
        Stage::Load => timed(&mut || {
            let data = Dataset::load(&config, &input.csv)?;
            Ok(format!("{} rows", data.rows()))
        }),
        Stage::Anonymize => {
            let data = Dataset::load(&config, &input.csv)?;
            let model = PrivacyModel::from_config(&config, &data)?;
            timed(&mut || {
                let outcome = anonymize::run(&data, &model, &config.algorithm)?;
                Ok(outcome
                    .levels
                    .map_or_else(|| "local recoding".to_owned(), |l| format!("levels {l:?}")))
            })
        }
        Stage::Pack => {
            let p = Prepared::new(config, &input.csv)?;
            let text = std::fs::read_to_string(&input.identity)?;
            let identity = age::x25519::Identity::from_str(text.trim())?;
            let seal = Seal::Recipients(vec![identity.to_public()]);
            let original = karc::io::Input::open(&input.csv)?;
            let options = PackOptions {
                groups: Default::default(),
                mode: DiffMode::default(),
                seal: &seal,
            };
            timed(&mut || {
                let bytes = writer::pack(&p.anonymization(), &original, &options)?;
                karc::io::write_atomically(&input.archive, |w| w.write_all(&bytes))?;
                Ok(format!("{} B", bytes.len()))
            })
        }
        Stage::Restore => {
            let text = std::fs::read_to_string(&input.identity)?;
            let identity = age::x25519::Identity::from_str(text.trim())?;
            let key = Key::Identities(vec![Box::new(identity)]);
            let expected = std::fs::metadata(&input.csv)?.len();
            timed(&mut || {
                let (_, len) = Archive::open_and_restore(
                    &input.archive,
                    ClaimCheck::Enforce,
                    Some(&key),
                    &mut |_| Ok(()),
                )?;
                if len != expected {
                    return Err("restored length differs from the CSV".into());
                }
                Ok(format!("{len} B"))
            })
        }
    }
}

/// One stage measured in a child process.
#[derive(Debug, Clone)]
pub struct StageMeasure {
    pub wall_ms: f64,
    pub cpu_ms: f64,
    /// The child's peak resident set (`ru_maxrss` of `wait4`), in bytes.
    pub peak_rss: u64,
    /// What the stage says it made.
    pub note: String,
}

/// Runs `command` (which must print `stage WALL_MS CPU_MS [NOTE]` on its
/// standard output, as `bench stage ...` does), waits for it with `wait4` and reads
/// its own peak resident set from the kernel: the child's, not this
/// process's (whose high-water mark holds whatever the runner itself kept).
pub fn measure_child(mut command: Command) -> Result<StageMeasure, BoxError> {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()?;
    let mut out = String::new();
    child
        .stdout
        .take()
        .expect("piped stdout")
        .read_to_string(&mut out)?;
    let (status, usage) = wait4(&child)?;
    if !libc::WIFEXITED(status) || libc::WEXITSTATUS(status) != 0 {
        return Err(format!("stage process failed (status {status:#x}): {command:?}").into());
    }
    let line = out
        .lines()
        .find_map(|l| l.strip_prefix("stage "))
        .ok_or_else(|| format!("stage process printed no timing: {out:?}"))?;
    let mut fields = line.splitn(3, ' ');
    let mut number = || fields.next().and_then(|f| f.parse::<f64>().ok());
    let (Some(wall_ms), Some(cpu_ms)) = (number(), number()) else {
        return Err(format!("stage process printed {line:?}").into());
    };
    Ok(StageMeasure {
        wall_ms,
        cpu_ms,
        note: fields.next().unwrap_or("").trim().to_owned(),
        peak_rss: peak_rss(&usage),
    })
}

/// Waits for `child` with `wait4`: its raw status and its own resource use.
fn wait4(child: &Child) -> Result<(libc::c_int, libc::rusage), BoxError> {
    let pid = child.id() as libc::pid_t;
    let mut status: libc::c_int = 0;
    // SAFETY: wait4 fills the status and the zeroed rusage it is given; the
    // child is ours and not yet reaped (std only reaps in wait/try_wait).
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    if reaped != pid {
        return Err(format!("wait4: {}", std::io::Error::last_os_error()).into());
    }
    Ok((status, usage))
}

/// The peak resident set of a reaped child, in bytes (Linux reports
/// `ru_maxrss` in kibibytes).
fn peak_rss(usage: &libc::rusage) -> u64 {
    usage.ru_maxrss as u64 * 1024
}

/// How a child process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    Code(i32),
    Signal(i32),
}

impl std::fmt::Display for Exit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Exit::Code(c) => write!(f, "exit {c}"),
            // SIGABRT is what Rust's allocation failure raises.
            Exit::Signal(libc::SIGABRT) => write!(f, "signal 6 (abort)"),
            Exit::Signal(libc::SIGKILL) => write!(f, "signal 9 (killed)"),
            Exit::Signal(libc::SIGXCPU) => write!(f, "signal 24 (CPU limit)"),
            Exit::Signal(s) => write!(f, "signal {s}"),
        }
    }
}

/// Limits a child runs under (`setrlimit` between fork and exec), so that
/// a runaway program fails alone instead of taking the machine with it.
#[derive(Debug, Clone, Copy, Default)]
pub struct Limits {
    /// `RLIMIT_AS`: the most address space, in bytes; allocations past it fail.
    pub address_space: Option<u64>,
    /// `RLIMIT_CPU`: the most CPU seconds; past it the kernel sends SIGXCPU.
    pub cpu_seconds: Option<u64>,
}

/// A finished child process: how it ended, its wall time (spawn to reap),
/// its CPU time (user + system, its own and its waited-for children's) and
/// its peak resident set, all read from `wait4`.
#[derive(Debug, Clone, Copy)]
pub struct ProcessRun {
    pub exit: Exit,
    pub wall_ms: f64,
    pub cpu_ms: f64,
    pub peak_rss: u64,
}

impl ProcessRun {
    pub fn ok(&self) -> bool {
        self.exit == Exit::Code(0)
    }
}

/// Runs `command` (its standard streams as the caller set them) under
/// `limits` and measures it; a failing child is a measured run, not an
/// error (only failing to start or reap it is).
pub fn run_limited(command: &mut Command, limits: Limits) -> Result<ProcessRun, BoxError> {
    use std::os::unix::process::CommandExt;
    let set = |resource, value: Option<u64>| -> std::io::Result<()> {
        if let Some(v) = value {
            let limit = libc::rlimit {
                rlim_cur: v as libc::rlim_t,
                rlim_max: v as libc::rlim_t,
            };
            // SAFETY: setrlimit only reads the struct; it is async-signal-safe.
            if unsafe { libc::setrlimit(resource, &limit) } != 0 {
                return Err(std::io::Error::last_os_error());
            }
        }
        Ok(())
    };
    // SAFETY: the closure only calls setrlimit, which is async-signal-safe,
    // and allocates nothing.
    unsafe {
        command.pre_exec(move || {
            set(libc::RLIMIT_AS, limits.address_space)?;
            set(libc::RLIMIT_CPU, limits.cpu_seconds)
        });
    }
    let start = Instant::now();
    let child = command
        .spawn()
        .map_err(|e| format!("{:?}: {e}", command.get_program()))?;
    let (status, usage) = wait4(&child)?;
    let wall_ms = start.elapsed().as_secs_f64() * 1e3;
    let ms = |t: libc::timeval| t.tv_sec as f64 * 1e3 + t.tv_usec as f64 / 1e3;
    let exit = if libc::WIFEXITED(status) {
        Exit::Code(libc::WEXITSTATUS(status))
    } else {
        Exit::Signal(libc::WTERMSIG(status))
    };
    Ok(ProcessRun {
        exit,
        wall_ms,
        cpu_ms: ms(usage.ru_utime) + ms(usage.ru_stime),
        peak_rss: peak_rss(&usage),
    })
}

/// The CPU model and core count, and the commit measured.
pub fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("model name"))
                .map(|l| l.trim_start_matches([' ', '\t', ':']).to_owned())
        })
        .unwrap_or_else(|| "an unknown CPU".to_owned());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let commit = Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_else(|| "unknown".to_owned());
    format!("{cpu}, {cores} cores, commit {commit}")
}

/// `path` relative to the repository root when it lies inside it.
pub fn shown(path: &Path) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    match (path.canonicalize(), root.canonicalize()) {
        (Ok(p), Ok(r)) => p
            .strip_prefix(&r)
            .map_or_else(|_| p.display().to_string(), |p| p.display().to_string()),
        _ => path.display().to_string(),
    }
}

/// The heading of `bench_format`'s section of `tools/BENCHMARKS.md`, which
/// `bench --write` keeps as it is.
pub const FORMAT_SECTION: &str = "## Format acceptance (issue 16)";

/// The section of a Markdown document that starts at the line `heading`
/// (a `## ` heading) and runs to the next `## ` heading or the end.
pub fn section<'a>(doc: &'a str, heading: &str) -> Option<&'a str> {
    let start = line_start(doc, heading)?;
    let rest = &doc[start + heading.len()..];
    let end = rest
        .find("\n## ")
        .map_or(doc.len(), |i| start + heading.len() + i + 1);
    Some(&doc[start..end])
}

/// `doc` with the section under `heading` replaced by `text` (which starts
/// with that heading), or with `text` appended when there is none.
pub fn replace_section(doc: &str, heading: &str, text: &str) -> String {
    match section(doc, heading) {
        Some(old) => {
            let start = old.as_ptr() as usize - doc.as_ptr() as usize;
            format!("{}{text}{}", &doc[..start], &doc[start + old.len()..])
        }
        None if doc.is_empty() || doc.ends_with("\n\n") => format!("{doc}{text}"),
        None if doc.ends_with('\n') => format!("{doc}\n{text}"),
        None => format!("{doc}\n\n{text}"),
    }
}

/// Where the line `line` starts in `doc`, if it is one of its lines.
fn line_start(doc: &str, line: &str) -> Option<usize> {
    let mut at = 0;
    for l in doc.split_inclusive('\n') {
        if l.trim_end_matches(['\n', '\r']) == line {
            return Some(at);
        }
        at += l.len();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "# t\n\n## A\n\na\n\n## B\n\nb\n\n## C\n\nc\n";

    #[test]
    fn a_section_runs_to_the_next_heading_or_the_end() {
        assert_eq!(section(DOC, "## B"), Some("## B\n\nb\n\n"));
        assert_eq!(section(DOC, "## C"), Some("## C\n\nc\n"));
        assert_eq!(section(DOC, "## D"), None);
        // A heading is a whole line, not a prefix of one.
        assert_eq!(section("## Bee\n", "## B"), None);
    }

    #[test]
    fn replacing_a_section_keeps_the_others() {
        let new = replace_section(DOC, "## B", "## B\n\nnew\n\n");
        assert_eq!(new, "# t\n\n## A\n\na\n\n## B\n\nnew\n\n## C\n\nc\n");
        let added = replace_section(DOC, "## D", "## D\n\nd\n");
        assert_eq!(added, format!("{DOC}\n## D\n\nd\n"));
        assert_eq!(replace_section("", "## D", "## D\n"), "## D\n");
    }

    #[test]
    fn a_limited_child_fails_alone_and_is_measured() {
        let ok = run_limited(
            Command::new("true").stdout(Stdio::null()),
            Limits::default(),
        )
        .unwrap();
        assert!(ok.ok(), "{:?}", ok.exit);
        let failed = run_limited(
            Command::new("false").stdout(Stdio::null()),
            Limits::default(),
        )
        .unwrap();
        assert_eq!(failed.exit, Exit::Code(1));
        // 64 MiB of address space is too little for a shell that allocates 256 MiB.
        let capped = run_limited(
            Command::new("sh")
                .args([
                    "-c",
                    "head -c 268435456 /dev/zero | tr '\\0' a | (x=$(cat); echo ${#x})",
                ])
                .stdout(Stdio::null())
                .stderr(Stdio::null()),
            Limits {
                address_space: Some(64 << 20),
                cpu_seconds: Some(60),
            },
        )
        .unwrap();
        assert!(!capped.ok(), "{:?}", capped.exit);
        assert!(capped.peak_rss < 64 << 20, "{}", capped.peak_rss);
    }
}
