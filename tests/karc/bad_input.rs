//! Bad input: every file of `fixtures/invalid/` (named `<area>_<defect>`)
//! has a test of its own, which runs the binary and expects exit code 2, a
//! single line naming the place (file, line, column, value), no panic, and
//! no output file.

use std::path::Path;

use crate::common::{fixture, karc, outcome};

/// The files of `fixtures/invalid/` that have a test below.
const TESTED: &[&str] = &[
    "csv_ragged.csv",
    "csv_invalid_utf8.csv",
    "csv_unclosed_quote.csv",
    "config_unknown_column.toml",
    "config_no_role.toml",
    "config_unlisted_column.toml",
    "config_missing_hierarchy.toml",
    "hierarchy_conflicting_leaves.toml",
    "hierarchy_two_parents.toml",
    "data_absent_from_hierarchy.csv",
    "data_absent_from_hierarchy.toml",
    "data_not_numeric.csv",
    "data_not_numeric.toml",
    "privacy_k_zero.toml",
    "privacy_k_too_large.toml",
    "parquet_brotli.parquet",
];

#[test]
fn every_invalid_fixture_has_a_test() {
    let dir = fixture("invalid");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    for f in &files {
        assert!(
            TESTED.contains(&f.as_str()),
            "fixtures/invalid/{f} has no test"
        );
    }
    for t in TESTED {
        assert!(
            files.iter().any(|f| f == t),
            "fixtures/invalid/{t} is missing"
        );
    }
}

fn invalid(name: &str) -> String {
    path(&fixture(&format!("invalid/{name}")))
}

fn path(p: &Path) -> String {
    p.to_str().unwrap().to_owned()
}

fn adult_config() -> String {
    path(&fixture("adult/adult.toml"))
}

fn adult_csv() -> String {
    path(&fixture("adult/adult.csv"))
}

/// Runs `karc anonymize -c config input -o OUT [extra]` and checks the
/// failure is clean; returns the message.
fn anonymize_fails(config: &str, input: &str, extra: &[&str], expected: &[&str]) -> String {
    anonymize_fails_with(2, config, input, extra, expected)
}

