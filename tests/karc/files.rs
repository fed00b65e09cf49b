//! Inputs and outputs through the binary: an output that is an input is
//! refused, `-` is standard input / output, FIFOs are written in place,
//! permissions follow what a file holds, an interrupted or failed run leaves
//! nothing behind, and no message shows a secret.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use age::secrecy::ExposeSecret;

use crate::common::{fixture, karc, outcome};

fn small() -> (String, String) {
    (
        fixture("archive/source/small.toml").display().to_string(),
        fixture("archive/source/small.csv").display().to_string(),
    )
}

/// Runs karc with `stdin` on its standard input.
fn karc_with_stdin_of(args: &[&str], stdin: &[u8]) -> Output {
    crate::common::karc_stdin(args, stdin, &[])
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut n: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    n.sort();
    n
}

/// Asserts a refusal: exit 2, one line naming `expected`.
fn refused(o: &Output, expected: &str) -> String {
    let (code, _, err) = outcome(o);
    assert_eq!(code, 2, "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains(expected), "{err}");
    err
}

/// `karc pack --stream` (FADS, delay 4, no encryption) of `input` into
/// `output`, then `extra`.
fn stream_pack(config: &str, input: &str, output: &str, extra: &[&str]) -> Vec<String> {
    let args = [
        "pack",
        "--stream",
        "-c",
        config,
        "-a",
        "fads",
        "--delay",
        "4",
        input,
        "-o",
        output,
        "--no-encryption",
    ];
    args.iter().chain(extra).map(|a| a.to_string()).collect()
}

/// Packs the small table without encryption into `dir/a.karc`.
fn packed(dir: &Path) -> PathBuf {
    let (config, csv) = small();
    let out = dir.join("a.karc");
    let o = karc(&[
        "pack",
        "-c",
        &config,
        &csv,
        "-o",
        out.to_str().unwrap(),
        "--no-encryption",
    ]);
    assert!(o.status.success(), "{:?}", outcome(&o));
    out
}

#[cfg(unix)]
#[test]
fn an_output_that_is_an_input_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = |n: &str| dir.path().join(n).display().to_string();
    let archive = packed(dir.path());
    let before = std::fs::read(&archive).unwrap();
    let a = archive.to_str().unwrap();
    for command in ["export", "publish", "restore"] {
        let o = karc(&[command, a, "-o", a]);
        refused(&o, "the output is the same file as the input");
        assert_eq!(std::fs::read(&archive).unwrap(), before, "{command}");
    }
    // After symlinks, either way round.
    std::os::unix::fs::symlink(&archive, d("link.karc")).unwrap();
    refused(&karc(&["export", &d("link.karc"), "-o", a]), "same file");
    refused(&karc(&["restore", a, "-o", &d("link.karc")]), "same file");
    assert_eq!(std::fs::read(&archive).unwrap(), before);
    // pack and anonymize onto their input CSV, or onto their config.
    let (config, csv) = small();
    std::fs::copy(&csv, d("in.csv")).unwrap();
    let csv_bytes = std::fs::read(&csv).unwrap();
    for command in ["pack", "anonymize"] {
        let seal: &[&str] = if command == "pack" {
            &["--no-encryption"]
        } else {
            &[]
        };
        let o = karc(
            &[
                &[command, "-c", &config, &d("in.csv"), "-o", &d("in.csv")][..],
                seal,
            ]
            .concat(),
        );
        refused(&o, "same file as the input");
        assert_eq!(std::fs::read(d("in.csv")).unwrap(), csv_bytes, "{command}");
    }
    let o = karc(&["anonymize", "-c", &config, &csv, "-o", &config]);
    refused(&o, "same file as the input");
    // Two outputs onto one file.
    let o = karc(&[
        "anonymize",
        "-c",
        &config,
        &csv,
        "-o",
        &d("r.csv"),
        "--report-json",
        &d("r.csv"),
    ]);
    refused(&o, "same file as the output");
    assert_eq!(names(dir.path()), ["a.karc", "in.csv", "link.karc"]);
}

