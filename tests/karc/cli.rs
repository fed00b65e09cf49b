//! The command line as a user meets it: every flag each `--help` lists is
//! accepted by that command, and every command's `--json` document parses,
//! names its schema and has exactly the keys docs/JSON.md lists for it.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common::{fixture, karc, outcome};

const RECIPIENT: &str = crate::common::TEST_RECIPIENT;

/// The environment variable `--passphrase-env` names in these runs: the
/// passphrase of the archive vectors.
const PASSPHRASE_ENV: &str = "KARC_TEST_PASSPHRASE";

/// Runs karc with `args` and `stdin` on its standard input, the vectors'
/// passphrase in [`PASSPHRASE_ENV`].
fn karc_stdin(args: &[String], stdin: &[u8]) -> Output {
    let passphrase = std::fs::read_to_string(fixture("archive/keys/passphrase.txt")).unwrap();
    let first = passphrase.lines().next().unwrap();
    crate::common::karc_stdin(args, stdin, &[(PASSPHRASE_ENV, first)])
}

/// The files the invocations read and write, in a temporary folder.
struct Place {
    dir: tempfile::TempDir,
}

impl Place {
    fn new() -> Place {
        let dir = tempfile::tempdir().unwrap();
        let p = Place { dir };
        std::fs::write(p.path("recipients.txt"), format!("{RECIPIENT}\n")).unwrap();
        std::fs::create_dir(p.path("man")).unwrap();
        // A release to verify.
        let (code, _, err) = run(&p.base("anonymize"));
        assert_eq!(code, 0, "{err}");
        std::fs::copy(p.path("release.csv"), p.path("verify.csv")).unwrap();
        p
    }

    fn path(&self, name: &str) -> String {
        self.dir.path().join(name).display().to_string()
    }

    /// The smallest invocation of `command` that works (the small table of
    /// the archive vectors, their archives and keys).
    fn base(&self, command: &str) -> Vec<String> {
        let src = |f: &str| {
            fixture(&format!("archive/source/{f}"))
                .display()
                .to_string()
        };
        let valid = |f: &str| fixture(&format!("archive/valid/{f}")).display().to_string();
        let key = fixture("archive/keys/identity.txt").display().to_string();
        let (config, csv) = (src("small.toml"), src("small.csv"));
        let args: Vec<String> = match command {
            "anonymize" => vec![
                "anonymize",
                "-c",
                &config,
                &csv,
                "-o",
                &self.path("release.csv"),
            ]
            .into_iter()
            .map(String::from)
            .collect(),
            "pack" => strings(&[
                "pack",
                "-c",
                &config,
                &csv,
                "-o",
                &self.path("a.karc"),
                "--no-encryption",
            ]),
            "restore" => strings(&[
                "restore",
                &valid("sealed_small_x25519.karc"),
                "-o",
                &self.path("r.csv"),
                "-i",
                &key,
                "--force",
            ]),
            "export" => strings(&[
                "export",
                &valid("plain_small.karc"),
                "-o",
                &self.path("e.csv"),
                "--force",
            ]),
            "publish" => strings(&[
                "publish",
                &valid("plain_small.karc"),
                "-o",
                &self.path("p.karc"),
                "--force",
            ]),
            "inspect" => strings(&["inspect", &valid("plain_small.karc")]),
            // The page (or with --json the document) on standard output.
            "report" => strings(&["report", &valid("plain_small.karc"), "-o", "-"]),
            "verify" => strings(&[
                "verify",
                &self.path("verify.csv"),
                "--qi",
                "city,age",
                "--k",
                "2",
            ]),
            "stream" => strings(&["stream", "-c", &config, "-a", "fads", "--delay", "4"]),
            "compare" => strings(&[
                "compare",
                "-c",
                &config,
                &csv,
                "--algorithms",
                "datafly",
                "--ks",
                "2",
                "--mode",
                "per-value-rans",
                "--repeats",
                "1",
                "-o",
                &self.path("rows.txt"),
            ]),
            "keygen" => strings(&["keygen", "-o", &self.path("identity.txt"), "--force"]),
            "sign" => strings(&[
                "sign",
                &valid("plain_small.karc"),
                "--key",
                &fixture("archive/keys/signing_test.key")
                    .display()
                    .to_string(),
                "-o",
                &self.path("signed.karc"),
            ]),
            "init" => strings(&["init", &csv, "-o", &self.path("init.toml"), "--force"]),
            "completions" => strings(&["completions", "bash", "-o", &self.path("karc.bash")]),
            "man" => strings(&["man", "-o", &self.path("karc.1")]),
            other => panic!("no invocation of `karc {other}`: add one to tests/karc/cli.rs"),
        };
        args
    }

