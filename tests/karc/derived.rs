//! Derived columns (issue 30): a released column that is a function of a
//! quasi-identifier is refused by every command that releases, with both
//! columns and the share named, unless the config allows it.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{fixture, karc};

/// An appended column: its name and its value from a row's age and
/// education-num.
type Extra = (&'static str, fn(u32, u32) -> String);

/// The raw UCI Adult table without its rows holding `?` (as
/// adult-stream.toml wants them), with `extra` columns appended (a name and
/// the value made from the row's age and education-num).
fn adult_with(dir: &Path, extra: &[Extra]) -> PathBuf {
    let text = std::fs::read_to_string(fixture("adult-raw/adult.csv")).unwrap();
    let mut out = String::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.contains('?') {
            continue;
        }
        out.push_str(line);
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        for (name, make) in extra {
            out.push(',');
            match i {
                0 => out.push_str(name),
                _ => out.push_str(&make(
                    fields[0].parse().unwrap(),
                    fields[4].parse().unwrap(),
                )),
            }
        }
        out.push('\n');
    }
    let path = dir.join("adult.csv");
    std::fs::write(&path, out).unwrap();
    path
}

/// A config of the table above: `base` (an Adult-raw config, its paths made
/// absolute) with `extra` appended as `[[columns]]` entries.
fn config_with(dir: &Path, base: &str, extra: &str) -> PathBuf {
    let hierarchies = fixture("adult/hierarchies").display().to_string();
    let raw = fixture("adult-raw/hierarchies").display().to_string();
    let text = std::fs::read_to_string(fixture(base))
        .unwrap()
        .replace("\"../adult/hierarchies", &format!("\"{hierarchies}"))
        .replace("\"hierarchies", &format!("\"{raw}"))
        .replace("[privacy]", &format!("{extra}\n[privacy]"));
    let path = dir.join("config.toml");
    std::fs::write(&path, text).unwrap();
    path
}

fn age_code(age: u32, _: u32) -> String {
    (2 * age + 1000).to_string()
}

fn age_squared(age: u32, _: u32) -> String {
    (age * age).to_string()
}

fn education_code(_: u32, education: u32) -> String {
    format!("E{}", 97 * education % 101)
}

const AGE_CODE: &str = "[[columns]]\nname = \"age_code\"\nrole = \"insensitive\"\n";

fn s(p: &Path) -> String {
    p.display().to_string()
}

fn one_line_refusal(out: &std::process::Output, column: &str, qi: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    let line = err
        .lines()
        .find(|l| l.contains("error"))
        .unwrap_or_default();
    assert!(
        line.contains(&format!(
            "column \"{column}\" pins quasi-identifier \"{qi}\" on 100.0%"
        )),
        "{err}"
    );
    assert!(line.contains("allow_derived"), "{err}");
}

#[test]
fn pack_and_anonymize_refuse_a_column_derived_from_a_qi() {
    let dir = tempfile::tempdir().unwrap();
    let extra: [Extra; 3] = [
        ("age_code", age_code),
        ("age_sq", age_squared),
        ("edu_code", education_code),
    ];
    let table = adult_with(dir.path(), &extra);
    for (column, qi) in [
        ("age_code", "age"),
        ("age_sq", "age"),
        ("edu_code", "education-num"),
    ] {
        let others: String = extra
            .iter()
            .filter(|(n, _)| *n != column)
            .map(|(n, _)| format!("[[columns]]\nname = \"{n}\"\nrole = \"identifier\"\n"))
            .collect();
        let entry = format!("[[columns]]\nname = \"{column}\"\nrole = \"insensitive\"\n{others}");
        let config = config_with(dir.path(), "adult-raw/adult-archive.toml", &entry);
        for algorithm in ["datafly", "mondrian"] {
            let out_file = dir.path().join("out.karc");
            let out = karc(&[
                "pack",
                &s(&table),
                "-c",
                &s(&config),
                "-a",
                algorithm,
                "-o",
                &s(&out_file),
                "--no-encryption",
            ]);
            one_line_refusal(&out, column, qi);
            assert!(!out_file.exists(), "nothing is written");
            let out = karc(&[
                "anonymize",
                &s(&table),
                "-c",
                &s(&config),
                "-a",
                algorithm,
                "-o",
                "-",
            ]);
            one_line_refusal(&out, column, qi);
            assert!(out.stdout.is_empty(), "nothing is released");
        }
    }
}