#[test]
fn dash_is_standard_input_and_output() {
    let dir = tempfile::tempdir().unwrap();
    let d = |n: &str| dir.path().join(n).display().to_string();
    let (config, csv) = small();
    let csv_bytes = std::fs::read(&csv).unwrap();
    let archive = packed(dir.path());
    let archive_bytes = std::fs::read(&archive).unwrap();

    // pack from standard input to standard output: the same archive.
    let o = karc_with_stdin_of(
        &["pack", "-c", &config, "-", "-o", "-", "--no-encryption"],
        &csv_bytes,
    );
    assert!(o.status.success(), "{:?}", outcome(&o));
    assert_eq!(o.stdout, archive_bytes);
    // restore, export, publish, verify and inspect read standard input.
    let o = karc_with_stdin_of(&["restore", "-", "-o", "-"], &archive_bytes);
    assert!(o.status.success(), "{:?}", outcome(&o));
    assert_eq!(o.stdout, csv_bytes);
    let o = karc_with_stdin_of(&["export", "-", "-o", "-"], &archive_bytes);
    assert!(o.status.success(), "{:?}", outcome(&o));
    let o2 = karc(&["anonymize", "-c", &config, &csv, "-o", &d("r.csv")]);
    assert!(o2.status.success(), "{:?}", outcome(&o2));
    assert_eq!(o.stdout, std::fs::read(d("r.csv")).unwrap());
    let o = karc_with_stdin_of(&["anonymize", "-c", &config, "-", "-o", "-"], &csv_bytes);
    assert_eq!(o.stdout, std::fs::read(d("r.csv")).unwrap());
    let published = karc_with_stdin_of(&["publish", "-", "-o", "-"], &archive_bytes);
    assert!(published.status.success(), "{:?}", outcome(&published));
    let o = karc_with_stdin_of(&["verify", "-"], &published.stdout);
    let (code, out, err) = outcome(&o);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("<stdin>: karc format"), "{out}");
    let o = karc_with_stdin_of(&["inspect", "-", "--json"], &archive_bytes);
    assert!(o.status.success(), "{:?}", outcome(&o));
    // A streamed pack reads standard input too.
    let args = stream_pack(&config, "-", "-", &[]);
    let o = karc_with_stdin_of(
        &args.iter().map(String::as_str).collect::<Vec<_>>(),
        &csv_bytes,
    );
    assert!(o.status.success(), "{:?}", outcome(&o));
    let o = karc_with_stdin_of(&["restore", "-", "-o", "-"], &o.stdout);
    assert_eq!(o.stdout, csv_bytes, "{:?}", outcome(&o));
    // Nothing was written beside the archive and the release.
    assert_eq!(names(dir.path()), ["a.karc", "r.csv"]);
}

#[cfg(unix)]
#[test]
fn a_fifo_is_written_in_place() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    let archive = packed(dir.path());
    let fifo = dir.path().join("out.fifo");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    for command in ["restore", "export"] {
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read(fifo).unwrap())
        };
        let o = karc(&[
            command,
            archive.to_str().unwrap(),
            "-o",
            fifo.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{:?}", outcome(&o));
        let got = reader.join().unwrap();
        assert!(!got.is_empty(), "{command}");
        if command == "restore" {
            let (_, csv) = small();
            assert_eq!(got, std::fs::read(csv).unwrap());
        }
        let kind = std::fs::symlink_metadata(&fifo).unwrap().file_type();
        assert!(kind.is_fifo(), "{command} replaced the FIFO");
    }
}

/// Runs karc under umask 027.
#[cfg(unix)]
fn karc_with_umask(args: &[&str]) -> Output {
    use std::os::unix::process::CommandExt;
    let mut command = Command::new(env!("CARGO_BIN_EXE_karc"));
    command.args(args);
    // SAFETY: umask is async-signal-safe and touches the child only.
    unsafe {
        command.pre_exec(|| {
            libc::umask(0o027);
            Ok(())
        });
    }
    command.output().unwrap()
}