    /// `command`'s invocation with `flag` (as `--help` lists it) given a
    /// value that fits; `None` when the base invocation already has it.
    fn with_flag(&self, command: &str, flag: &str) -> Option<Vec<String>> {
        let mut args = self.base(command);
        if args.iter().any(|a| a == flag) {
            return None;
        }
        let valid = |f: &str| fixture(&format!("archive/valid/{f}")).display().to_string();
        let pass = fixture("archive/keys/passphrase.txt").display().to_string();
        let key = fixture("archive/keys/identity.txt").display().to_string();
        let extra: Vec<String> = match (command, flag) {
            ("report", "--internal") => strings(&[flag]),
            ("report", "--identity" | "--passphrase-file" | "--passphrase-env") => {
                let (file, value) = match flag {
                    "--identity" => ("sealed_small_x25519.karc", key.clone()),
                    "--passphrase-file" => ("sealed_small_passphrase.karc", pass.clone()),
                    _ => ("sealed_small_passphrase.karc", PASSPHRASE_ENV.to_owned()),
                };
                args[1] = valid(file);
                strings(&["--internal", flag, &value])
            }
            // A release table's claim: the release `verify` checks.
            (
                "report",
                "--qi" | "--k" | "--constraint" | "--suppressed" | "--delimiter" | "--missing",
            ) => {
                args[1] = self.path("verify.csv");
                match flag {
                    "--constraint" => strings(&[flag, "city,age:2"]),
                    "--suppressed" => strings(&["--qi", "city,age", "--k", "2", flag, "strict"]),
                    "--delimiter" => strings(&["--qi", "city,age", "--k", "2", flag, ","]),
                    "--missing" => strings(&["--qi", "city,age", "--sensitive", "note", flag, "?"]),
                    _ => strings(&["--qi", "city,age", "--k", "2"]),
                }
            }
            ("report", "--definitions") => strings(&["--sensitive", "note", flag, "literature"]),
            (_, "--seed") => strings(&[flag, "7"]),
            (_, "--k") => strings(&[flag, "2"]),
            (_, "--suppression-limit") => strings(&[flag, "0.5"]),
            (_, "--report-json") => strings(&[flag, &self.path("report.json")]),
            (_, "--no-privacy-check") => strings(&[flag]),
            ("stream", "--algorithm") => {
                args.retain(|a| a != "-a" && a != "fads");
                strings(&[flag, "castle"])
            }
            (_, "--algorithm") => strings(&[flag, "mondrian"]),
            (_, "--mode") => strings(&[flag, "context"]),
            (
                "pack",
                "--stream" | "--group-rows" | "--castle-beta" | "--mu" | "--delay" | "--tau"
                | "--c0" | "--pid",
            ) => {
                let castle = ["--castle-beta", "--mu"].contains(&flag);
                let mut extra =
                    strings(&["--stream", "-a", if castle { "castle" } else { "fads" }]);
                if flag != "--delay" {
                    extra.extend(strings(&["--delay", "4"]));
                }
                if flag != "--stream" {
                    extra.extend(strings(&stream_value(flag)));
                }
                extra
            }
            ("stream", "--castle-beta" | "--mu") => {
                args.retain(|a| a != "-a" && a != "fads");
                strings(&["-a", "castle", flag, "3"])
            }
            ("stream", _) if ["--delay", "--tau", "--c0", "--pid"].contains(&flag) => {
                strings(&stream_value(flag))
            }
            ("stream", "--row-column") => strings(&[flag, "rownum"]),
            (
                "pack",
                "--recipient" | "--recipients-file" | "--passphrase-file" | "--work-factor",
            ) => {
                args.retain(|a| a != "--no-encryption");
                match flag {
                    "--recipient" => strings(&[flag, RECIPIENT]),
                    "--recipients-file" => strings(&[flag, &self.path("recipients.txt")]),
                    "--passphrase-file" => strings(&[flag, &pass]),
                    _ => strings(&["--passphrase-file", &pass, flag, "10"]),
                }
            }
            ("restore", "--passphrase-file") => {
                args = strings(&[
                    "restore",
                    &valid("sealed_small_passphrase.karc"),
                    "-o",
                    &self.path("r.csv"),
                    "--force",
                ]);
                strings(&[flag, &pass])
            }
            ("inspect", "--identity") => {
                args = strings(&["inspect", &valid("sealed_small_x25519.karc")]);
                strings(&[
                    flag,
                    &fixture("archive/keys/identity.txt").display().to_string(),
                ])
            }
            ("inspect", "--passphrase-file") => {
                args = strings(&["inspect", &valid("sealed_small_passphrase.karc")]);
                strings(&[flag, &pass])
            }
            ("verify", "--constraint") => strings(&[flag, "city,age:2"]),
            ("verify", "--suppressed") => strings(&[flag, "strict"]),
            // -p asks on a terminal, which these runs have not: without one
            // it is refused with a pointer to the other flags (tests/karc/keys.rs).
            (_, "--passphrase") => return None,
            ("pack" | "restore" | "inspect", "--passphrase-env") => {
                match command {
                    "pack" => args.retain(|a| a != "--no-encryption"),
                    _ => args[1] = valid("sealed_small_passphrase.karc"),
                }
                if command == "restore" {
                    args.retain(|a| a != "-i" && !a.ends_with("identity.txt"));
                }
                strings(&[flag, PASSPHRASE_ENV])
            }
            ("anonymize" | "verify" | "pack" | "init" | "report", "--sensitive" | "--l") => {
                strings(&["--sensitive", "note", "--l", "1"])
            }
            ("anonymize" | "verify" | "pack" | "report", _) if model_args(flag).is_some() => {
                let mut extra = strings(&["--sensitive", "note"]);
                extra.extend(strings(&model_args(flag).unwrap()));
                if command == "verify" {
                    // The release's empty note is a value here, not a
                    // missing one: its class then holds two (recursive l = 2).
                    extra.extend(strings(&["--missing", "?"]));
                }
                extra
            }
            ("verify", "--missing") => strings(&["--sensitive", "note", flag, "?"]),
            ("verify", "--definitions") => strings(&[flag, "literature"]),
            ("pack", "--sign" | "--sign-passphrase-file") => {
                let key = fixture("archive/keys/signing_test.key");
                let mut extra = strings(&["--sign", &key.display().to_string()]);
                if flag != "--sign" {
                    extra.extend(strings(&[flag, &pass]));
                }
                extra
            }
            ("verify" | "restore" | "export" | "report", "--signer") => {
                let signed = fixture("archive/signed/signed_small.karc");
                args[1] = signed.display().to_string();
                if command == "verify" {
                    args.truncate(2);
                }
                if command == "restore" {
                    args.retain(|a| a != "-i" && !a.ends_with("identity.txt"));
                }
                let public = fixture("archive/keys/signing_test.key.pub");
                strings(&[flag, &public.display().to_string()])
            }
            ("keygen", "--signing" | "--passphrase-file") => {
                args = strings(&["keygen", "-o", &self.path("signing.key"), "--force"]);
                let mut extra = strings(&["--signing"]);
                if flag != "--signing" {
                    extra.extend(strings(&[flag, &pass]));
                }
                extra
            }
            ("sign", "--passphrase-file") => strings(&[flag, &pass]),
            ("sign", "--detached") => strings(&[flag]),
            ("init", "--qi") => strings(&[flag, "city,age"]),
            ("init", "--explain") => strings(&[flag]),
            ("init", "--hierarchies-dir") => strings(&[flag, &self.path("hierarchies")]),
            ("verify", "--delimiter") => strings(&[flag, ","]),
            ("compare", "--format") => strings(&[flag, "csv"]),
            ("compare", "--chart") => strings(&[flag, &self.path("chart.svg")]),
            ("compare", "--baselines") => strings(&[flag]),
            ("compare", "--models" | "--sensitive") => {
                strings(&["--models", "l=1", "--sensitive", "note"])
            }
            ("man", "--dir") => {
                args.truncate(1);
                strings(&[flag, &self.path("man")])
            }
            _ => {
                panic!("`karc {command} --help` lists {flag}: give it a value in tests/karc/cli.rs")
            }
        };
        args.extend(extra);
        Some(args)
    }
}

