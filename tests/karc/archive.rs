//! The `.karc` archive: byte-identical restore on real and generated files,
//! corruption and tampering refused, each key or file problem with its own
//! message, and the commands around it.

use std::path::{Path, PathBuf};

use age::secrecy::SecretString;
use karc::Error;
use karc::anonymize::Algorithm;
use karc::archive::ArchiveError;
use karc::archive::format::{self, SectionKind};
use karc::archive::reader::{Archive, ClaimCheck};
use karc::archive::seal::{Key, Seal};
use karc::archive::writer::{self, PackOptions};
use karc::codec::DiffMode;
use karc::config::Config;

use crate::common::fixture;

/// Anonymizes `csv` with `config` (algorithm and k overridden when given)
/// and packs it, as `karc pack` does.
pub fn pack(
    config: &Path,
    csv: &Path,
    algorithm: Option<&str>,
    k: Option<usize>,
    mode: DiffMode,
    seal: &Seal,
) -> Vec<u8> {
    let mut c = Config::load(config).unwrap();
    if let Some(a) = algorithm {
        c.algorithm.name = a.to_owned();
    }
    if let Some(k) = k {
        c.privacy.k = Some(k);
        c.privacy.constraints.clear();
    }
    writer::pack_file(
        &c,
        csv,
        &PackOptions {
            mode,
            seal,
            groups: Default::default(),
        },
    )
    .unwrap()
}

pub(crate) fn open(bytes: &[u8]) -> karc::Result<Archive> {
    Archive::from_bytes(Path::new("t.karc"), bytes.to_vec(), ClaimCheck::Enforce)
}

pub(crate) fn restore(bytes: &[u8], key: Option<&Key>) -> karc::Result<Vec<u8>> {
    open(bytes)?.restore(key)
}

pub(crate) fn archive_error(r: karc::Result<impl std::fmt::Debug>) -> ArchiveError {
    match r.map_err(Error::into_area::<ArchiveError>) {
        Err(Ok(e)) => e,
        other => panic!("expected an archive error, got {other:?}"),
    }
}

/// A fresh X25519 key pair: the identity as a key, the recipient as a seal.
pub(crate) fn key_pair() -> (Key, Seal) {
    let id = age::x25519::Identity::generate();
    let seal = Seal::Recipients(vec![id.to_public()]);
    (Key::Identities(vec![Box::new(id)]), seal)
}

pub(crate) fn low_cost_passphrase(p: &str) -> (Key, Seal) {
    let s = SecretString::from(p.to_owned());
    (
        Key::Passphrase(s.clone()),
        Seal::Passphrase {
            passphrase: s,
            work_factor: Some(4),
        },
    )
}

/// The sections of an archive, owned, for editing.
pub fn sections_of(bytes: &[u8]) -> Vec<(SectionKind, Vec<u8>)> {
    let c = format::parse(Path::new("t"), bytes).unwrap();
    c.entries
        .iter()
        .map(|e| (e.kind().unwrap(), bytes[e.range()].to_vec()))
        .collect()
}

/// Writes sections back with fresh CRCs.
pub fn reassemble(sections: &[(SectionKind, Vec<u8>)]) -> Vec<u8> {
    let refs: Vec<(SectionKind, &[u8])> =
        sections.iter().map(|(k, b)| (*k, b.as_slice())).collect();
    format::assemble(&refs)
}

/// The small table of the test vectors (an identifier, two QIs with small
/// hierarchies, quoted fields, CRLF): small enough to touch every byte.
pub(crate) fn small_table() -> (PathBuf, PathBuf) {
    (
        fixture("archive/source/small.toml"),
        fixture("archive/source/small.csv"),
    )
}

