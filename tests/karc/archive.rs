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
use proptest::prelude::*;

use crate::common::{fixture, karc, outcome};

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

fn open(bytes: &[u8]) -> karc::Result<Archive> {
    Archive::from_bytes(Path::new("t.karc"), bytes.to_vec(), ClaimCheck::Enforce)
}

fn restore(bytes: &[u8], key: Option<&Key>) -> karc::Result<Vec<u8>> {
    open(bytes)?.restore(key)
}

fn archive_error(r: karc::Result<impl std::fmt::Debug>) -> ArchiveError {
    match r.map_err(Error::into_area::<ArchiveError>) {
        Err(Ok(e)) => e,
        other => panic!("expected an archive error, got {other:?}"),
    }
}

/// A fresh X25519 key pair: the identity as a key, the recipient as a seal.
fn key_pair() -> (Key, Seal) {
    let id = age::x25519::Identity::generate();
    let seal = Seal::Recipients(vec![id.to_public()]);
    (Key::Identities(vec![Box::new(id)]), seal)
}

fn low_cost_passphrase(p: &str) -> (Key, Seal) {
    let s = SecretString::from(p.to_owned());
    (
        Key::Passphrase(s.clone()),
        Seal::Passphrase {
            passphrase: s,
            work_factor: Some(4),
        },
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

/// The small table of the test vectors (an identifier, two QIs with small
/// hierarchies, quoted fields, CRLF): small enough to touch every byte.
fn small_table() -> (PathBuf, PathBuf) {
    (
        fixture("archive/source/small.toml"),
        fixture("archive/source/small.csv"),
    )
}

#[test]
fn every_flipped_byte_and_every_truncation_is_a_clear_error() {
    let (config, csv) = small_table();
    let original = std::fs::read(&csv).unwrap();
    let (key, seal) = key_pair();
    let bytes = pack(&config, &csv, None, None, DiffMode::default(), &seal);
    assert_eq!(restore(&bytes, Some(&key)).unwrap(), original);
    let check = |bad: &[u8], what: &str| match restore(bad, Some(&key)) {
        Ok(out) => panic!("{what}: accepted ({} bytes restored)", out.len()),
        Err(e) => match e.area::<ArchiveError>() {
            Some(e) => assert!(!e.to_string().is_empty()),
            None => panic!("{what}: not an archive error: {e}"),
        },
    };
    for i in 0..bytes.len() {
        let mut bad = bytes.clone();
        bad[i] ^= 0x01;
        check(&bad, &format!("bit 0 of byte {i} flipped"));
        bad[i] ^= 0xFF;
        check(&bad, &format!("byte {i} inverted"));
    }
    for len in 0..bytes.len() {
        check(&bytes[..len], &format!("truncated to {len} bytes"));
    }
}

#[test]
fn sealed_part_edited_with_crc_recomputed_fails_authentication() {
    let (config, csv) = small_table();
    let (key, seal) = key_pair();
    let bytes = pack(&config, &csv, None, None, DiffMode::default(), &seal);
    let sections = sections_of(&bytes);
    let private = sections.len() - 1;
    for at in [0usize, 40, sections[private].1.len() - 1] {
        let mut edited = sections.clone();
        edited[private].1[at] ^= 0x20;
        let bad = reassemble(&edited);
        let e = archive_error(restore(&bad, Some(&key)));
        assert!(
            matches!(
                e,
                ArchiveError::Envelope { .. } | ArchiveError::WrongIdentity { .. }
            ),
            "byte {at}: {e}"
        );
    }
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

#[test]
fn wrong_keys_missing_private_part_and_versions_have_their_own_errors() {
    let (config, csv) = small_table();
    let (_, seal) = key_pair();
    let (other, _) = key_pair();
    let sealed = pack(&config, &csv, None, None, DiffMode::default(), &seal);
    assert!(matches!(
        archive_error(restore(&sealed, Some(&other))),
        ArchiveError::WrongIdentity { .. }
    ));
    let (pass, pass_seal) = low_cost_passphrase("right");
    let (wrong, _) = low_cost_passphrase("wrong");
    let by_pass = pack(&config, &csv, None, None, DiffMode::default(), &pass_seal);
    assert!(restore(&by_pass, Some(&pass)).is_ok());
    assert!(matches!(
        archive_error(restore(&by_pass, Some(&wrong))),
        ArchiveError::WrongPassphrase { .. }
    ));
    assert!(matches!(
        archive_error(restore(&by_pass, Some(&other))),
        ArchiveError::NeedsPassphrase { .. }
    ));
    let published = open(&sealed).unwrap().published();
    assert!(open(&published).unwrap().claim_report.unwrap().holds());
    assert!(matches!(
        archive_error(restore(&published, Some(&other))),
        ArchiveError::NoPrivatePart { .. }
    ));
    let mut next_major = sealed.clone();
    let major = karc::archive::format::VERSION_MAJOR + 1;
    next_major[8] = major as u8;
    assert!(matches!(
        archive_error(open(&next_major)),
        ArchiveError::UnsupportedVersion { major: m, .. } if m == major
    ));
    assert!(matches!(
        archive_error(open(&std::fs::read(&csv).unwrap())),
        ArchiveError::NotKarc { .. }
    ));
}

#[test]
fn export_equals_anonymize_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let d = |n: &str| dir.path().join(n).display().to_string();
    for (config, csv) in [
        ("adult/adult.toml", "adult/adult.csv"),
        ("adult-raw/adult-archive.toml", "adult-raw/adult.csv"),
    ] {
        let config = fixture(config).display().to_string();
        let csv = fixture(csv).display().to_string();
        let common = ["-c", &config, "-k", "10", "--seed", "3"];
        let a = karc(&[&["anonymize"][..], &common, &[&csv, "-o", &d("a.csv")]].concat());
        assert!(a.status.success(), "{:?}", outcome(&a));
        let p = karc(
            &[
                &["pack"][..],
                &common,
                &[&csv, "-o", &d("a.karc"), "--no-encryption"],
            ]
            .concat(),
        );
        let (code, _, err) = outcome(&p);
        assert_eq!(code, 0, "{err}");
        assert!(err.contains("anyone with"), "the warning: {err}");
        // The loop writes e.csv once per table.
        let e = karc(&["export", &d("a.karc"), "-o", &d("e.csv"), "--force"]);
        assert!(e.status.success(), "{:?}", outcome(&e));
        assert!(
            std::fs::read(d("a.csv")).unwrap() == std::fs::read(d("e.csv")).unwrap(),
            "{config}: export differs from anonymize"
        );
    }
}

#[test]
fn commands_round_trip_and_say_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let d = |n: &str| dir.path().join(n).display().to_string();
    let (config, csv) = small_table();
    let (config, csv) = (config.display().to_string(), csv.display().to_string());
    let id = age::x25519::Identity::generate();
    use age::secrecy::ExposeSecret;
    std::fs::write(
        d("key.txt"),
        format!("# test key\n{}\n", id.to_string().expose_secret()),
    )
    .unwrap();
    std::fs::write(
        d("other.txt"),
        format!(
            "{}\n",
            age::x25519::Identity::generate()
                .to_string()
                .expose_secret()
        ),
    )
    .unwrap();
    std::fs::write(d("pass.txt"), "correct horse\n").unwrap();
    std::fs::write(d("wrong.txt"), "battery staple\n").unwrap();
    let recipient = id.to_public().to_string();

    // Sealing needs exactly one way.
    let (code, _, err) = outcome(&karc(&["pack", "-c", &config, &csv, "-o", &d("x.karc")]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--no-encryption"), "{err}");
    assert!(!Path::new(&d("x.karc")).exists());

    let ok = karc(&[
        "pack",
        "-c",
        &config,
        &csv,
        "-o",
        &d("r.karc"),
        "-r",
        &recipient,
    ]);
    assert!(ok.status.success(), "{:?}", outcome(&ok));
    let ok = karc(&[
        "pack",
        "-c",
        &config,
        &csv,
        "-o",
        &d("p.karc"),
        "--passphrase-file",
        &d("pass.txt"),
        "--work-factor",
        "4",
        "--mode",
        "paper",
    ]);
    assert!(ok.status.success(), "{:?}", outcome(&ok));

    let run = |args: &[&str]| outcome(&karc(args));
    let (code, _, err) = run(&[
        "restore",
        &d("r.karc"),
        "-o",
        &d("o.csv"),
        "-i",
        &d("key.txt"),
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        std::fs::read(d("o.csv")).unwrap(),
        std::fs::read(&csv).unwrap()
    );
    let (code, _, err) = run(&[
        "restore",
        &d("p.karc"),
        "-o",
        &d("o2.csv"),
        "--passphrase-file",
        &d("pass.txt"),
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        std::fs::read(d("o2.csv")).unwrap(),
        std::fs::read(&csv).unwrap()
    );

    let (code, _, err) = run(&[
        "restore",
        &d("r.karc"),
        "-o",
        &d("n.csv"),
        "-i",
        &d("other.txt"),
    ]);
    assert_eq!(
        (code, err.contains("none of the given identities")),
        (2, true),
        "{err}"
    );
    let (code, _, err) = run(&[
        "restore",
        &d("p.karc"),
        "-o",
        &d("n.csv"),
        "--passphrase-file",
        &d("wrong.txt"),
    ]);
    assert_eq!((code, err.contains("wrong passphrase")), (2, true), "{err}");
    let (code, _, err) = run(&[
        "restore",
        &d("p.karc"),
        "-o",
        &d("n.csv"),
        "-i",
        &d("key.txt"),
    ]);
    assert_eq!(
        (code, err.contains("sealed with a passphrase")),
        (2, true),
        "{err}"
    );
    assert!(!Path::new(&d("n.csv")).exists());

    let (code, _, err) = run(&["publish", &d("r.karc"), "-o", &d("pub.karc")]);
    assert_eq!(code, 0, "{err}");
    let (code, out, _) = run(&["verify", &d("pub.karc")]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("integrity ok") && out.contains("claim holds"),
        "{out}"
    );
    let (code, _, err) = run(&[
        "restore",
        &d("pub.karc"),
        "-o",
        &d("n.csv"),
        "-i",
        &d("key.txt"),
    ]);
    assert_eq!((code, err.contains("no private part")), (2, true), "{err}");

    let (code, _, err) = run(&["restore", &csv, "-o", &d("n.csv"), "-i", &d("key.txt")]);
    assert_eq!((code, err.contains("not a karc file")), (2, true), "{err}");
    let mut next = std::fs::read(d("r.karc")).unwrap();
    let major = karc::archive::format::VERSION_MAJOR + 1;
    next[8] = major as u8;
    std::fs::write(d("next.karc"), &next).unwrap();
    let (code, _, err) = run(&["inspect", &d("next.karc")]);
    assert_eq!(
        (
            code,
            err.contains(&format!("unsupported format version {major}.0"))
        ),
        (2, true),
        "{err}"
    );

    let mut corrupt = std::fs::read(d("r.karc")).unwrap();
    let last = corrupt.len() - 1;
    corrupt[last] ^= 1;
    std::fs::write(d("c.karc"), &corrupt).unwrap();
    let (code, out, err) = run(&["verify", &d("c.karc")]);
    assert_eq!(
        (code, err.contains("CRC mismatch in section")),
        (1, true),
        "{out}{err}"
    );

    let tampered = fixture("archive/invalid/claim_below_k.karc");
    std::fs::copy(&tampered, d("t.karc")).unwrap();
    let (code, out, _) = run(&["verify", &d("t.karc"), "--json"]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["holds"], false);
    let (code, _, err) = run(&["export", &d("t.karc"), "-o", &d("n.csv")]);
    assert_eq!(
        (code, err.contains("breaks its privacy claim")),
        (1, true),
        "{err}"
    );
    let (code, _, err) = run(&[
        "export",
        &d("t.karc"),
        "-o",
        &d("n.csv"),
        "--no-privacy-check",
    ]);
    assert_eq!((code, err.contains("forensics")), (0, true), "{err}");

    let (code, out, err) = run(&["inspect", &d("r.karc"), "--json", "-i", &d("key.txt")]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let n = |k: &str| v[k].as_u64().unwrap_or_else(|| panic!("{k}: {out}"));
    assert_eq!(
        n("file_bytes"),
        std::fs::metadata(d("r.karc")).unwrap().len()
    );
    assert_eq!(
        n("file_bytes"),
        n("container_bytes") + n("public_bytes") + n("sealed_bytes")
    );
    assert!(n("private_bytes") < n("sealed_bytes"));
    let cols = v["columns"].as_array().unwrap();
    assert_eq!(cols.len(), 4);
    assert!(cols.iter().all(|c| c["private_bytes"].is_u64()));
    // Without the key the totals are still known.
    let (_, out, _) = run(&["inspect", &d("r.karc"), "--json"]);
    let w: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(w["private_bytes"], v["private_bytes"]);
}

/// One generated CSV file: its bytes, the delimiter and whether to trim.
#[derive(Debug, Clone)]
struct Generated {
    bytes: Vec<u8>,
    delimiter: u8,
    trim: bool,
}

fn cell() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "[a-c]{1,2}",
        1 => Just(String::new()),
        1 => "[ a,;\"é東\r\n]{1,5}",
        1 => Just("?".to_owned()),
        1 => " ?[x-z] ?",
    ]
}

fn generated() -> impl Strategy<Value = Generated> {
    (2usize..5, 1usize..25).prop_flat_map(|(cols, rows)| {
        (
            proptest::collection::vec(proptest::collection::vec(cell(), cols), rows),
            proptest::collection::vec(any::<bool>(), rows * cols),
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
        )
            .prop_map(
                move |(table, quote_anyway, semicolon, crlf, final_eol, trim)| {
                    let delimiter = if semicolon { b';' } else { b',' };
                    let eol: &[u8] = if crlf { b"\r\n" } else { b"\n" };
                    let mut bytes = Vec::new();
                    let header: Vec<String> = (0..cols).map(|c| format!("c{c}")).collect();
                    let mut records = vec![header];
                    records.extend(table);
                    for (r, record) in records.iter().enumerate() {
                        for (c, text) in record.iter().enumerate() {
                            if c > 0 {
                                bytes.push(delimiter);
                            }
                            let special = text
                                .bytes()
                                .any(|b| b == delimiter || b == b'"' || b == b'\r' || b == b'\n');
                            let extra = r > 0 && quote_anyway[(r - 1) * cols + c];
                            if special || extra {
                                bytes.push(b'"');
                                bytes.extend_from_slice(text.replace('"', "\"\"").as_bytes());
                                bytes.push(b'"');
                            } else {
                                bytes.extend_from_slice(text.as_bytes());
                            }
                        }
                        if r + 1 < records.len() || final_eol {
                            bytes.extend_from_slice(eol);
                        }
                    }
                    Generated {
                        bytes,
                        delimiter,
                        trim,
                    }
                },
            )
    })
}

/// Writes the generated file with a config: column c0 a QI with a
/// one-level hierarchy over its values, c1 an identifier, the rest
/// insensitive.
fn write_generated(dir: &Path, g: &Generated) -> Option<(PathBuf, PathBuf)> {
    let csv = dir.join("g.csv");
    std::fs::write(&csv, &g.bytes).unwrap();
    let opts = karc::table::CsvOptions {
        delimiter: Some(g.delimiter),
        header: true,
        trim: g.trim,
    };
    // Files the CSV reader itself refuses (e.g. a row that is one empty
    // line) are outside this property.
    let table = karc::table::Table::from_bytes(&csv, &g.bytes, &opts).ok()?;
    let mut w = csv::WriterBuilder::new()
        .delimiter(b';')
        .from_path(dir.join("h.csv"))
        .unwrap();
    for v in table.columns[0].dict.values() {
        w.write_record([v, "*"]).unwrap();
    }
    w.flush().unwrap();
    let mut toml = format!(
        "[input]\ndelimiter = \"{}\"\ntrim = {}\n\
         [[columns]]\nname = \"c0\"\nrole = \"quasi\"\nhierarchy = \"h.csv\"\n\
         [[columns]]\nname = \"c1\"\nrole = \"identifier\"\n",
        g.delimiter as char, g.trim
    );
    for c in 2..table.columns.len() {
        toml.push_str(&format!(
            "[[columns]]\nname = \"c{c}\"\nrole = \"insensitive\"\n"
        ));
    }
    toml.push_str(&format!(
        "[privacy]\nk = {}\nsuppression_limit = 1.0\n",
        table.rows.min(2)
    ));
    let config = dir.join("g.toml");
    std::fs::write(&config, toml).unwrap();
    Some((config, csv))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn generated_tables_restore_byte_identical(g in generated(), paper in any::<bool>()) {
        let dir = tempfile::tempdir().unwrap();
        if let Some((config, csv)) = write_generated(dir.path(), &g) {
            let mode = if paper { DiffMode::Paper } else { DiffMode::default() };
            let bytes = pack(&config, &csv, None, None, mode, &Seal::None);
            let restored = restore(&bytes, None).unwrap();
            prop_assert_eq!(restored, g.bytes);
        }
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

/// `karc restore` of a file of several row groups writes a group at a time;
/// when the whole file's digest fails at the end (the groups' own pass),
/// the groups already written never reach the output's name.
#[test]
fn streamed_restore_checks_the_whole_file_before_anything_is_kept() {
    let bytes = std::fs::read(fixture("archive/valid/streamed_small_groups.karc")).unwrap();
    let container = format::parse(Path::new("streamed"), &bytes).unwrap();
    let mut sections: Vec<(SectionKind, Vec<u8>)> = container
        .entries
        .iter()
        .map(|e| (e.kind().unwrap(), bytes[e.range()].to_vec()))
        .collect();
    // The plaintext ends with the trailer (the whole file's CRC-32 as a
    // varint, then its length: 103, one varint byte), the sealed metadata
    // and the public part's 32-byte digest. The CRC's last varint byte
    // changes.
    let sealed = Archive::from_bytes(Path::new("s"), bytes.clone(), ClaimCheck::Enforce)
        .unwrap()
        .private_parts(None)
        .unwrap()
        .sealed
        .unwrap();
    let after = karc::archive::meta::to_bytes(&sealed).len() + 32;
    let private = &mut sections.last_mut().unwrap().1;
    let n = private.len();
    private[n - after - 2] ^= 0x01;
    let refs: Vec<(SectionKind, &[u8])> = sections.iter().map(|(k, b)| (*k, &b[..])).collect();
    let broken = format::assemble(&refs);

    let archive = Archive::from_bytes(
        Path::new("broken.karc"),
        broken.clone(),
        ClaimCheck::Enforce,
    )
    .unwrap();
    let mut received = 0;
    let e = archive
        .restore_into(None, &mut |b| {
            received += b.len();
            Ok(())
        })
        .unwrap_err();
    assert!(
        matches!(e.area(), Some(ArchiveError::RestoreChecksum { .. })),
        "{e}"
    );
    assert_eq!(received, 103, "every group passed its own check");

    let dir = tempfile::tempdir().unwrap();
    let (input, output) = (dir.path().join("broken.karc"), dir.path().join("out.csv"));
    std::fs::write(&input, &broken).unwrap();
    let (code, _, stderr) = outcome(&karc(&[
        "restore",
        input.to_str().unwrap(),
        "-o",
        output.to_str().unwrap(),
    ]));
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("CRC-32"), "{stderr}");
    assert!(!output.exists());
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        1,
        "no temporary file left"
    );
}

/// `karc restore` of a file whose public part was changed after packing
/// (a sensitive value moved to another row, CRCs recomputed, the claim
/// intact): refused with exit 1 before anything is written.
#[test]
fn restore_refuses_a_changed_public_part() {
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("out.csv");
    let (code, _, stderr) = outcome(&karc(&[
        "restore",
        fixture("archive/invalid/public_part_changed.karc")
            .to_str()
            .unwrap(),
        "-o",
        output.to_str().unwrap(),
    ]));
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("the public part is not the one the private part was made for"),
        "{stderr}"
    );
    assert!(!output.exists());
    // The same file verifies: its release and claim are sound, only the
    // private part no longer belongs to it.
    let (code, _, stderr) = outcome(&karc(&[
        "verify",
        fixture("archive/invalid/public_part_changed.karc")
            .to_str()
            .unwrap(),
    ]));
    assert_eq!(code, 0, "{stderr}");
}

/// Unsealing on a second thread while the file is checked changes no
/// error: a damaged public section is reported before a wrong key, and a
/// wrong key as when restoring after opening.
#[test]
fn open_and_restore_reports_the_file_before_the_key() {
    let path = fixture("archive/valid/sealed_small_x25519.karc");
    let good = std::fs::read(&path).unwrap();
    let (wrong, _) = key_pair();
    let mut damaged = good.clone();
    let meta = karc::archive::format::parse(&path, &good).unwrap().entries[0].range();
    damaged[meta.start] ^= 0x01;
    let in_one_go = |bytes: &[u8], key: &Key| {
        archive_error(
            Archive::from_bytes_and_restore(
                Path::new("t.karc"),
                bytes.to_vec(),
                ClaimCheck::Enforce,
                Some(key),
            )
            .map(|_| ()),
        )
    };
    assert!(matches!(
        in_one_go(&damaged, &wrong),
        ArchiveError::CrcMismatch { section, .. } if section.contains("metadata")
    ));
    let apart = archive_error(restore(&good, Some(&wrong)));
    assert_eq!(in_one_go(&good, &wrong).to_string(), apart.to_string());
    assert!(
        matches!(apart, ArchiveError::WrongIdentity { .. }),
        "{apart}"
    );
}

/// A restore of Adult (2.5 MB) decodes on two threads and hands the second
/// one the rendering of the last half; a section that fails to decode
/// (occupation's rANS stream's last byte changed, so that its states do
/// not end where they started) fails the restore with the section's error, and
/// the second thread, waiting to render, is let go.
#[test]
fn a_corrupt_section_fails_a_restore_on_two_threads() {
    let config = Config::load(&fixture("adult/adult.toml")).unwrap();
    let csv = fixture("adult/adult.csv");
    let options = PackOptions {
        groups: Default::default(),
        mode: DiffMode::default(),
        seal: &Seal::None,
    };
    let bytes = writer::pack_file(&config, &csv, &options).unwrap();
    let archive =
        Archive::from_bytes(Path::new("adult.karc"), bytes.clone(), ClaimCheck::Enforce).unwrap();
    assert_eq!(archive.restore(None).unwrap(), std::fs::read(&csv).unwrap());
    let plaintext = archive.private_plaintext(None).unwrap();
    let (part, public_digest) = plaintext.split_at(plaintext.len() - 32);
    let (mut part, sealed) =
        karc::archive::meta::split_from_bytes::<karc::archive::meta::PrivatePart>(part).unwrap();
    // The last QI (salary-class, released as is) codes no row and has no
    // stream: change the last byte of the QI before it (occupation).
    let sections = karc::codec::originals_column_bytes(&part.originals).unwrap();
    let last = part.originals.len() - 1 - *sections.last().unwrap() as usize;
    part.originals[last] ^= 0x01;
    let container = format::parse(Path::new("adult.karc"), &bytes).unwrap();
    let mut sections: Vec<(SectionKind, Vec<u8>)> = container
        .entries
        .iter()
        .map(|e| (e.kind().unwrap(), bytes[e.range()].to_vec()))
        .collect();
    sections.last_mut().unwrap().1 =
        [&karc::archive::meta::to_bytes(&part), sealed, public_digest].concat();
    let refs: Vec<(SectionKind, &[u8])> = sections.iter().map(|(k, b)| (*k, &b[..])).collect();
    let broken = Archive::from_bytes(
        Path::new("broken.karc"),
        format::assemble(&refs),
        ClaimCheck::Enforce,
    )
    .unwrap();
    let e = broken.restore(None).unwrap_err();
    assert!(
        matches!(e.area(), Some(ArchiveError::Corrupt { detail, .. })
            if detail.starts_with("quasi-identifier originals")),
        "{e}"
    );
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