#[cfg(unix)]
#[test]
fn private_outputs_are_the_owners_only() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let d = |n: &str| dir.path().join(n).display().to_string();
    let mode = |n: &str| std::fs::metadata(d(n)).unwrap().permissions().mode() & 0o777;
    let (config, csv) = small();
    // An earlier file's permissions do not carry over to private data.
    std::fs::write(d("a.karc"), b"old").unwrap();
    std::fs::set_permissions(d("a.karc"), std::fs::Permissions::from_mode(0o644)).unwrap();
    let run = |args: &[&str]| {
        let o = karc_with_umask(args);
        assert!(o.status.success(), "{:?}", outcome(&o));
    };
    run(&[
        "pack",
        "-c",
        &config,
        &csv,
        "-o",
        &d("a.karc"),
        "--no-encryption",
    ]);
    run(&["restore", &d("a.karc"), "-o", &d("o.csv")]);
    run(&["export", &d("a.karc"), "-o", &d("e.csv")]);
    run(&["publish", &d("a.karc"), "-o", &d("p.karc")]);
    run(&[
        "anonymize",
        "-c",
        &config,
        &csv,
        "-o",
        &d("r.csv"),
        "--report-json",
        &d("r.json"),
    ]);
    assert_eq!(mode("a.karc"), 0o600);
    assert_eq!(mode("o.csv"), 0o600);
    for public in ["e.csv", "p.karc", "r.csv", "r.json"] {
        assert_eq!(mode(public), 0o640, "{public}");
    }
}

fn write_key_files(dir: &Path) -> (String, String) {
    let id = age::x25519::Identity::generate();
    let secret = id.to_string().expose_secret().to_owned();
    std::fs::write(dir.join("key.txt"), format!("# key\n{secret}\n")).unwrap();
    std::fs::write(dir.join("pass.txt"), "correct horse battery\n").unwrap();
    std::fs::write(dir.join("wrong.txt"), "not the passphrase\n").unwrap();
    (secret, id.to_public().to_string())
}

#[test]
fn no_message_shows_a_secret() {
    let dir = tempfile::tempdir().unwrap();
    let d = |n: &str| dir.path().join(n).display().to_string();
    let (secret, recipient) = write_key_files(dir.path());
    let (config, csv) = small();
    let pack = |seal: &[&str]| {
        let out = d("x.karc");
        let args = [&["pack", "-c", &config, &csv, "-o", &out][..], seal].concat();
        outcome(&karc(&args))
    };
    let shows = |err: &str, secret: &str| {
        // Any piece of the secret, not only the whole of it (past the
        // prefix every secret key shares, which messages may name).
        let secret = secret.strip_prefix("AGE-SECRET-KEY-1").unwrap_or(secret);
        (0..secret.len().saturating_sub(8)).any(|i| err.contains(&secret[i..i + 8]))
    };
    for seal in [
        vec!["-r", secret.as_str()],
        vec!["-r", &secret[..40]],
        vec!["-R", &d("key.txt")],
        vec!["-R", &d("pass.txt")],
    ] {
        let (code, _, err) = pack(&seal);
        assert_eq!(code, 2, "{err}");
        assert!(
            !shows(&err, &secret) && !shows(&err, "correct horse battery"),
            "{err}"
        );
        assert!(!Path::new(&d("x.karc")).exists());
    }
    let (code, _, err) = pack(&["-r", &secret]);
    assert!(
        err.contains("--recipient 1: this is a secret key"),
        "{code} {err}"
    );
    // A key where clap expects no argument, in lower case too.
    for key in [secret.clone(), secret.to_lowercase()] {
        let (code, _, err) = pack(&[&key]);
        assert_eq!(code, 2, "{err}");
        let lower = secret.to_lowercase();
        assert!(!shows(&err, &secret) && !shows(&err, &lower), "{err}");
        assert!(err.contains("AGE-SECRET-KEY-(not shown)"), "{err}");
    }
    let (code, _, err) = pack(&["-R", &d("key.txt")]);
    assert!(
        err.contains("key.txt: line 2: this is a secret key"),
        "{code} {err}"
    );

    // Opening with the wrong thing names neither.
    let (code, _, err) = pack(&["-r", &recipient]);
    assert_eq!(code, 0, "{err}");
    for (flag, file) in [
        ("-i", "pass.txt"),
        ("--passphrase-file", "key.txt"),
        ("--passphrase-file", "pass.txt"),
    ] {
        let args = ["restore", &d("x.karc"), "-o", &d("o.csv"), flag, &d(file)];
        let (code, _, err) = outcome(&karc(&args));
        assert_eq!(code, 2, "{err}");
        assert!(
            !shows(&err, &secret) && !shows(&err, "correct horse battery"),
            "{err}"
        );
        assert!(!Path::new(&d("o.csv")).exists(), "{err}");
    }
}