#[test]
fn adult_restores_byte_identical_with_every_algorithm() {
    let csv = fixture("adult/adult.csv");
    let original = std::fs::read(&csv).unwrap();
    let (key, seal) = key_pair();
    for a in Algorithm::ALL {
        for mode in DiffMode::ALL {
            let bytes = pack(
                &fixture("adult/adult.toml"),
                &csv,
                Some(a.name()),
                Some(5),
                *mode,
                &seal,
            );
            let restored = restore(&bytes, Some(&key)).unwrap();
            assert!(restored == original, "{} {mode}: restore differs", a.name());
        }
    }
}

/// Issue 3's size target: Adult, 9 QIs, k = 5, Datafly and Incognito, the
/// default mode: public + private part within 1.10 x 69,792 B (the summed
/// order-0 entropy of the original QI columns), whatever parents the
/// context coder's estimate picks.
#[test]
fn adult_default_mode_stays_within_the_size_target() {
    for a in [Algorithm::Datafly, Algorithm::Incognito] {
        let bytes = pack(
            &fixture("adult/adult.toml"),
            &fixture("adult/adult.csv"),
            Some(a.name()),
            Some(5),
            DiffMode::default(),
            &Seal::None,
        );
        let info = open(&bytes).unwrap().inspect(None).unwrap();
        let total = info.public_bytes + info.private_bytes.unwrap();
        assert!(total <= 76_771, "{}: {total} B", a.name());
    }
}

#[test]
fn raw_adult_with_padding_and_roles_restores_byte_identical() {
    let csv = fixture("adult-raw/adult.csv");
    let bytes = pack(
        &fixture("adult-raw/adult-archive.toml"),
        &csv,
        None,
        None,
        DiffMode::default(),
        &Seal::None,
    );
    let archive = open(&bytes).unwrap();
    assert_eq!(archive.restore(None).unwrap(), std::fs::read(&csv).unwrap());
    let info = archive.inspect(None).unwrap();
    // One padding per column and no verbatim field: the layout stays small.
    assert_eq!(info.layout_verbatim_bytes, Some(0));
    let gain = info
        .columns
        .iter()
        .find(|c| c.name == "capital-gain")
        .unwrap();
    assert_eq!(gain.public_bytes, 0, "identifiers are never released");
    assert!(gain.private_bytes.unwrap() > 0);
    let release = archive.release_columns().unwrap();
    assert_eq!(release.len(), 14);
    assert!(release.iter().all(|c| c.name != "capital-gain"));
}

#[test]
fn arx_toy_tables_restore_byte_identical() {
    for name in ["test", "test2"] {
        let csv = fixture(&format!("arx-toy/{name}.csv"));
        let (key, seal) = low_cost_passphrase("toy");
        let bytes = pack(
            &fixture(&format!("arx-toy/{name}.toml")),
            &csv,
            None,
            None,
            DiffMode::Paper,
            &seal,
        );
        assert_eq!(
            restore(&bytes, Some(&key)).unwrap(),
            std::fs::read(&csv).unwrap()
        );
    }
}

/// What an invalid vector must be refused with, and at which step.
enum Step {
    Open,
    /// Opens, then restore fails (with the test identity when sealed).
    Restore,
}

type Expect = fn(&ArchiveError) -> bool;