/// As [`anonymize_fails`], with exit code `code`.
fn anonymize_fails_with(
    code: i32,
    config: &str,
    input: &str,
    extra: &[&str],
    expected: &[&str],
) -> String {
    let expected_code = code;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("release.csv");
    let mut args = vec![
        "anonymize",
        "-c",
        config,
        input,
        "-o",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let o = karc(&args);
    let (code, stdout, stderr) = outcome(&o);
    assert_eq!(code, expected_code, "{args:?}: {stderr}");
    assert!(stdout.is_empty(), "{stdout}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let message = stderr.strip_suffix('\n').unwrap_or(&stderr);
    assert_eq!(message.lines().count(), 1, "one line: {stderr}");
    assert!(message.starts_with("karc: error: "), "{message}");
    for e in expected {
        assert!(message.contains(e), "{message:?} lacks {e:?}");
    }
    assert!(!out.exists(), "a release was written");
    message.to_owned()
}

#[test]
fn csv_unreadable() {
    let missing = invalid("no_such_file.csv");
    anonymize_fails(
        &adult_config(),
        &missing,
        &[],
        &[&missing, "No such file or directory"],
    );
    let dir = fixture("invalid");
    anonymize_fails(&adult_config(), &path(&dir), &[], &[&path(&dir)]);
}

#[test]
fn csv_ragged() {
    let csv = invalid("csv_ragged.csv");
    anonymize_fails(
        &adult_config(),
        &csv,
        &[],
        &[&format!(
            "{csv}:3: ragged row: expected 3 fields (as the header), found 2"
        )],
    );
}

/// Issue 32: a quote never closed swallowed the lines after it into one
/// cell (`pack` read 4 rows of 6 lines), silently; `stream` too.
#[test]
fn csv_unclosed_quote() {
    let csv = invalid("csv_unclosed_quote.csv");
    anonymize_fails(
        &adult_config(),
        &csv,
        &[],
        &[&format!(
            "{csv}:3: malformed CSV: a quoted field opened on this line is never closed"
        )],
    );
    // The stream reads standard input: a quote opened on line 7 (row 6) swallows line 8.
    let small = fixture("archive/source/small.csv");
    let mut bytes = std::fs::read(&small).unwrap();
    let at = bytes.len() - b"6,Bonn,22,\"q\"\"q\"\r\n".len();
    bytes.truncate(at);
    bytes.extend_from_slice(b"6,Bonn,22,\"q\r\n7,Kiel,30,z\r\n");
    let config = path(&fixture("archive/source/small.toml"));
    let o = crate::common::karc_stdin(
        &["stream", "-c", &config, "-a", "fads", "--delay", "4"],
        &bytes,
        &[],
    );
    let (code, _, stderr) = outcome(&o);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains(
            "<stdin>:7: malformed CSV: a quoted field opened on this line is never closed"
        ),
        "{stderr}"
    );
    // A quote closed at the very end, and quotes inside unquoted fields, are fine.
    let mut state = karc::api::QuoteState::new(b';', 1);
    state.feed(b"a;\"b\nc\"\"d\"\nx;5 ft 3\"\n");
    assert_eq!(state.unclosed(), None);
    state.feed(b"y;\"open");
    assert_eq!(state.unclosed(), Some(4));
}

#[test]
fn csv_invalid_utf8() {
    let csv = invalid("csv_invalid_utf8.csv");
    anonymize_fails(
        &adult_config(),
        &csv,
        &[],
        &[&format!("{csv}:3: column 3 (race): invalid UTF-8")],
    );
}

/// Issue 32: a header that is not UTF-8 said `column 2 ():`; `-c -` said
/// `-: No such file or directory`.
#[test]
fn a_header_not_utf8_and_a_config_from_standard_input_say_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("h.csv");
    std::fs::write(&csv, b"sex;a\xffe;race\nMale;39;White\n").unwrap();
    let csv = path(&csv);
    anonymize_fails(
        &adult_config(),
        &csv,
        &[],
        &[&format!(
            "{csv}:1: column 2 (its name in the header): invalid UTF-8 after 1 valid bytes"
        )],
    );
    let o = crate::common::karc_stdin(
        &["pack", "-c", "-", "-", "--no-encryption", "-o", "-"],
        b"",
        &[],
    );
    let (code, _, stderr) = outcome(&o);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("config `-`: a config is read from a named file"),
        "{stderr}"
    );
    // A model without its sensitive column: the section is named once.
    let message = anonymize_fails(
        &adult_config(),
        &adult_csv(),
        &["--t", "0.2"],
        &["[privacy]: give `sensitive`"],
    );
    assert!(!message.contains("[privacy]: [privacy]"), "{message}");
}

/// Issue 32: Classfly with `--t` ended in "internal check failed" (it never
/// searched t); it is refused before anything runs, naming what does.
#[test]
fn classfly_with_a_model_it_does_not_search_is_refused_up_front() {
    let dir = tempfile::tempdir().unwrap();
    let adult = std::fs::read_to_string(fixture("adult/adult.toml")).unwrap();
    let at = adult.find("name = \"salary-class\"").unwrap();
    let role = at + adult[at..].find("role = \"quasi\"").unwrap();
    let hierarchies = path(&fixture("adult/hierarchies"));
    let text = format!(
        "{}role = \"sensitive\"{}",
        &adult[..role],
        &adult[role + 14..]
    )
    .replace("\"hierarchies/", &format!("\"{hierarchies}/"));
    let config = dir.path().join("c.toml");
    std::fs::write(&config, text).unwrap();
    anonymize_fails(
        &path(&config),
        &adult_csv(),
        &[
            "-a",
            "classfly",
            "--t",
            "0.2",
            "--sensitive",
            "salary-class",
        ],
        &[
            "classfly: builds its classes for k and distinct l",
            "use datafly",
        ],
    );
}

#[test]
fn config_unknown_column() {
    let config = invalid("config_unknown_column.toml");
    anonymize_fails(
        &config,
        &adult_csv(),
        &[],
        &[&config, "column \"salary\"", "salary-class"],
    );
}

