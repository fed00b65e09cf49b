//! What the benchmark runners share: medians and timing, an anonymized
//! table ready to pack, the archive-against-zip measurement (`bench_archive`
//! and `bench`), and the stages of the scaling benchmark, each run in a
//! child process whose peak memory the parent reads from the kernel.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::str::FromStr;
use std::time::Instant;

use karc::anonymize::{self, Algorithm, Outcome};
use karc::archive::reader::{Archive, ClaimCheck};
use karc::archive::seal::{Key, Seal};
use karc::archive::writer::{self, Anonymization, PackOptions};
use karc::codec::DiffMode;
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
    pub outcome: Outcome,
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
        Ok(Prepared {
            config,
            data,
            model,
            outcome,
            report,
        })
    }

    pub fn anonymization(&self) -> Anonymization<'_> {
        Anonymization {
            config: &self.config,
            data: &self.data,
            model: &self.model,
            outcome: &self.outcome,
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
        let options = PackOptions { mode, seal: &seal };
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
    let pid = child.id() as libc::pid_t;
    let mut status: libc::c_int = 0;
    // SAFETY: wait4 fills the status and the zeroed rusage it is given; the
    // child is ours and not yet reaped (std only reaps in wait/try_wait).
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    if reaped != pid {
        return Err(format!("wait4: {}", std::io::Error::last_os_error()).into());
    }
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
        // Linux reports ru_maxrss in kibibytes.
        peak_rss: usage.ru_maxrss as u64 * 1024,
    })
}