/// Every file of `fixtures/archive/invalid/`, with its expected error.
const INVALID: &[(&str, Step, Expect)] = &[
    ("magic_wrong.karc", Step::Open, |e| {
        matches!(e, ArchiveError::NotKarc { .. })
    }),
    ("version_major3.karc", Step::Open, |e| {
        matches!(
            e,
            ArchiveError::UnsupportedVersion {
                major: 3,
                minor: 0,
                ..
            }
        )
    }),
    // A development-era "1.0" file (same magic and major, another layout:
    // QIs in column sections, metadata not compressed): refused cleanly.
    ("version_development_1_0.karc", Step::Open, |e| {
        matches!(e, ArchiveError::Corrupt { section, detail, .. }
            if section == "section 0 (metadata)" && detail.starts_with("not a valid Brotli stream"))
    }),
    (
        "version_newer_minor_unknown_section.karc",
        Step::Open,
        |e| {
            matches!(
                e,
                ArchiveError::UnsupportedSection {
                    code: 99,
                    minor: 1,
                    ..
                }
            )
        },
    ),
    (
        "table_crc_mismatch.karc",
        Step::Open,
        |e| matches!(e, ArchiveError::CrcMismatch { section, .. } if section == "header and section table"),
    ),
    (
        "header_flags_nonzero.karc",
        Step::Open,
        |e| matches!(e, ArchiveError::Corrupt { section, .. } if section == "header"),
    ),
    (
        "section_crc_mismatch.karc",
        Step::Open,
        |e| matches!(e, ArchiveError::CrcMismatch { section, .. } if section.contains("private part")),
    ),
    (
        "section_truncated.karc",
        Step::Open,
        |e| matches!(e, ArchiveError::Truncated { what, .. } if what.contains("private part")),
    ),
    (
        "section_trailing_bytes.karc",
        Step::Open,
        |e| matches!(e, ArchiveError::Corrupt { section, .. } if section == "end of file"),
    ),
    ("meta_trailing_bytes.karc", Step::Open, |e| {
        matches!(e, ArchiveError::Corrupt { section, detail, .. }
            if section == "section 0 (metadata)" && detail == "1 bytes left after the structure")
    }),
    ("meta_truncated.karc", Step::Open, |e| {
        matches!(e, ArchiveError::Corrupt { section, detail, .. }
            if section == "section 0 (metadata)" && detail.starts_with("truncated Brotli stream"))
    }),
    ("meta_over_limit.karc", Step::Open, |e| {
        matches!(e, ArchiveError::Corrupt { section, detail, .. }
            if section == "section 0 (metadata)" && detail.ends_with("more than 67108864 bytes"))
    }),
    ("hierarchies_trailing_bytes.karc", Step::Open, |e| {
        matches!(e, ArchiveError::Corrupt { section, detail, .. }
            if section == "section 1 (hierarchies)" && detail == "1 byte after the Brotli stream")
    }),
    // The public part holds only what the release shows (FORMAT §6).
    ("hierarchies_node_unneeded.karc", Step::Open, |e| {
        matches!(e, ArchiveError::Corrupt { section, detail, .. }
            if section == "section 1 (hierarchies) (hierarchy 1)"
                && detail.starts_with("node \"20\" of level 0 is neither released nor above a released node"))
    }),
    ("hierarchies_parent_not_kept.karc", Step::Open, |e| {
        matches!(e, ArchiveError::Corrupt { section, detail, .. }
            if section == "section 1 (hierarchies) (hierarchy 1)"
                && detail == "level 1: node 0's parent 1 is not a kept node of level 2 (1 kept)")
    }),
    ("classes_node_beyond_pruned.karc", Step::Open, |e| {
        matches!(e, ArchiveError::Corrupt { detail, .. }
            if detail == "QI 1 releases node 1 of level 1, beyond the 1 public nodes of that level")
    }),
    ("private_hierarchy_label_missing.karc", Step::Restore, |e| {
        matches!(e, ArchiveError::Corrupt { section, detail, .. }
            if section.ends_with("(hierarchies)")
                && detail == "hierarchy 1: level 1: the public node \"20-29\" is not in the full hierarchy")
    }),
    (
        "columns_missing.karc",
        Step::Open,
        |e| matches!(e, ArchiveError::Corrupt { detail, .. } if detail.contains("column sections")),
    ),
    (
        "classes_missing.karc",
        Step::Open,
        |e| matches!(e, ArchiveError::Corrupt { detail, .. } if detail.contains("expected the QI classes section third")),
    ),
    ("classes_unused.karc", Step::Open, |e| {
        matches!(e, ArchiveError::Corrupt { section, detail, .. }
            if section.ends_with("(QI classes)") && detail.contains("never used"))
    }),
    ("classes_rans_end.karc", Step::Open, |e| {
        matches!(e, ArchiveError::Corrupt { section, detail, .. }
            if section.ends_with("(QI classes)") && detail.contains("does not end"))
    }),
    ("classes_next_unopened.karc", Step::Open, |e| {
        matches!(e, ArchiveError::Corrupt { section, detail, .. }
            if section.ends_with("(QI classes)") && detail.contains("before it was opened"))
    }),
    // The second row group's count of classes opened before it, one more
    // (spec/CODING.md 4.4).
    ("row_classes_opened.karc", Step::Open, |e| {
        matches!(e, ArchiveError::Corrupt { section, detail, .. }
            if section.ends_with("(row classes)") && detail.contains("classes opened before the row group"))
    }),
    ("claim_below_k.karc", Step::Open, |e| {
        matches!(e, ArchiveError::ClaimBroken { .. })
    }),
    // The models beyond k: the stored claim says l = 2 and t = 0.2, the
    // classes' t is 2/3; and rows whose note is one value break l.
    ("claim_models_broken.karc", Step::Open, |e| {
        matches!(e, ArchiveError::ClaimBroken { failures, .. }
            if failures.starts_with("t_closeness (t=0.2) on note"))
    }),
    ("claim_models_rows_broken.karc", Step::Open, |e| {
        matches!(e, ArchiveError::ClaimBroken { failures, .. }
            if failures.starts_with("l_diversity (l=2) on note: the release has 1"))
    }),
    // A COLUMN_CHECKS section naming a QI among the checked released columns.
    ("column_checks_malformed.karc", Step::Open, |e| {
        matches!(e, ArchiveError::Corrupt { section, detail, .. }
            if section.ends_with("(column checks)") && detail.contains("not ascending released columns"))
    }),
    ("meta_pseudonym_not_identifier.karc", Step::Open, |e| {
        matches!(e, ArchiveError::Corrupt { section, detail, .. }
            if section == "section 0 (metadata)" && detail.contains("\"note\" is flagged as pseudonyms but is not an identifier"))
    }),
    (
        "pseudonym_column_missing.karc",
        Step::Open,
        |e| matches!(e, ArchiveError::Corrupt { detail, .. } if detail.contains("expected 2 column sections")),
    ),
    ("private_digest_mismatch.karc", Step::Restore, |e| {
        matches!(e, ArchiveError::RestoreChecksum { .. })
    }),
    ("public_part_changed.karc", Step::Restore, |e| {
        matches!(e, ArchiveError::PublicPartChanged { .. })
    }),
    ("private_envelope_tampered.karc", Step::Restore, |e| {
        matches!(e, ArchiveError::Envelope { .. })
    }),
];

