//! Child processes measured for the format benchmarks (`bench_format`,
//! `bench_scale`): each command run under limits in one folder, its runs
//! folded into median times and the highest peak, a failure kept with the
//! last line it wrote on stderr; and the tables they measure.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::bench::{BoxError, Limits, ProcessRun, median, run_limited};
use crate::realistic::Kind;

/// Bytes in a MiB.
pub const MIB: f64 = 1024.0 * 1024.0;

/// One measured command: its runs folded (median times, highest peak), and
/// on failure the run that failed and the last line it wrote on stderr.
#[derive(Debug, Clone)]
pub struct Measured {
    /// The folded run (or the failing one).
    pub run: ProcessRun,
    /// The failure's last stderr line.
    pub error: Option<String>,
}

impl Measured {
    /// Every run exited 0 within the limits.
    pub fn ok(&self) -> bool {
        self.error.is_none()
    }

    /// Wall time in seconds.
    pub fn secs(&self) -> f64 {
        self.run.wall_ms / 1e3
    }

    /// `wall (CPU)` in seconds, or how it failed.
    pub fn cell(&self) -> String {
        if self.ok() {
            format!(
                "{:.3} ({:.3})",
                self.run.wall_ms / 1e3,
                self.run.cpu_ms / 1e3
            )
        } else {
            format!("failed: {} after {:.1} s", self.run.exit, self.secs())
        }
    }

    /// Peak resident memory in MiB.
    pub fn rss_mib(&self) -> f64 {
        self.run.peak_rss as f64 / MIB
    }
}

/// Runs child processes in one folder under the limits.
pub struct Runner {
    /// Where the children's files go.
    pub dir: PathBuf,
    /// Time and memory limits of each run.
    pub limits: Limits,
}

impl Runner {
    /// A file of the folder.
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// Runs `command` once (stdout to `stdout` or nowhere).
    pub fn measure_once(
        &self,
        command: Command,
        stdout: Option<&Path>,
    ) -> Result<Measured, BoxError> {
        let command = std::cell::RefCell::new(Some(command));
        self.measure(1, stdout, || {
            (command.borrow_mut().take()).expect("measure runs it once")
        })
    }

    /// Runs `make()`'s command `runs` times (stdout to `stdout` or nowhere,
    /// stderr to a file); stops at the first failing run.
    pub fn measure(
        &self,
        runs: u64,
        stdout: Option<&Path>,
        make: impl Fn() -> Command,
    ) -> Result<Measured, BoxError> {
        let err_path = self.dir.join("stderr.txt");
        let (mut wall, mut cpu, mut peak) = (Vec::new(), Vec::new(), 0);
        let mut last = None;
        for _ in 0..runs {
            let mut command = make();
            command
                .stdin(Stdio::null())
                .stderr(File::create(&err_path)?);
            match stdout {
                Some(p) => command.stdout(File::create(p)?),
                None => command.stdout(Stdio::null()),
            };
            let run = run_limited(&mut command, self.limits)?;
            if !run.ok() {
                let text = std::fs::read_to_string(&err_path).unwrap_or_default();
                let line = text.lines().rev().find(|l| !l.trim().is_empty());
                return Ok(Measured {
                    run,
                    error: Some(line.unwrap_or("(nothing on stderr)").trim().to_owned()),
                });
            }
            wall.push(run.wall_ms);
            cpu.push(run.cpu_ms);
            peak = peak.max(run.peak_rss);
            last = Some(run);
        }
        let run = last.ok_or("no run asked for")?;
        Ok(Measured {
            run: ProcessRun {
                wall_ms: median(wall),
                cpu_ms: median(cpu),
                peak_rss: peak,
                ..run
            },
            error: None,
        })
    }
}

/// Where an input's CSV comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Source {
    /// fixtures/adult/adult.csv (30,162 rows, 9 categorical QIs).
    Adult,
    /// adult-stream-gen (raw Adult's 15 columns, 10 QIs).
    AdultStream,
    /// gen-table --kind mixed.
    Mixed,
    /// gen-table --kind numeric.
    Numeric,
}

impl Source {
    /// Every table, in the reports' order.
    pub const ALL: [Source; 4] = [
        Source::Adult,
        Source::AdultStream,
        Source::Mixed,
        Source::Numeric,
    ];

    /// The table's name in the reports.
    pub fn name(self) -> &'static str {
        match self {
            Source::Adult => "Adult fixture",
            Source::AdultStream => "adult-stream-gen",
            Source::Mixed => "gen-table mixed",
            Source::Numeric => "gen-table numeric",
        }
    }

    /// The hand-written config of the benchmarks.
    pub fn config(self) -> PathBuf {
        match self {
            Source::Adult => repo("fixtures/adult/adult.toml"),
            Source::AdultStream => repo("fixtures/adult-raw/adult-stream.toml"),
            Source::Mixed => Kind::Mixed.bundled_config(),
            Source::Numeric => Kind::Numeric.bundled_config(),
        }
    }
}

/// A path inside the repository.
pub fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path)
}

/// A file's size (0 when it is absent).
pub fn size(path: &Path) -> u64 {
    std::fs::metadata(path).map_or(0, |m| m.len())
}

/// `a` and `b` hold the same bytes (`cmp`, so that nothing is loaded here).
pub fn same_bytes(a: &Path, b: &Path) -> Result<bool, BoxError> {
    Ok(Command::new("cmp")
        .arg("-s")
        .arg(a)
        .arg(b)
        .status()?
        .success())
}

/// The 1, 5 and 15 minute load averages (`/proc/loadavg`), as a phrase.
pub fn load_average() -> String {
    match std::fs::read_to_string("/proc/loadavg") {
        Ok(text) => {
            let l: Vec<&str> = text.split_whitespace().take(3).collect();
            format!("load average {} over the cores", l.join(", "))
        }
        Err(_) => "load average unknown".to_owned(),
    }
}