#[test]
fn config_no_role() {
    let config = invalid("config_no_role.toml");
    anonymize_fails(
        &config,
        &adult_csv(),
        &[],
        &[&config, "column \"race\" has no role"],
    );
}

#[test]
fn config_unlisted_column() {
    let config = invalid("config_unlisted_column.toml");
    anonymize_fails(
        &config,
        &adult_csv(),
        &[],
        &[&config, "column \"salary-class\"", "not listed"],
    );
}

#[test]
fn config_missing_hierarchy() {
    let config = invalid("config_missing_hierarchy.toml");
    anonymize_fails(
        &config,
        &adult_csv(),
        &[],
        &[
            &config,
            "column \"education\"",
            "adult_hierarchy_schooling.csv",
            "No such file",
        ],
    );
}

#[test]
fn hierarchy_conflicting_leaves() {
    let italia = path(&fixture("italia/italia.csv"));
    anonymize_fails(
        &invalid("hierarchy_conflicting_leaves.toml"),
        &italia,
        &[],
        &[
            "italia_hierarchy_city_birth.csv",
            "686 leaves have two different generalization paths",
            "\"San Giovanni\"",
            "and 681 more",
        ],
    );
}

#[test]
fn hierarchy_two_parents() {
    let italia = path(&fixture("italia/italia.csv"));
    anonymize_fails(
        &invalid("hierarchy_two_parents.toml"),
        &italia,
        &[],
        &[
            "italia_hierarchy_age.csv",
            "1 node has two parents: \"0~20\" (level 2) under \"0~50\" and \"50~100\"",
        ],
    );
}

#[test]
fn data_absent_from_hierarchy() {
    let csv = invalid("data_absent_from_hierarchy.csv");
    anonymize_fails(
        &invalid("data_absent_from_hierarchy.toml"),
        &csv,
        &[],
        &[
            &csv,
            "column \"sex\": 1 value is absent from the hierarchy",
            "adult_hierarchy_sex.csv",
            "\"Other\"",
        ],
    );
}

/// Regression: the offending row was named by a line guessed from its
/// index, wrong once a quoted field spans lines.
#[test]
fn data_not_numeric() {
    let csv = invalid("data_not_numeric.csv");
    anonymize_fails(
        &invalid("data_not_numeric.toml"),
        &csv,
        &[],
        &[&format!(
            "{csv}: row 2, column \"age\": expected an integer, found \"forty\""
        )],
    );
}

#[test]
fn privacy_k_zero() {
    let config = invalid("privacy_k_zero.toml");
    anonymize_fails(
        &config,
        &adult_csv(),
        &[],
        &[&format!(
            "{config}:61:1: [privacy]: k must be at least 1, found 0"
        )],
    );
    anonymize_fails(
        &adult_config(),
        &adult_csv(),
        &["--k", "0"],
        &["invalid value '0' for '--k <K>': expected a whole number from 1 up, found \"0\""],
    );
}

/// A k above the rows is a well-formed model no release meets: a failed
/// check, exit 1.
#[test]
fn privacy_k_too_large() {
    let config = invalid("privacy_k_too_large.toml");
    let csv = adult_csv();
    let expected = format!("{csv}: k = 40000 is larger than the table (30162 rows)");
    anonymize_fails_with(1, &config, &csv, &[], &[&expected]);
    anonymize_fails_with(1, &adult_config(), &csv, &["--k", "40000"], &[&expected]);
}

/// A Parquet file compressed with a codec karc is built without: parquet
/// itself said only "Disabled feature at compile time: brotli". The line
/// names the column, the codec, the codecs read and how to rewrite it.
#[test]
fn parquet_brotli() {
    let file = invalid("parquet_brotli.parquet");
    let (code, out, err) = outcome(&karc(&["verify", &file, "--qi", "age", "--k", "1"]));
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty(), "{out}");
    assert_eq!(
        err.trim(),
        format!(
            "karc: error: {file}: column \"age\" is compressed with BROTLI, which karc does not \
             read: expected uncompressed, SNAPPY, GZIP, LZ4, LZ4_RAW or ZSTD (pyarrow: \
             `write_table(..., compression=\"zstd\")`)"
        )
    );
}