pub fn vector_key(name: &str) -> Option<Key> {
    if name.contains("passphrase") {
        let p = karc::archive::seal::read_passphrase_file(&fixture("archive/keys/passphrase.txt"));
        Some(Key::Passphrase(p.unwrap()))
    } else if name.contains("x25519") || name.contains("envelope") {
        Some(
            karc::archive::seal::read_identity_file(&fixture("archive/keys/identity.txt")).unwrap(),
        )
    } else {
        None
    }
}

fn names_in(dir: &str) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(fixture(dir))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".karc"))
        .collect();
    names.sort();
    names
}

#[test]
fn every_invalid_vector_has_a_test() {
    let mut listed: Vec<String> = INVALID.iter().map(|(n, _, _)| n.to_string()).collect();
    listed.sort();
    assert_eq!(names_in("archive/invalid"), listed);
}

#[test]
fn invalid_vectors_are_refused_with_their_error() {
    for (name, step, expect) in INVALID {
        let path = fixture(&format!("archive/invalid/{name}"));
        let opened = Archive::open(&path, ClaimCheck::Enforce);
        let err = match (step, opened) {
            (Step::Open, Ok(_)) => panic!("{name}: opened"),
            (Step::Open, Err(e)) => e,
            (Step::Restore, Err(e)) => panic!("{name}: refused on open: {e}"),
            (Step::Restore, Ok(a)) => a
                .restore(vector_key(name).as_ref())
                .expect_err(&format!("{name}: restored")),
        };
        match err.area::<ArchiveError>() {
            Some(e) => assert!(expect(e), "{name}: {e}"),
            None => panic!("{name}: {err}"),
        }
        // Opening while unsealing reports the same error: the file's first.
        let together = Archive::open_and_restore(
            &path,
            ClaimCheck::Enforce,
            vector_key(name).as_ref(),
            &mut |_| Ok(()),
        )
        .expect_err(&format!("{name}: restored in one go"));
        assert_eq!(together.to_string(), err.to_string(), "{name}");
    }
}