#[test]
fn a_wrong_key_or_a_tampered_private_part_yields_no_output() {
    let dir = tempfile::tempdir().unwrap();
    let d = |n: &str| dir.path().join(n).display().to_string();
    write_key_files(dir.path());
    let (config, csv) = small();
    let o = karc(&[
        "pack",
        "-c",
        &config,
        &csv,
        "-o",
        &d("p.karc"),
        "--passphrase-file",
        &d("pass.txt"),
        "--work-factor",
        "2",
    ]);
    assert!(o.status.success(), "{:?}", outcome(&o));
    // An earlier output stays as it was; a new one is never created.
    std::fs::write(d("old.csv"), b"earlier").unwrap();
    let restore = |archive: &str, out: &str, pass: &str| {
        outcome(&karc(&[
            "restore",
            &d(archive),
            "-o",
            out,
            "--passphrase-file",
            &d(pass),
        ]))
    };
    let (code, _, err) = restore("p.karc", &d("old.csv"), "wrong.txt");
    assert_eq!(code, 2, "{err}");
    assert_eq!(std::fs::read(d("old.csv")).unwrap(), b"earlier");
    // The last byte of the sealed part flipped, CRCs recomputed.
    let mut bytes = std::fs::read(d("p.karc")).unwrap();
    *bytes.last_mut().unwrap() ^= 1;
    let container = karc::archive::format::parse(Path::new("p"), &bytes).unwrap();
    let last = container.entries.len() - 1;
    let body = bytes[container.entries[last].range()].to_vec();
    let layout = karc::archive::format::EntryLayout::of(container.major);
    let entry = layout.at(last) + layout.crc_at;
    bytes[entry..entry + 4].copy_from_slice(&crc32fast::hash(&body).to_le_bytes());
    karc::archive::format::reseal_table(&mut bytes);
    std::fs::write(d("t.karc"), &bytes).unwrap();
    let (code, out, err) = restore("t.karc", &d("new.csv"), "pass.txt");
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("authentication"), "{err}");
    let (code, out2, _) = restore("t.karc", "-", "pass.txt");
    assert_eq!((code, out.len(), out2.len()), (1, 0, 0));
    assert_eq!(
        names(dir.path()),
        [
            "key.txt",
            "old.csv",
            "p.karc",
            "pass.txt",
            "t.karc",
            "wrong.txt"
        ]
    );
}

/// A CSV of the small table's columns, `rows` rows with long notes
/// (tens of megabytes: a restore long enough to interrupt).
fn big_csv(path: &Path, rows: usize) {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    out.write_all(b"id,city,age,note\r\n").unwrap();
    let cities = ["Ulm", "Bonn", "Kiel", "Hof"];
    for i in 0..rows {
        let note = format!("{i:x}").repeat(40);
        write!(out, "{i},{},{},{note}\r\n", cities[i % 4], 20 + i % 20).unwrap();
    }
    out.flush().unwrap();
}

