//! Helpers shared by the integration tests: fixture paths, loading, and
//! running the `karc` binary.

#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use karc::config::Config;
use karc::dataset::Dataset;
use karc::privacy::PrivacyModel;

/// A path under `fixtures/`.
pub fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(rel)
}

/// Adult's config with `k` (and its name: "adult" for 9 QIs, "adult8").
pub fn adult(config: &str, k: usize) -> (Config, Dataset, PrivacyModel) {
    let mut c = Config::load(&fixture(&format!("adult/{config}.toml"))).unwrap();
    c.privacy.k = Some(k);
    c.privacy.constraints.clear();
    let data = Dataset::load(&c, &fixture("adult/adult.csv")).unwrap();
    let model = PrivacyModel::from_config(&c, &data).unwrap();
    (c, data, model)
}

/// Runs the `karc` binary with `args`.
pub fn karc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_karc"))
        .args(args)
        .output()
        .expect("run karc")
}

/// Runs the `karc` binary with `args`, `stdin` on its standard input and
/// `env`'s variables set.
pub fn karc_stdin<A: AsRef<std::ffi::OsStr>>(
    args: &[A],
    stdin: &[u8],
    env: &[(&str, &str)],
) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_karc"))
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run karc");
    let mut pipe = child.stdin.take().unwrap();
    let input = stdin.to_vec();
    // A closed pipe (karc refused early) is not the test's concern.
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

/// The exit code, stdout and stderr of a run, as text.
pub fn outcome(o: &Output) -> (i32, String, String) {
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// The recipient of the test identity `fixtures/archive/keys/identity.txt`
/// (public: never use it for data).
pub const TEST_RECIPIENT: &str = "age1rncunzzu2rfp6u4lk3vyrlxg662esyasypj5swz2jsvt9t2t04as0kjg76";