#[test]
fn pack_stream_refuses_a_derived_column_in_its_first_block() {
    let dir = tempfile::tempdir().unwrap();
    let table = adult_with(dir.path(), &[("age_code", age_code)]);
    let config = config_with(dir.path(), "adult-raw/adult-stream.toml", AGE_CODE);
    let out_file = dir.path().join("out.karc");
    let out = karc(&[
        "pack",
        "--stream",
        &s(&table),
        "-c",
        &s(&config),
        "-k",
        "5",
        "--delay",
        "200",
        "--group-rows",
        "4000",
        "-o",
        &s(&out_file),
        "--no-encryption",
    ]);
    one_line_refusal(&out, "age_code", "age");
    assert!(String::from_utf8_lossy(&out.stderr).contains("rows 1 to 4000"));
    assert!(!out_file.exists());
}

#[test]
fn an_allowed_derived_column_packs_and_is_listed() {
    let dir = tempfile::tempdir().unwrap();
    let table = adult_with(dir.path(), &[("age_code", age_code)]);
    let entry = format!("{AGE_CODE}allow_derived = [\"age\"]\n");
    let config = config_with(dir.path(), "adult-raw/adult-archive.toml", &entry);
    let out_file = dir.path().join("out.karc");
    let out = karc(&[
        "pack",
        &s(&table),
        "-c",
        &s(&config),
        "-o",
        &s(&out_file),
        "--no-encryption",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let checks = &json["report"]["column_checks"];
    assert_eq!(checks["passed"], true);
    assert_eq!(checks["allowed"], serde_json::json!([["age_code", "age"]]));
    let pair = checks["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["column"] == "age_code" && p["qi"] == "age")
        .unwrap();
    assert_eq!(pair["share"], 1.0);
    assert_eq!(pair["allowed"], true);
}

#[test]
fn the_honest_columns_of_adult_pass_under_every_batch_algorithm() {
    let dir = tempfile::tempdir().unwrap();
    let table = fixture("adult-raw/adult.csv");
    let config = config_with(dir.path(), "adult-raw/adult-archive.toml", "");
    for algorithm in ["datafly", "mondrian", "topdown", "incognito"] {
        let out_file = dir.path().join(format!("{algorithm}.karc"));
        let out = karc(&[
            "pack",
            &s(&table),
            "-c",
            &s(&config),
            "-a",
            algorithm,
            "-o",
            &s(&out_file),
            "--no-encryption",
            "--json",
        ]);
        assert!(
            out.status.success(),
            "{algorithm}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let json: Value = serde_json::from_slice(&out.stdout).unwrap();
        let checks = &json["report"]["column_checks"];
        assert_eq!(checks["passed"], true, "{algorithm}");
        let columns = checks["columns"].as_array().unwrap();
        for name in ["fnlwgt", "capital-loss", "hours-per-week", "relationship"] {
            assert!(columns.iter().any(|c| c == name), "{name} is checked");
        }
        for pair in checks["pairs"].as_array().unwrap() {
            let share = pair["share"].as_f64().unwrap();
            assert!(share < 0.35, "{algorithm}: {pair}");
        }
    }
}

#[test]
fn allow_derived_must_name_a_quasi_identifier() {
    let dir = tempfile::tempdir().unwrap();
    let table = adult_with(dir.path(), &[("age_code", age_code)]);
    for (entry, expected) in [
        (
            format!("{AGE_CODE}allow_derived = [\"fnlwgt\"]\n"),
            "allow_derived: expected the name of a quasi-identifier, found \"fnlwgt\"",
        ),
        (
            "[[columns]]\nname = \"age_code\"\nrole = \"quasi\"\ntype = \"integer\"\nallow_derived = \"age\"\n"
                .to_owned(),
            "allow_derived is for a released column",
        ),
    ] {
        let config = config_with(dir.path(), "adult-raw/adult-archive.toml", &entry);
        let out = karc(&["anonymize", &s(&table), "-c", &s(&config), "-o", "-"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("column \"age_code\": ") && err.contains(expected), "{err}");
    }
}
