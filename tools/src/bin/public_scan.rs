//! Scans a `.karc` file packed without encryption for the QI values its
//! release hides (issue 30): publishes it in memory (the copy `karc
//! publish` writes), then looks for every original value of `ORIGINAL`'s
//! QIs that the release does not show in the public bytes, the scan the
//! suite runs on every algorithm (`tests/karc/public_scan.rs`), for files
//! packed elsewhere, by `karc.spark` on a cluster among them.
//!
//! ```text
//! public_scan PACKED.karc ORIGINAL.csv
//! ```
//!
//! Prints one line per finding and a summary; exit 0 when nothing hidden
//! is found, 1 when something is, 2 on bad input.

use std::path::Path;
use std::process::ExitCode;

#[path = "../../../tests/karc/public_scan.rs"]
mod public_scan;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [packed, original] = args.as_slice() else {
        eprintln!("usage: public_scan PACKED.karc ORIGINAL.csv (PACKED unsealed: --no-encryption)");
        return ExitCode::from(2);
    };
    let (packed, original) = (Path::new(packed), Path::new(original));
    let read = std::fs::read(packed).map_err(|e| format!("{}: {e}", packed.display()));
    let opened = read.and_then(|b| {
        karc::api::open(packed, b, karc::api::ClaimCheck::Enforce).map_err(|e| e.to_string())
    });
    let archive = match opened {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let published = packed.with_extension("pub.karc");
    let bytes = match archive.published(&published) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let (findings, hidden) =
        public_scan::scan_published("published", packed, &published, bytes, original);
    for f in &findings {
        println!("{f}");
    }
    println!(
        "{}: {hidden} hidden value(s) of the QIs, {} found in the public bytes",
        packed.display(),
        findings.len()
    );
    if findings.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