/// Each model flag of anonymize and verify with a value the small table
/// holds.
fn model_args(flag: &str) -> Option<Vec<&str>> {
    Some(match flag {
        "--entropy-l" | "--t" | "--alpha" => vec![flag, "1"],
        "--recursive-cl" => vec![flag, "10,2"],
        "--delta" | "--beta" => vec![flag, "10"],
        "--enhanced-beta" => vec!["--beta", "10", flag],
        _ => return None,
    })
}

fn stream_value(flag: &str) -> Vec<&str> {
    match flag {
        "--delay" => vec![flag, "4"],
        "--tau" => vec![flag, "0.4"],
        "--c0" => vec![flag, "2"],
        "--castle-beta" | "--mu" | "--group-rows" => vec![flag, "3"],
        _ => vec![flag, "id"],
    }
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

/// Runs an invocation; `stream` reads the small table on its standard input.
fn run(args: &[String]) -> (i32, String, String) {
    let stdin = std::fs::read(fixture("archive/source/small.csv")).unwrap();
    outcome(&karc_stdin(args, &stdin))
}

/// The subcommands `karc --help` lists.
fn commands() -> Vec<String> {
    let (code, help, _) = outcome(&karc(&["--help"]));
    assert_eq!(code, 0);
    let list = help.split("Commands:").nth(1).expect("a Commands section");
    list.lines()
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(String::from)
        .collect()
}

/// The flags `karc COMMAND --help` lists, long and short (help and
/// version left out).
fn flags(command: &str) -> Vec<(String, Option<String>)> {
    let (code, help, err) = outcome(&karc(&[command, "--help"]));
    assert_eq!(code, 0, "{err}");
    let mut out = Vec::new();
    for line in help
        .lines()
        .map(str::trim_start)
        .filter(|l| l.starts_with('-'))
    {
        let words: Vec<&str> = line
            .split(|c: char| c == ',' || c.is_whitespace() || c == '=' || c == '<')
            .filter(|w| w.starts_with('-'))
            .take(2)
            .collect();
        let long = words.iter().find(|w| w.starts_with("--"));
        let short = words.iter().find(|w| !w.starts_with("--"));
        if let Some(flag) = long.filter(|f| !["--help", "--version"].contains(*f)) {
            out.push((flag.to_string(), short.map(|s| s.to_string())));
        }
    }
    out
}

#[test]
fn every_flag_a_help_lists_is_accepted() {
    let place = Place::new();
    let commands = commands();
    assert!(commands.len() >= 11, "{commands:?}");
    let mut tried = 0;
    for command in &commands {
        let (code, out, err) = run(&place.base(command));
        assert_eq!(code, 0, "karc {command}: {out}{err}");
        for (flag, short) in flags(command) {
            let base = place.base(command);
            if flag == "--json" || base.iter().any(|a| Some(a) == short.as_ref()) {
                continue; // every_command_prints_its_documented_json; in the base
            }
            let Some(args) = place.with_flag(command, &flag) else {
                continue;
            };
            let (code, out, err) = run(&args);
            assert_eq!(
                code, 0,
                "karc {command} {flag} is listed but refused: {args:?}\n{out}{err}"
            );
            assert!(!err.contains("karc: error"), "{args:?}: {err}");
            tried += 1;
        }
    }
    assert!(tried >= 40, "only {tried} flags tried");
}

#[test]
fn compare_refuses_the_single_algorithm_flags_it_does_not_list() {
    let place = Place::new();
    for flag in [["-k", "2"], ["-a", "datafly"]] {
        let mut args = place.base("compare");
        args.extend(strings(&flag));
        let (code, _, err) = run(&args);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("unexpected argument"), "{err}");
    }
}

