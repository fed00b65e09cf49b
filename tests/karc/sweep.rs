//! Every byte of a small archive flipped, and the archive cut at every
//! length, with and without the CRCs recomputed: each mutant is refused
//! with an error or restores the original exactly, and nothing panics.

use std::path::Path;

use karc::archive::reader::{Archive, ClaimCheck};
use karc::archive::seal::Seal;
use karc::archive::writer::{self, PackOptions};
use karc::codec::DiffMode;
use karc::config::Config;

use crate::archive::{reassemble, sections_of};

/// A table of 40 rows with every kind of column: an identifier, a
/// categorical QI with a hierarchy (released as its nodes), an integer QI
/// without one (released as intervals) with a missing value, a decimal
/// column with missing cells, and a text column with quotes, commas, a line
/// break, non-ASCII text and empty cells; CRLF. Its config (Mondrian, k = 3)
/// and hierarchy are written beside it in `dir`.
pub fn every_kind_of_column(dir: &Path) -> (Config, std::path::PathBuf) {
    let cities = ["Ulm", "Bonn", "Kiel", "Hof", "Jena", "Trier"];
    let notes = [
        "\"a, b\"",
        "x",
        "",
        "é",
        "\"q\"\"q\"",
        "\"line\nbreak\"",
        "?",
        "ß",
    ];
    let mut csv = String::from("id,city,age,income,note\r\n");
    for i in 0..40usize {
        let age = match i % 13 {
            5 => "?".to_owned(),
            _ => (18 + i * 7 % 50).to_string(),
        };
        let income = match i % 9 {
            4 => String::new(),
            _ => format!("{}.{:02}", 100 + i * 1371 % 9000 / 100, i * 37 % 100),
        };
        csv += &format!(
            "{},{},{age},{income},{}\r\n",
            1000 + i,
            cities[i % cities.len()],
            notes[i % notes.len()]
        );
    }
    let hierarchy =
        "Ulm;South;*\nBonn;West;*\nKiel;North;*\nHof;South;*\nJena;East;*\nTrier;West;*\n";
    let config = r#"
[input]
delimiter = ","

[[columns]]
name = "id"
role = "identifier"

[[columns]]
name = "city"
role = "quasi"
hierarchy = "h_city.csv"

[[columns]]
name = "age"
role = "quasi"
type = "integer"

[[columns]]
name = "income"
role = "insensitive"
type = "decimal"

[[columns]]
name = "note"
role = "sensitive"

[privacy]
k = 3

[algorithm]
name = "mondrian"
seed = 0
"#;
    std::fs::write(dir.join("t.csv"), csv).unwrap();
    std::fs::write(dir.join("h_city.csv"), hierarchy).unwrap();
    std::fs::write(dir.join("t.toml"), config).unwrap();
    (
        Config::load(&dir.join("t.toml")).unwrap(),
        dir.join("t.csv"),
    )
}

/// The unsealed archive of [`every_kind_of_column`] and the original bytes.
pub fn small_archive(dir: &Path) -> (Vec<u8>, Vec<u8>) {
    let (config, csv) = every_kind_of_column(dir);
    let options = PackOptions {
        groups: Default::default(),
        mode: DiffMode::default(),
        seal: &Seal::None,
    };
    let bytes = writer::pack_file(&config, &csv, &options).unwrap();
    (bytes, std::fs::read(&csv).unwrap())
}

/// What the readers make of `bytes`: every reader runs (no panic), and a
/// restore is an error or the original, never other bytes. Returns whether
/// the file was refused on open.
fn check(bytes: &[u8], original: &[u8], what: &str) -> bool {
    karc::fuzzing::archive(bytes);
    let path = Path::new("sweep.karc");
    match Archive::from_bytes(path, bytes.to_vec(), ClaimCheck::Enforce) {
        Err(e) => {
            assert!(!e.to_string().is_empty(), "{what}: an empty message");
            true
        }
        Ok(archive) => {
            if let Ok(out) = archive.restore(None) {
                assert!(
                    out == original,
                    "{what}: restored {} other bytes",
                    out.len()
                );
            }
            false
        }
    }
}

#[test]
fn every_flip_and_cut_of_a_small_archive_is_refused_or_restores_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let (bytes, original) = small_archive(dir.path());
    let started = std::time::Instant::now();
    assert!(!check(&bytes, &original, "the archive itself"));
    assert_eq!(
        Archive::from_bytes(Path::new("t"), bytes.clone(), ClaimCheck::Enforce)
            .unwrap()
            .restore(None)
            .unwrap(),
        original
    );
    // Without the CRCs recomputed: every change is caught (by a CRC, or by
    // the header and table checks).
    for i in 0..bytes.len() {
        for x in [0x01u8, 0xFF] {
            let mut bad = bytes.clone();
            bad[i] ^= x;
            assert!(
                check(&bad, &original, &format!("byte {i} ^ {x:#04x}")),
                "byte {i} ^ {x:#04x}: accepted"
            );
        }
    }
    for len in 0..bytes.len() {
        assert!(
            check(&bytes[..len], &original, &format!("cut at {len}")),
            "cut at {len}: accepted"
        );
    }
    // With the CRCs recomputed, the decoders see each change: a change to
    // the public part must still never restore other bytes (the private
    // part holds its digest), one to the private part (in clear here) must
    // fail its checksum or leave the restore exact.
    let sections = sections_of(&bytes);
    let mut refused = 0usize;
    let mut mutants = 0usize;
    for (s, (_, body)) in sections.iter().enumerate() {
        for i in 0..body.len() {
            for x in [0x01u8, 0xFF] {
                let mut edited = sections.clone();
                edited[s].1[i] ^= x;
                mutants += 1;
                let what = format!("section {s} byte {i} ^ {x:#04x}, CRCs recomputed");
                refused += usize::from(check(&reassemble(&edited), &original, &what));
            }
        }
        for len in 0..body.len() {
            let mut edited = sections.clone();
            edited[s].1.truncate(len);
            mutants += 1;
            let what = format!("section {s} cut at {len}, CRCs recomputed");
            refused += usize::from(check(&reassemble(&edited), &original, &what));
        }
    }
    eprintln!(
        "sweep: {} bytes, {} + {mutants} mutants ({refused} refused on open) in {:?}",
        bytes.len(),
        3 * bytes.len(),
        started.elapsed()
    );
}