#[test]
fn valid_and_compat_vectors_open_and_restore() {
    let csv = std::fs::read(fixture("archive/source/small.csv")).unwrap();
    // A Parquet input restores to its canonical CSV.
    let parquet_csv = std::fs::read(fixture("archive/source/small_parquet.csv")).unwrap();
    // Fixed-width codes, names and a quoted column (codec layouts 5 and 6).
    let codes_csv = std::fs::read(fixture("archive/source/codes.csv")).unwrap();
    // `compat/` holds the 1.0 vectors as `v1.0_<name>` (its README).
    assert!(names_in("archive/valid").len() >= 9);
    assert!(names_in("archive/compat").len() >= 9);
    for dir in ["archive/valid", "archive/compat"] {
        for name in names_in(dir) {
            let base = name.trim_start_matches("v1.0_");
            assert_eq!(
                dir == "archive/compat",
                Archive::open(&fixture(&format!("{dir}/{name}")), ClaimCheck::Enforce)
                    .map(|a| a.version().0 == 1)
                    .unwrap_or_else(|e| panic!("{name}: {e}")),
                "{name}: compat/ holds the 1.0 files, valid/ this version's"
            );
            let original = match base {
                _ if base.starts_with("arrow_") => &parquet_csv,
                _ if base.starts_with("codes_") => &codes_csv,
                _ => &csv,
            };
            let a = Archive::open(&fixture(&format!("{dir}/{name}")), ClaimCheck::Enforce)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(a.claim_report.as_ref().unwrap().holds());
            if name.contains("published") {
                let e = a.restore(None).unwrap_err();
                assert!(matches!(e.area(), Some(ArchiveError::NoPrivatePart { .. })));
            } else {
                let restored = a
                    .restore(vector_key(&name).as_ref())
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
                assert_eq!(&restored, original, "{name}");
                let bytes = std::fs::read(fixture(&format!("{dir}/{name}"))).unwrap();
                let (_, together) = Archive::from_bytes_and_restore(
                    Path::new(&name),
                    bytes,
                    ClaimCheck::Enforce,
                    vector_key(&name).as_ref(),
                )
                .unwrap_or_else(|e| panic!("{name} in one go: {e}"));
                assert_eq!(&together, original, "{name} in one go");
            }
        }
    }
}

/// Regression: with no `suppression_limit`, Classfly suppresses its leftover
/// rows, but `pack` recorded the budget of the other methods (0), so the
/// reader's budget re-check refused the file it had just written.
#[test]
fn classfly_without_suppression_limit_reopens_and_restores() {
    let path = crate::common::fixture("adult/adult.toml");
    let mut config = karc::config::Config::load(&path).unwrap();
    config.privacy.suppression_limit = None;
    config.privacy.k = Some(10);
    config.algorithm.name = "classfly".to_owned();
    let input = crate::common::fixture("adult/adult.csv");
    let seal = karc::archive::seal::Seal::None;
    let options = karc::archive::writer::PackOptions {
        groups: Default::default(),
        mode: karc::codec::DiffMode::default(),
        seal: &seal,
    };
    let bytes = karc::archive::writer::pack_file(&config, &input, &options).unwrap();
    let archive = karc::archive::reader::Archive::from_bytes(
        &input,
        bytes,
        karc::archive::reader::ClaimCheck::Enforce,
    )
    .unwrap();
    assert_eq!(
        archive.restore(None).unwrap(),
        std::fs::read(&input).unwrap()
    );
}