#[test]
fn stream_flags_without_stream_are_refused_by_pack() {
    let place = Place::new();
    let mut args = place.base("pack");
    args.extend(strings(&["--delay", "4"]));
    let (code, _, err) = run(&args);
    assert_eq!(
        (code, err.contains("--delay applies to a streamed pack")),
        (2, true),
        "{err}"
    );
}

/// The keys docs/JSON.md lists for `schema`: the first column of the
/// table under its heading.
fn documented_keys(schema: &str) -> BTreeSet<String> {
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/JSON.md"))
        .unwrap();
    let section = doc
        .split(&format!("## {schema}\n"))
        .nth(1)
        .unwrap_or_else(|| panic!("docs/JSON.md has no section {schema}"));
    let section = section.split("\n## ").next().unwrap();
    section
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split('`').next())
        .map(String::from)
        .collect()
}

/// Checks a `--json` document: its schema, and its keys against the docs.
fn check_document(text: &str, schema: &str, what: &str) -> serde_json::Value {
    let v: serde_json::Value =
        serde_json::from_str(text).unwrap_or_else(|e| panic!("{what}: not JSON ({e}): {text}"));
    assert_eq!(v["schema"], schema, "{what}: {text}");
    let keys: BTreeSet<String> = v.as_object().unwrap().keys().cloned().collect();
    assert_eq!(
        keys,
        documented_keys(schema),
        "{what}: keys against docs/JSON.md"
    );
    v
}