#[cfg(target_os = "linux")]
#[test]
fn an_interrupted_restore_leaves_no_plaintext() {
    let dir = tempfile::tempdir().unwrap();
    let d = |n: &str| dir.path().join(n).display().to_string();
    let (config, _) = small();
    big_csv(&dir.path().join("big.csv"), 200_000);
    let o = karc(&[
        "pack",
        "-c",
        &config,
        &d("big.csv"),
        "-o",
        &d("big.karc"),
        "--no-encryption",
    ]);
    assert!(o.status.success(), "{:?}", outcome(&o));
    std::fs::remove_file(d("big.csv")).unwrap();
    // Kill -9 once the restore has its output file open; retry if it ran
    // to its end before being seen.
    let mut caught = false;
    for _ in 0..20 {
        let mut child = Command::new(env!("CARGO_BIN_EXE_karc"))
            .args(["restore", &d("big.karc"), "-o", &d("out.csv")])
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let fds = format!("/proc/{}/fd", child.id());
        let writing = || {
            std::fs::read_dir(&fds)
                .into_iter()
                .flatten()
                .flatten()
                .any(|e| {
                    std::fs::read_link(e.path()).is_ok_and(|t| {
                        t.starts_with(dir.path()) && t.to_string_lossy().ends_with("(deleted)")
                    })
                })
        };
        while child.try_wait().unwrap().is_none() {
            if writing() {
                // While it writes, the directory holds no new name.
                assert_eq!(names(dir.path()), ["big.karc"]);
                child.kill().unwrap();
                caught = true;
                break;
            }
        }
        child.wait().unwrap();
        if caught {
            break;
        }
        std::fs::remove_file(d("out.csv")).unwrap();
    }
    assert!(
        caught,
        "the restore always finished before it was seen writing"
    );
    assert_eq!(names(dir.path()), ["big.karc"]);
}

#[cfg(unix)]
#[test]
fn a_file_truncated_under_pack_is_an_error_not_a_signal() {
    use std::os::unix::process::ExitStatusExt;
    let dir = tempfile::tempdir().unwrap();
    let d = |n: &str| dir.path().join(n).display().to_string();
    let (config, _) = small();
    for delay_ms in [0, 2, 5, 10, 20] {
        big_csv(&dir.path().join("big.csv"), 100_000);
        let child = Command::new(env!("CARGO_BIN_EXE_karc"))
            .args([
                "pack",
                "-c",
                &config,
                &d("big.csv"),
                "-o",
                &d("big.karc"),
                "--no-encryption",
            ])
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(d("big.csv"))
            .unwrap();
        f.set_len(1000).unwrap();
        let o = child.wait_with_output().unwrap();
        assert_eq!(o.status.signal(), None, "{delay_ms} ms: {:?}", outcome(&o));
        let (code, _, err) = outcome(&o);
        assert!(matches!(code, 0 | 2), "{delay_ms} ms: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[test]
fn numbers_out_of_range_are_refused_when_parsed() {
    let dir = tempfile::tempdir().unwrap();
    let d = |n: &str| dir.path().join(n).display().to_string();
    let (config, csv) = small();
    let out = d("out");
    let anonymize = |flag: &str, value: &str| -> Vec<String> {
        ["anonymize", "-c", &config, &csv, "-o", &out, flag, value]
            .map(str::to_owned)
            .to_vec()
    };
    let stream = |flag: &str, value: &str| -> Vec<String> {
        let mut args = ["stream", "-c", &config, "-a", "fads", flag, value]
            .map(str::to_owned)
            .to_vec();
        if flag != "--delay" {
            args.extend(["--delay".to_owned(), "4".to_owned()]);
        }
        args
    };
    let cases: Vec<(Vec<String>, &str)> = vec![
        (anonymize("--suppression-limit", "1.5"), "0..=1"),
        (anonymize("--suppression-limit", "-0.5"), "0..=1"),
        (anonymize("--suppression-limit=-0.5", "--seed=1"), "0..=1"),
        (anonymize("--suppression-limit", "nan"), "0..=1"),
        (anonymize("--suppression-limit", "inf"), "0..=1"),
        (anonymize("--k", "0"), "from 1 up, found \"0\""),
        (
            [
                "pack",
                "-c",
                &config,
                &csv,
                "-o",
                &out,
                "--passphrase-file",
                &config,
                "--work-factor",
                "25",
            ]
            .map(str::to_owned)
            .to_vec(),
            "25 is not in 1..=22",
        ),
        (
            stream_pack(&config, &csv, &out, &["--group-rows", "0"]),
            "from 1 up, found \"0\"",
        ),
        (stream("--delay", "0"), "from 1 up, found \"0\""),
        (stream("--tau", "2"), "0..=1"),
        (stream("--c0", "0"), "above 0"),
        (stream("--c0", "inf"), "above 0"),
        (stream("--castle-beta", "0"), "from 1 up, found \"0\""),
        (stream("--mu", "0"), "from 1 up, found \"0\""),
        (
            ["compare", "-c", &config, &csv, "--ks", "5,0"]
                .map(str::to_owned)
                .to_vec(),
            "from 1 up, found \"0\"",
        ),
        (
            ["verify", &csv, "--sensitive", "note", "--l", "0"]
                .map(str::to_owned)
                .to_vec(),
            "from 1 up, found \"0\"",
        ),
    ];
    for (args, expected) in &cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, _, err) = outcome(&karc(&args));
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(expected), "{args:?}: {err}");
    }
    assert!(!Path::new(&out).exists());

    // The config's stream parameters: whole numbers from 1 up.
    let text = std::fs::read_to_string(&config)
        .unwrap()
        .replace("name = \"datafly\"", "name = \"fads\"\ndelay = -5");
    let toml = dir.path().join("c.toml");
    std::fs::write(
        &toml,
        text.replace(
            "\"h_",
            &format!("\"{}/h_", fixture("archive/source").display()),
        ),
    )
    .unwrap();
    let (code, _, err) = outcome(&karc_with_stdin_of(
        &["stream", "-c", toml.to_str().unwrap()],
        b"",
    ));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("[algorithm] delay: expected a whole number from 1 up, found -5"),
        "{err}"
    );
}