/// The writer's bytes are pinned, not only read back: packing the vectors'
/// source again gives the committed unsealed vectors byte for byte, and
/// packing Adult gives the length and BLAKE3 of every cell of
/// `fixtures/archive/golden_adult.txt`. A change to any coding or section
/// shows here; it needs the version rule of `spec/FORMAT.md` §10 and new
/// vectors (`archive_vectors` rewrites both).
#[test]
fn writer_output_is_pinned_on_adult() {
    let (config_path, csv) = small_table();
    let config = Config::load(&config_path).unwrap();
    let parquet = fixture("archive/source/small.parquet");
    for (mode, name, input) in [
        (DiffMode::default(), "plain_small.karc", &csv),
        (DiffMode::Paper, "plain_small_paper.karc", &csv),
        (DiffMode::default(), "arrow_small_parquet.karc", &parquet),
    ] {
        let packed = writer::pack_file(
            &config,
            input,
            &PackOptions {
                groups: Default::default(),
                mode,
                seal: &Seal::None,
            },
        )
        .unwrap();
        let committed = std::fs::read(fixture(&format!("archive/valid/{name}"))).unwrap();
        assert!(packed == committed, "{name}: the writer's bytes changed");
    }
    // The claim of models beyond k (`PRIVACY_MODELS`), as the tool sets it.
    let mut with_models = config.clone();
    let p = &mut with_models.privacy;
    p.sensitive = vec!["note".to_owned()];
    (p.l, p.entropy_l, p.t, p.alpha) = (Some(2), Some(1.5), Some(0.7), Some(0.5));
    let options = PackOptions {
        groups: Default::default(),
        mode: DiffMode::default(),
        seal: &Seal::None,
    };
    let packed = writer::pack_file(&with_models, &csv, &options).unwrap();
    let committed = std::fs::read(fixture("archive/valid/models_small.karc")).unwrap();
    assert!(
        packed == committed,
        "models_small.karc: the writer's bytes changed"
    );

    let golden = std::fs::read_to_string(fixture("archive/golden_adult.txt")).unwrap();
    let cells: Vec<&str> = golden.lines().filter(|l| !l.starts_with('#')).collect();
    assert!(cells.len() >= 9, "{golden}");
    for cell in cells {
        let f: Vec<&str> = cell.split(' ').collect();
        let [algorithm, k, mode, bytes, digest] = f[..] else {
            panic!("golden line {cell:?}: expected 5 fields");
        };
        let mut config = Config::load(&fixture("adult/adult.toml")).unwrap();
        config.algorithm.name = algorithm.to_owned();
        config.privacy.k = Some(k.parse().unwrap());
        config.privacy.constraints.clear();
        let packed = writer::pack_file(
            &config,
            &fixture("adult/adult.csv"),
            &PackOptions {
                groups: Default::default(),
                mode: mode.parse().unwrap(),
                seal: &Seal::None,
            },
        )
        .unwrap();
        let found = karc::archive::digest::blake3_hex(&packed);
        assert_eq!(
            (packed.len().to_string(), found),
            (bytes.to_owned(), digest.to_owned()),
            "{algorithm} k={k} {mode}: the writer's bytes changed"
        );
    }
}

