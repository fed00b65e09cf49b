//! The fuzz targets' crash inputs (`fuzz/regressions/<target>/`), replayed
//! on stable through the targets' own entry points (`karc::fuzzing`): each
//! once made a reader panic or reserve memory its input could not back.

use std::path::Path;

/// Feeds every file of `fuzz/regressions/<target>/` to `entry`; returns how
/// many there were.
fn replay(target: &str, entry: fn(&[u8])) -> usize {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/regressions")
        .join(target);
    let mut files = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let path = e.unwrap().path();
        if path.file_name().is_some_and(|n| n == "README.md") {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        let started = std::time::Instant::now();
        entry(&bytes);
        assert!(
            started.elapsed() < std::time::Duration::from_secs(5),
            "{}: took {:?}",
            path.display(),
            started.elapsed()
        );
        files += 1;
    }
    files
}

#[test]
fn every_crash_input_is_a_clean_error() {
    type Entry = (&'static str, fn(&[u8]));
    let targets: [Entry; 6] = [
        ("archive", karc::fuzzing::archive),
        ("csv", karc::fuzzing::csv),
        ("config", karc::fuzzing::config),
        ("hierarchy", karc::fuzzing::hierarchy),
        ("signature", karc::fuzzing::signature),
        ("arrow_table", karc::fuzzing::arrow_table),
    ];
    let files: usize = targets.iter().map(|&(t, entry)| replay(t, entry)).sum();
    assert!(
        files >= 3,
        "{files} regression files (the forged row counts at least)"
    );
}