#[test]
fn every_command_prints_its_documented_json() {
    let place = Place::new();
    for command in commands() {
        let mut args = place.base(&command);
        args.push("--json".to_owned());
        let (code, out, err) = run(&args);
        assert_eq!(code, 0, "karc {command} --json: {err}");
        // karc stream's rows take standard output: its document is on stderr.
        let (doc, other) = if command == "stream" {
            (&err, &out)
        } else {
            (&out, &err)
        };
        let schema = match command.as_str() {
            "completions" | "man" => "karc.generated/1".to_owned(),
            c @ ("verify" | "inspect") => format!("karc.{c}/2"),
            c => format!("karc.{c}/1"),
        };
        let v = check_document(doc, &schema, &command);
        if command != "stream" {
            // Warnings stay lines on stderr; nothing else does.
            let said = other.lines().filter(|l| !l.starts_with("karc: warning:"));
            assert_eq!(said.count(), 0, "karc {command} --json also said: {other}");
        }
        match command.as_str() {
            "pack" => {
                let size = std::fs::metadata(place.path("a.karc")).unwrap().len();
                assert_eq!(v["file_bytes"], size);
                assert_eq!(v["encryption"], "none");
                assert!(v["stream"].is_null());
                assert_eq!(v["report"]["rows"], 6);
            }
            "restore" => {
                let original = std::fs::read(fixture("archive/source/small.csv")).unwrap();
                assert_eq!(std::fs::read(place.path("r.csv")).unwrap(), original);
                assert_eq!(v["bytes"], original.len());
            }
            "verify" => assert_eq!(
                (v["holds"].as_bool(), v["kind"].as_str()),
                (Some(true), Some("table"))
            ),
            "compare" => assert_eq!(v["rows"].as_array().map(Vec::len), Some(1)),
            "stream" => assert_eq!(v["rows"], 6),
            _ => {}
        }
    }
}

#[test]
fn json_goes_to_stderr_when_stdout_carries_the_data() {
    let place = Place::new();
    let mut args = place.base("anonymize");
    let at = args.iter().position(|a| a == "-o").unwrap();
    args[at + 1] = "-".to_owned();
    args.push("--json".to_owned());
    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out.as_bytes(),
        std::fs::read(place.path("release.csv")).unwrap()
    );
    let v = check_document(&err, "karc.anonymize/1", "anonymize -o -");
    assert_eq!(v["output"], "<stdout>");
}