/// A restore on two threads (over 1 MiB) of columns with thousands of
/// distinct values: those whose texts need no quotes are rendered from
/// their dictionary's buffer as it is, the others (a comma or a quote in
/// some value, an empty cell) copied with quotes; every byte comes back.
#[test]
fn many_valued_columns_restore_byte_identical_on_two_threads() {
    let dir = tempfile::tempdir().unwrap();
    let rows = 40_000;
    let mut csv = String::from("id,age,amount,note,code\n");
    for r in 0..rows {
        let note = match r % 7 {
            0 => format!("\"note {r}, with a comma\""),
            1 => format!("\"say \"\"{r}\"\"\""),
            2 => String::new(),
            _ => format!("note-{}", r * 31 % 9973),
        };
        csv.push_str(&format!(
            "{r},{},{}.{:02},{note},Z{:05}\n",
            18 + r * 7 % 60,
            r * 13 % 100_003,
            r % 100,
            r * 17 % 50_000,
        ));
    }
    assert!(csv.len() > 1 << 20, "rendered on two threads");
    let data = dir.path().join("t.csv");
    std::fs::write(&data, &csv).unwrap();
    let config = dir.path().join("t.toml");
    std::fs::write(
        &config,
        "[input]\ndelimiter = \",\"\n\n\
         [[columns]]\nname = \"id\"\nrole = \"identifier\"\ntype = \"integer\"\n\n\
         [[columns]]\nname = \"age\"\nrole = \"quasi\"\ntype = \"integer\"\n\n\
         [[columns]]\nname = \"amount\"\nrole = \"insensitive\"\ntype = \"decimal\"\n\n\
         [[columns]]\nname = \"note\"\nrole = \"insensitive\"\n\n\
         [[columns]]\nname = \"code\"\nrole = \"insensitive\"\n\n\
         [privacy]\nk = 10\n\n[algorithm]\nname = \"mondrian\"\n",
    )
    .unwrap();
    let bytes = pack(&config, &data, None, None, DiffMode::default(), &Seal::None);
    let restored = restore(&bytes, None).unwrap();
    assert_eq!(restored.len(), csv.len());
    assert!(restored == csv.as_bytes(), "the restore differs");
}

/// A numeric QI's hierarchy is in the file only when its release uses a
/// node of it: Mondrian's intervals do not, so the built `intervals`
/// hierarchy (one leaf per distinct value of the column) is not published,
/// nor its values; Datafly's levels are its nodes, so it is kept. Both
/// restore the table.
/// Its public part never holds a leaf (format 2.0, FORMAT §6).
#[test]
fn a_numeric_hierarchy_is_published_only_when_the_release_uses_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut csv = String::from("id,salary,town\n");
    for i in 0..3000u64 {
        let salary = 20_000 + (i * 7_919 % 61_001) * 3 + i % 7;
        csv += &format!("{i},{salary},T{}\n", i % 9);
    }
    let input = dir.path().join("t.csv");
    std::fs::write(&input, &csv).unwrap();
    let config = dir.path().join("t.toml");
    std::fs::write(
        &config,
        "[[columns]]\nname = \"id\"\nrole = \"insensitive\"\n\n\
         [[columns]]\nname = \"salary\"\nrole = \"quasi\"\ntype = \"integer\"\n\
         hierarchy = { intervals = [1000, 10000, 100000] }\n\n\
         [[columns]]\nname = \"town\"\nrole = \"insensitive\"\n\n\
         [privacy]\nk = 10\n",
    )
    .unwrap();
    // A value of the column, as its leaf label would be stored.
    let rare = csv
        .lines()
        .nth(1234)
        .unwrap()
        .split(',')
        .nth(1)
        .unwrap()
        .to_owned();
    for (algorithm, kept) in [("mondrian", false), ("datafly", true)] {
        let bytes = pack(
            &config,
            &input,
            Some(algorithm),
            None,
            DiffMode::default(),
            &Seal::None,
        );
        let archive = open(&bytes).unwrap();
        let salary = &archive.meta.columns[1];
        assert_eq!(salary.hierarchy.is_some(), kept, "{algorithm}");
        let records = sections_of(&bytes)
            .into_iter()
            .find(|(k, _)| *k == SectionKind::Hierarchies)
            .map(|(_, b)| karc::archive::meta::hierarchies_from_bytes(&b).unwrap())
            .unwrap();
        let leaves = records
            .iter()
            .flat_map(|r| r.levels[0].iter())
            .any(|l| *l == rare);
        assert!(!leaves, "{algorithm}: the value {rare} among the leaves");
        assert_eq!(
            restore(&bytes, None).unwrap(),
            csv.as_bytes(),
            "{algorithm}"
        );
    }
}
