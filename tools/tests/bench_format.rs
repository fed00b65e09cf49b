//! `bench_format` on tiny tables: every input gets its rows in every table,
//! restores are checked, and a karc that dies is reported, not fatal.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The karc binary beside this package's binaries: `cargo test --workspace`
/// builds it (karc's own tests run it).
fn karc() -> PathBuf {
    let path = Path::new(env!("CARGO_BIN_EXE_bench_format")).with_file_name("karc");
    assert!(
        path.is_file(),
        "{}: build karc first (cargo build --release --workspace)",
        path.display()
    );
    path
}

fn bench(args: &[&str], karc: &Path) -> (String, Output) {
    let out = Command::new(env!("CARGO_BIN_EXE_bench_format"))
        .args(args)
        .arg("--karc")
        .arg(karc)
        // No pyarrow: Parquet is skipped, and said so.
        .args(["--python", "/nonexistent/python3"])
        .output()
        .unwrap();
    let report = String::from_utf8(out.stdout.clone()).unwrap();
    assert!(
        out.status.success(),
        "{}\n{report}",
        String::from_utf8_lossy(&out.stderr)
    );
    (report, out)
}

/// The cells of the row of `table` (the text after its `### ` heading) that
/// starts with `first`.
fn row<'a>(report: &'a str, table: &str, first: &str) -> Vec<&'a str> {
    let at = report
        .find(&format!("### {table}"))
        .unwrap_or_else(|| panic!("no table {table:?} in\n{report}"));
    let body = &report[at..];
    let body = &body[..body[4..].find("\n### ").map_or(body.len(), |i| i + 4)];
    body.lines()
        .find(|l| l.starts_with(&format!("| {first} |")))
        .unwrap_or_else(|| panic!("no row {first:?} in {table:?}:\n{body}"))
        .trim_matches('|')
        .split('|')
        .map(str::trim)
        .collect()
}

#[test]
fn every_input_is_measured_and_its_restore_checked() {
    let (report, _) = bench(
        &["--rows", "2500", "--runs", "1", "--adult-runs", "1"],
        &karc(),
    );
    assert!(
        report.starts_with("## Format acceptance (issue 16)\n"),
        "{report}"
    );
    assert!(report.contains("Parquet skipped"), "{report}");
    for input in [
        "Adult fixture",
        "adult-stream-gen",
        "gen-table mixed",
        "gen-table numeric",
    ] {
        let sizes = row(&report, "Sizes", input);
        let n: u64 = sizes[1].parse().unwrap();
        assert_eq!(
            n,
            if input == "Adult fixture" {
                30162
            } else {
                2500
            },
            "{input}"
        );
        let (csv, karc, xz): (u64, u64, u64) = (
            sizes[2].parse().unwrap(),
            sizes[3].parse().unwrap(),
            sizes[5].parse().unwrap(),
        );
        assert!(karc > 0 && xz > 0 && xz < csv, "{input}: {sizes:?}");
        assert_eq!(sizes[7], "-", "{input}: no Parquet without pyarrow");

        let times = row(&report, "Times", input);
        assert_eq!(times[5], "yes", "{input}: restored exactly");
        assert!(
            !times.iter().any(|c| c.contains("failed")),
            "{input}: {times:?}"
        );

        let bars = row(&report, "Issue 16's bars", input);
        let size_ratio: f64 = bars[4].parse().unwrap();
        assert!(
            (size_ratio - karc as f64 / xz as f64).abs() < 0.01,
            "{input}: {bars:?}"
        );
        assert_eq!(
            bars[5],
            if size_ratio <= 1.0 { "yes" } else { "no" },
            "{input}"
        );
        for yes_no in [3, 5, 7, 9, 10] {
            assert!(["yes", "no"].contains(&bars[yes_no]), "{input}: {bars:?}");
        }
    }
    assert!(
        report.contains("### Adult fixture, Datafly k = 5"),
        "{report}"
    );
    assert!(!report.contains("### Failures"), "{report}");
}

#[test]
fn a_karc_that_dies_is_reported_and_the_run_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    // A karc that runs out of memory the way Rust's allocator says so.
    let fake = dir.path().join("karc");
    // Written by a child, so that no write descriptor of this multithreaded
    // process can leak into another test's fork (exec would fail: ETXTBSY).
    let script =
        "#!/bin/sh\necho 'memory allocation of 8589934592 bytes failed' >&2\nkill -ABRT $$\n";
    let written = Command::new("sh")
        .args([
            "-c",
            "printf '%s' \"$1\" > \"$2\" && chmod 755 \"$2\"",
            "sh",
            script,
        ])
        .arg(&fake)
        .status()
        .unwrap();
    assert!(written.success());

    let (report, _) = bench(&["--rows", "800", "--inputs", "numeric"], &fake);
    let times = row(&report, "Times", "gen-table numeric");
    assert!(
        times[1].starts_with("failed: signal 6 (abort)"),
        "{times:?}"
    );
    assert_eq!(times[3], "-", "no restore without an archive");
    // zip and the others still ran.
    let sizes = row(&report, "Sizes", "gen-table numeric");
    assert_eq!(sizes[3], "-");
    assert!(sizes[4].parse::<u64>().unwrap() > 0, "{sizes:?}");
    let bars = row(&report, "Issue 16's bars", "gen-table numeric");
    assert_eq!(&bars[2..4], ["-", "no"]);
    assert_eq!(bars[10], "no");
    assert!(
        report.contains("- gen-table numeric, karc pack: signal 6 (abort) after")
            && report.contains("`memory allocation of 8589934592 bytes failed`"),
        "{report}"
    );
}