#[test]
fn errors_with_json_are_documents_with_their_exit_code() {
    let place = Place::new();
    // A usage error: clap refuses the flags.
    let (code, out, _) = outcome(&karc(&["pack", "--json", "--no-such-flag"]));
    assert_eq!(code, 2);
    let v = check_document(&out, "karc.error/1", "usage");
    assert_eq!(
        (v["kind"].as_str(), v["exit_code"].as_u64()),
        (Some("usage"), Some(2))
    );
    // Bad input: a missing file.
    let (code, out, err) = outcome(&karc(&["inspect", &place.path("absent.karc"), "--json"]));
    let v = check_document(&out, "karc.error/1", "bad input");
    assert_eq!((code, v["kind"].as_str()), (2, Some("bad-input")));
    assert!(err.contains(v["message"].as_str().unwrap()), "{err}");
    // A failed check: a tampered archive.
    let bad = fixture("archive/invalid/claim_below_k.karc")
        .display()
        .to_string();
    let (code, out, _) = outcome(&karc(&[
        "export",
        &bad,
        "-o",
        &place.path("x.csv"),
        "--json",
    ]));
    let v = check_document(&out, "karc.error/1", "failed check");
    assert_eq!(
        (code, v["kind"].as_str(), v["exit_code"].as_u64()),
        (1, Some("check-failed"), Some(1))
    );
    // A claim that fails is a result, not an error.
    let (code, out, _) = outcome(&karc(&["verify", &bad, "--json"]));
    let v = check_document(&out, "karc.verify/2", "verify failing");
    assert_eq!(
        (code, v["holds"].as_bool(), v["kind"].as_str()),
        (1, Some(false), Some("archive"))
    );
    assert!(v["archive"]["suppression_budget"].is_u64());
}

#[test]
fn completions_and_man_cover_every_command() {
    let place = Place::new();
    let commands = commands();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let (code, out, err) = outcome(&karc(&["completions", shell]));
        assert_eq!(code, 0, "{err}");
        for c in &commands {
            assert!(out.contains(c.as_str()), "{shell} completions miss {c}");
        }
    }
    let (code, _, err) = outcome(&karc(&["man", "--dir", &place.path("man")]));
    assert_eq!(code, 0, "{err}");
    let mut pages: Vec<PathBuf> = std::fs::read_dir(place.path("man"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    pages.sort();
    assert_eq!(pages.len(), commands.len() + 1, "{pages:?}");
    let pack = std::fs::read_to_string(Path::new(&place.path("man")).join("karc-pack.1")).unwrap();
    assert!(pack.starts_with(".ie") || pack.contains(".TH"), "{pack}");
    assert!(pack.contains("recipient"), "karc-pack.1 lists pack's flags");
}

/// Completions offer the values of the flags that take one of a few names
/// (the algorithms, the difference modes, the claim's policies), not file
/// names.
#[test]
fn completions_offer_the_values_of_named_flags() {
    let (code, bash, err) = outcome(&karc(&["completions", "bash"]));
    assert_eq!(code, 0, "{err}");
    let offered = |flag: &str| -> Vec<String> {
        let case = format!("                {flag})\n");
        let at = bash
            .find(&case)
            .unwrap_or_else(|| panic!("no case for {flag}"));
        let line = bash[at + case.len()..].lines().next().unwrap();
        assert!(line.contains("compgen -W"), "{flag}: {line}");
        line.split('"')
            .nth(1)
            .unwrap()
            .split(' ')
            .map(str::to_owned)
            .collect()
    };
    let modes = offered("--mode");
    for m in ["per-value-rans", "context", "per-value", "paper"] {
        assert!(modes.iter().any(|o| o == m), "--mode: {modes:?}");
    }
    let algorithms = offered("-a");
    for a in [
        "datafly",
        "mondrian",
        "incognito",
        "topdown",
        "fads",
        "castle",
    ] {
        assert!(algorithms.iter().any(|o| o == a), "-a: {algorithms:?}");
    }
    assert!(offered("--algorithms").iter().any(|o| o == "all"));
    assert_eq!(offered("--suppressed"), ["mask", "strict"]);
    assert_eq!(offered("--definitions"), ["pycanon", "literature"]);
    // karc still checks an algorithm itself, naming what it knows.
    let (code, _, err) = outcome(&karc(&[
        "anonymize",
        "-c",
        "fixtures/arx-toy/test.toml",
        "fixtures/arx-toy/test.csv",
        "-o",
        "-",
        "-a",
        "zip",
    ]));
    assert_eq!(code, 2);
    assert!(err.contains("unknown algorithm \"zip\""), "{err}");
}