#[test]
fn verify_says_what_a_file_is_that_is_not_karc() {
    let dir = tempfile::tempdir().unwrap();
    let d = |n: &str| dir.path().join(n).display().to_string();
    let archive = packed(dir.path());
    // A damaged magic: reported as such, not as a CSV error.
    let mut bytes = std::fs::read(&archive).unwrap();
    bytes[7] = 0x0b;
    std::fs::write(d("damaged.bin"), &bytes).unwrap();
    let err = refused(&karc(&["verify", &d("damaged.bin")]), "not a karc file");
    assert!(err.contains("found 89 4b 52 43 0d 0a 1a 0b"), "{err}");
    // A .karc name with other content.
    std::fs::write(d("text.karc"), b"a,b\n1,2\n").unwrap();
    refused(&karc(&["verify", &d("text.karc")]), "not a karc file");
    // Neither karc nor CSV.
    std::fs::write(d("x.zip"), b"PK\x03\x04\x14\x00\x00\x00\x08\x00").unwrap();
    let err = refused(
        &karc(&["verify", &d("x.zip"), "--qi", "a", "--k", "2"]),
        "neither a karc file",
    );
    assert!(
        err.contains("starts with 50 4b 03 04") && err.contains("NUL byte"),
        "{err}"
    );
}

/// `restore`, `export` and `publish` refuse to replace an existing regular
/// file without `--force`, as `init` and `keygen` do, leaving it as it was;
/// with `--force` they replace it, and a device is written as ever.
#[cfg(unix)]
#[test]
fn restore_export_and_publish_replace_a_file_only_with_force() {
    let dir = tempfile::tempdir().unwrap();
    let archive = packed(dir.path()).display().to_string();
    let existing = dir.path().join("existing.csv");
    let target = existing.display().to_string();
    for command in [
        vec!["restore", &archive, "-o", &target],
        vec!["export", &archive, "-o", &target],
        vec!["publish", &archive, "-o", &target],
    ] {
        std::fs::write(&existing, b"kept\n").unwrap();
        let (code, _, err) = outcome(&karc(&command));
        assert_eq!(code, 2, "{command:?}: {err}");
        assert!(
            err.contains(&format!(
                "{target}: the file exists: give --force to replace it"
            )),
            "{command:?}: {err}"
        );
        assert_eq!(std::fs::read(&existing).unwrap(), b"kept\n", "{command:?}");
        let mut forced = command.clone();
        forced.push("--force");
        let (code, _, err) = outcome(&karc(&forced));
        assert_eq!(code, 0, "{forced:?}: {err}");
        assert_ne!(std::fs::read(&existing).unwrap(), b"kept\n", "{forced:?}");
        let mut device = command.clone();
        device[3] = "/dev/null";
        let (code, _, err) = outcome(&karc(&device));
        assert_eq!(code, 0, "{device:?}: {err}");
    }
}
