//! Writes the `.karc` test vectors of `fixtures/archive/` (`valid/` and
//! `invalid/`; `compat/` is never regenerated).
//!
//! ```text
//! cargo run --release -p karc-tools --bin archive_vectors -- fixtures/archive
//! ```
//!
//! Every vector is made from `source/small.csv` with `source/small.toml`
//! (`arrow_small_parquet.karc` from `source/small.parquet`, written here
//! from `small.csv` with typed columns).
//! Sealed vectors use `keys/identity.txt` (a test key, made here when
//! absent) and `keys/passphrase.txt` with scrypt work factor 4.

use std::path::{Path, PathBuf};
use std::str::FromStr;

use karc::archive::batch_groups::GroupSize;
use karc::archive::checks::ColumnChecksMeta;
use karc::archive::compressed;
use karc::archive::digest::{PublicDigest, blake3_hex};
use karc::archive::format::{self, SectionKind};
use karc::archive::meta::{self, PrivatePart};
use karc::archive::models::ModelsClaim;
use karc::archive::reader::{Archive, ClaimCheck};
use karc::archive::row_count;
use karc::archive::seal::{self, Seal};
use karc::archive::signature::Signer;
use karc::archive::stream_pack::{self, StreamPackOptions};
use karc::archive::writer::{self, PackOptions};
use karc::codec::{self, DiffMode, ReleasedClasses, ReleasedSymbol, RowsCoding};
use karc::config::Config;
use karc::minisign::SecretKey;
use karc::stream::{StreamAlgorithm, StreamParams};

fn main() {
    let root = PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| "fixtures/archive".to_owned()),
    );
    if let Err(e) = run(&root) {
        eprintln!("archive_vectors: {e}");
        std::process::exit(2);
    }
}

type Sections = Vec<(SectionKind, Vec<u8>)>;

fn sections_of(bytes: &[u8]) -> Sections {
    let c = format::parse(Path::new("vector"), bytes).expect("a valid vector");
    c.entries
        .iter()
        .map(|e| (e.kind().expect("known section"), bytes[e.range()].to_vec()))
        .collect()
}

/// A plaintext private part `private` bound to the public sections `raw`
/// (type, flags, bytes) of a file of version `major.minor`: its last 32
/// bytes made their digest (`spec/FORMAT.md` §7.5). For vectors whose
/// public part is changed on purpose and must still restore.
fn rebound(private: &[u8], raw: &[(u16, u16, &[u8])], major: u16, minor: u16) -> Vec<u8> {
    let mut digest = PublicDigest::new(major, minor);
    for &(code, flags, bytes) in raw {
        digest.section(code, flags, bytes);
    }
    let mut private = private.to_vec();
    let at = private.len() - 32;
    private[at..].copy_from_slice(&digest.finish());
    private
}

/// `sections`, whose last is a plaintext private part, with that part
/// bound to the others.
fn rebind(sections: &mut Sections) {
    let (last, public) = sections.split_last_mut().expect("sections");
    let raw: Vec<(u16, u16, &[u8])> = public
        .iter()
        .map(|(k, b)| (k.code(), 0, b.as_slice()))
        .collect();
    last.1 = rebound(&last.1, &raw, format::VERSION_MAJOR, format::VERSION_MINOR);
}

/// The index of the first section of `kind` in `sections`.
fn at(sections: &Sections, kind: SectionKind) -> usize {
    sections
        .iter()
        .position(|(k, _)| *k == kind)
        .expect("the vector has the section")
}

fn reassemble(sections: &Sections) -> Vec<u8> {
    let refs: Vec<(SectionKind, &[u8])> =
        sections.iter().map(|(k, b)| (*k, b.as_slice())).collect();
    format::assemble(&refs)
}

/// `source/small.parquet`: `small.csv`'s table as a Parquet user has it:
/// `id` 64-bit integers, `city` dictionary-encoded strings, `age` 32-bit
/// integers, `note` strings whose empty cell is a null.
fn write_small_parquet(
    config: &Config,
    csv: &Path,
    out: &Path,
) -> Result<(), Box<dyn std::error::Error>> {
    use arrow_array::types::Int32Type;
    use arrow_array::{
        ArrayRef, DictionaryArray, Int32Array, Int64Array, RecordBatch, StringArray,
    };
    use std::sync::Arc;
    let table = karc::table::Table::read(csv, &config.csv_options()?)?;
    let texts = |name: &str| {
        let c = table.column(name).expect("small.csv's columns");
        (0..table.rows).map(move |r| c.text(r))
    };
    let columns: Vec<(&str, ArrayRef)> = vec![
        (
            "id",
            Arc::new(
                texts("id")
                    .map(str::parse::<i64>)
                    .collect::<Result<Int64Array, _>>()?,
            ),
        ),
        (
            "city",
            Arc::new(texts("city").collect::<DictionaryArray<Int32Type>>()),
        ),
        (
            "age",
            Arc::new(
                texts("age")
                    .map(str::parse::<i32>)
                    .collect::<Result<Int32Array, _>>()?,
            ),
        ),
        (
            "note",
            Arc::new(
                texts("note")
                    .map(|t| Some(t).filter(|t| !t.is_empty()))
                    .collect::<StringArray>(),
            ),
        ),
    ];
    let batch = RecordBatch::try_from_iter(columns)?;
    karc::arrow::write_table(out, &batch, karc::io::Access::Public)?;
    Ok(())
}

fn run(root: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let config = Config::load(&root.join("source/small.toml"))?;
    let csv = root.join("source/small.csv");
    let keys = root.join("keys");
    std::fs::create_dir_all(&keys)?;
    let identity_path = keys.join("identity.txt");
    let identity = match std::fs::read_to_string(&identity_path) {
        Ok(text) => {
            let line = text
                .lines()
                .find(|l| l.starts_with("AGE-SECRET-KEY-"))
                .ok_or("keys/identity.txt has no AGE-SECRET-KEY line")?;
            age::x25519::Identity::from_str(line)?
        }
        Err(_) => {
            use age::secrecy::ExposeSecret;
            let id = age::x25519::Identity::generate();
            std::fs::write(
                &identity_path,
                format!(
                    "# TEST KEY of karc's archive test vectors: public, never use it for data.\n# public key: {}\n{}\n",
                    id.to_public(),
                    id.to_string().expose_secret()
                ),
            )?;
            id
        }
    };
    let passphrase_path = keys.join("passphrase.txt");
    if !passphrase_path.exists() {
        std::fs::write(&passphrase_path, "karc test vector\n")?;
    }
    let passphrase = seal::read_passphrase_file(&passphrase_path)?;

    let pack = |mode: DiffMode, seal: &Seal| {
        writer::pack_file(
            &config,
            &csv,
            &PackOptions {
                mode,
                seal,
                groups: Default::default(),
            },
        )
    };
    let plain = pack(DiffMode::default(), &Seal::None)?;
    let valid = root.join("valid");
    let invalid = root.join("invalid");
    std::fs::create_dir_all(&valid)?;
    std::fs::create_dir_all(&invalid)?;
    let write = |dir: &Path, name: &str, bytes: &[u8]| std::fs::write(dir.join(name), bytes);

    write(&valid, "plain_small.karc", &plain)?;
    // A Parquet input: an ARROW_SCHEMA section and the private part's
    // ArrowExtras; it restores to its canonical CSV, written beside.
    let parquet = root.join("source/small.parquet");
    write_small_parquet(&config, &csv, &parquet)?;
    let arrow = writer::pack_file(
        &config,
        &parquet,
        &PackOptions {
            groups: Default::default(),
            mode: DiffMode::default(),
            seal: &Seal::None,
        },
    )?;
    write(&valid, "arrow_small_parquet.karc", &arrow)?;
    let canonical =
        Archive::from_bytes(Path::new("arrow"), arrow, ClaimCheck::Enforce)?.restore(None)?;
    write(root, "source/small_parquet.csv", &canonical)?;
    write(
        &valid,
        "plain_small_paper.karc",
        &pack(DiffMode::Paper, &Seal::None)?,
    )?;
    let sealed = pack(
        DiffMode::default(),
        &Seal::Recipients(vec![identity.to_public()]),
    )?;
    write(&valid, "sealed_small_x25519.karc", &sealed)?;
    write(
        &valid,
        "sealed_small_passphrase.karc",
        &pack(
            DiffMode::default(),
            &Seal::Passphrase {
                passphrase,
                work_factor: Some(4),
            },
        )?,
    )?;
    write(
        root,
        GOLDEN,
        golden_adult(&root.join("../adult"))?.as_bytes(),
    )?;
    let archive = Archive::from_bytes(Path::new("plain"), plain.clone(), ClaimCheck::Enforce)?;
    write(&valid, "published_small.karc", &archive.published())?;

    // Packed from a stream: FADS, k = 2, row groups of 2 rows (a
    // ROW_GROUPS section and per-group private frames).
    let mut params = StreamParams::new(2, 3);
    params.seed = 0;
    stream_pack::pack_stream(
        &config,
        &csv,
        &karc::io::Output::new(
            &valid.join("streamed_small_groups.karc"),
            karc::io::Access::Private,
        )?,
        &StreamPackOptions {
            mode: DiffMode::default(),
            seal: &Seal::None,
            algorithm: StreamAlgorithm::Fads,
            params,
            pid: None,
            group_rows: 2,
            sign: None,
        },
    )?;

    // A batch pack in row groups of 2 rows: one CLASS_TABLE and a
    // ROW_CLASSES per group (spec/CODING.md 4.4); and the same with the
    // second group's count of classes opened before it one more, which a
    // reader refuses.
    let grouped = writer::pack_file(
        &config,
        &csv,
        &PackOptions {
            mode: DiffMode::default(),
            seal: &Seal::None,
            groups: GroupSize::rows(2),
        },
    )?;
    write(&valid, "class_table_small_groups.karc", &grouped)?;
    let mut s = sections_of(&grouped);
    let second = (s.iter().enumerate())
        .filter(|(_, (k, _))| *k == SectionKind::RowClasses)
        .nth(1)
        .map(|(i, _)| i)
        .ok_or("a second row group")?;
    let (count, blob) = row_count::split(&s[second].1);
    let mut opened = blob.to_vec();
    opened[0] += 1;
    s[second].1 = [count, &opened[..]].concat();
    write(&invalid, "row_classes_opened.karc", &reassemble(&s))?;

    // A file of the next minor version with one extra section, skippable
    // or not.
    let future = |flags: u16| {
        let s = sections_of(&plain);
        let mut raw: Vec<(u16, u16, &[u8])> =
            s.iter().map(|(k, b)| (k.code(), 0, b.as_slice())).collect();
        let (_, _, private) = raw.pop().expect("a private part");
        raw.push((99, flags, b"a section from a newer minor"));
        let (major, minor) = (format::VERSION_MAJOR, format::VERSION_MINOR + 1);
        let private = rebound(private, &raw, major, minor);
        raw.push((SectionKind::PrivatePlain.code(), 0, &private));
        format::assemble_raw(major, minor, &raw)
    };
    write(
        &valid,
        "version_newer_minor_skippable.karc",
        &future(format::FLAG_SKIPPABLE),
    )?;
    write(
        &invalid,
        "version_newer_minor_unknown_section.karc",
        &future(0),
    )?;

    let mut bad = plain.clone();
    bad[1] = b'Z';
    write(&invalid, "magic_wrong.karc", &bad)?;
    let mut bad = plain.clone();
    bad[8] = format::VERSION_MAJOR as u8 + 1;
    format::reseal_table(&mut bad);
    write(
        &invalid,
        &format!("version_major{}.karc", format::VERSION_MAJOR + 1),
        &bad,
    )?;
    let mut bad = plain.clone();
    bad[20] ^= 0xFF;
    write(&invalid, "table_crc_mismatch.karc", &bad)?;
    let mut bad = plain.clone();
    bad[12] = 1;
    format::reseal_table(&mut bad);
    write(&invalid, "header_flags_nonzero.karc", &bad)?;
    let mut bad = plain.clone();
    let last = bad.len() - 1;
    bad[last] ^= 0x01;
    write(&invalid, "section_crc_mismatch.karc", &bad)?;
    write(
        &invalid,
        "section_truncated.karc",
        &plain[..plain.len() - 7],
    )?;
    let mut bad = plain.clone();
    bad.extend_from_slice(b"garbage");
    write(&invalid, "section_trailing_bytes.karc", &bad)?;

    // The META and HIERARCHIES Brotli streams: a postcard with a byte
    // after it in a whole stream, a stream cut short, a byte after the
    // stream, and a stream past the META bound (CRCs recomputed).
    let mut s = sections_of(&plain);
    let postcard = meta::to_bytes(&meta::meta_from_bytes(&s[0].1)?);
    s[0].1 = compressed::compress(&[postcard.as_slice(), &[0]].concat());
    write(&invalid, "meta_trailing_bytes.karc", &reassemble(&s))?;
    let mut s = sections_of(&plain);
    s[0].1.pop();
    write(&invalid, "meta_truncated.karc", &reassemble(&s))?;
    let mut s = sections_of(&plain);
    s[0].1 = compressed::compress(&vec![0; meta::MAX_META_BYTES + 1]);
    write(&invalid, "meta_over_limit.karc", &reassemble(&s))?;
    let mut s = sections_of(&plain);
    s[1].1.push(0);
    write(&invalid, "hierarchies_trailing_bytes.karc", &reassemble(&s))?;
    let mut s = sections_of(&plain);
    s.remove(at(&s, SectionKind::Column));
    write(&invalid, "columns_missing.karc", &reassemble(&s))?;
    let mut s = sections_of(&plain);
    s.remove(at(&s, SectionKind::QiClasses));
    write(&invalid, "classes_missing.karc", &reassemble(&s))?;

    // The first QI's first row moved into a class of its own, CRCs right.
    let mut released = archive.released().to_vec();
    released[0]
        .symbols
        .push(ReleasedSymbol::Value("tampered".to_owned()));
    released[0].rows[0] = released[0].symbols.len() as u32 - 1;
    let mut s = sections_of(&plain);
    let c = at(&s, SectionKind::QiClasses);
    s[c].1 = row_count::counted(
        archive.rows(),
        codec::encode_classes(&ReleasedClasses::from_columns(&released)),
    );
    write(&invalid, "claim_below_k.karc", &reassemble(&s))?;
    // A class no row uses: the coding of a release must be unique.
    let mut classes = ReleasedClasses::from_columns(archive.released());
    for column in &mut classes.table {
        let first = column[0];
        column.push(first);
    }
    let mut s = sections_of(&plain);
    s[c].1 = row_count::counted(archive.rows(), codec::encode_classes(&classes));
    write(&invalid, "classes_unused.karc", &reassemble(&s))?;

    // The rows' classes in rANS (coding 2), which the writer
    // picks on real tables but not on 6 rows, where the frequency table
    // costs more than the rows; and the same with the stream's last byte
    // changed, so that its states do not end where they started.
    let classes = ReleasedClasses::from_columns(archive.released());
    let rans = codec::encode_classes_as(&classes, RowsCoding::Rans).ok_or("rANS codes 6 rows")?;
    let mut s = sections_of(&plain);
    s[c].1 = row_count::counted(archive.rows(), rans.clone());
    rebind(&mut s);
    write(&valid, "classes_rans_small.karc", &reassemble(&s))?;
    let mut bad = rans;
    *bad.last_mut().expect("a stream") ^= 0x01;
    s[c].1 = row_count::counted(archive.rows(), bad);
    write(&invalid, "classes_rans_end.karc", &reassemble(&s))?;
    // The rows' classes as runs (coding 3), which the writer picks on
    // tables sorted by their QIs.
    let runs = codec::encode_classes_as(&classes, RowsCoding::Runs).ok_or("runs code any rows")?;
    let mut s = sections_of(&plain);
    s[c].1 = row_count::counted(archive.rows(), runs);
    rebind(&mut s);
    write(&valid, "classes_runs_small.karc", &reassemble(&s))?;
    // The rows' classes in coding 4 (next), which the writer picks on
    // many small classes in random order; and the same with classes 0 and
    // 1 swapped (table and rows, the same release), so that the first row
    // names a class before it was opened.
    let next = codec::encode_classes_as(&classes, RowsCoding::Next).ok_or("next codes any rows")?;
    let mut s = sections_of(&plain);
    s[c].1 = row_count::counted(archive.rows(), next);
    rebind(&mut s);
    write(&valid, "classes_next_small.karc", &reassemble(&s))?;
    let mut swapped = classes.clone();
    for column in &mut swapped.table {
        column.swap(0, 1);
    }
    for row in &mut swapped.rows {
        *row = match *row {
            0 => 1,
            1 => 0,
            other => other,
        };
    }
    let unopened = codec::encode_classes_as(&swapped, RowsCoding::Next).ok_or("next codes")?;
    s[c].1 = row_count::counted(archive.rows(), unopened);
    write(&invalid, "classes_next_unopened.karc", &reassemble(&s))?;

    // The original's checksum changed, the public digest kept.
    let plaintext = archive.private_plaintext(None)?;
    let (part, public_digest) = plaintext.split_at(plaintext.len() - 32);
    let (mut part, sealed_meta) = meta::split_from_bytes::<PrivatePart>(part)?;
    part.digest ^= 0x0100;
    let mut s = sections_of(&plain);
    let last = s.len() - 1;
    s[last].1 = [&meta::to_bytes(&part), sealed_meta, public_digest].concat();
    write(&invalid, "private_digest_mismatch.karc", &reassemble(&s))?;
    hierarchy_vectors(&plain, &invalid)?;

    // The sensitive column's first two values swapped (its section's CRC
    // right, the claim unchanged): the private part was made for another
    // public part.
    let mut s = sections_of(&plain);
    let n = at(&s, SectionKind::Column);
    let mut note = codec::decode_plain(
        row_count::blob(&s[n].1, format::VERSION_MAJOR),
        "note",
        archive.rows(),
    )?;
    note.codes.swap(0, 1);
    s[n].1 = row_count::counted(archive.rows(), codec::encode_plain(&note));
    write(&invalid, "public_part_changed.karc", &reassemble(&s))?;

    let mut s = sections_of(&sealed);
    let last = s.len() - 1;
    let at = s[last].1.len() - 20;
    s[last].1[at] ^= 0x01;
    write(&invalid, "private_envelope_tampered.karc", &reassemble(&s))?;

    // The models beyond k: a PRIVACY_MODELS section (spec/FORMAT.md §5.1).
    let models = models_vectors(&config, &csv)?;
    write(&valid, "models_small.karc", &models[0])?;
    write(&invalid, "claim_models_broken.karc", &models[1])?;
    write(&invalid, "claim_models_rows_broken.karc", &models[2])?;

    // The derived-column check: a COLUMN_CHECKS section (spec/FORMAT.md
    // §5.2) with a pair the config allowed, and the same section naming a
    // QI as a checked column.
    let checks = column_checks_vectors(&config, &csv)?;
    write(&valid, "column_checks_allowed_small.karc", &checks[0])?;
    write(&invalid, "column_checks_malformed.karc", &checks[1])?;
    signed_vectors(root, &plain)?;

    // Pseudonymized identifiers (spec/FORMAT.md §5): `id` released as
    // pseudonyms under the test key `keys/pseudonym.key`, and two files
    // whose META flags a column the file cannot hold as pseudonyms.
    let pseudonyms = pseudonym_vectors(&config, &csv, &keys, &plain)?;
    write(&valid, "pseudonym_small.karc", &pseudonyms[0])?;
    // Identifiers in the plain layouts of fixed-width texts and LZMA2, and
    // a column quoted in every field (spec/CODING.md 5.6, 5.7; FORMAT.md
    // §7.2): restores to source/codes.csv.
    let codes = writer::pack_file(
        &Config::load(&root.join("source/codes.toml"))?,
        &root.join("source/codes.csv"),
        &PackOptions {
            mode: DiffMode::default(),
            seal: &Seal::None,
            groups: Default::default(),
        },
    )?;
    write(&valid, "codes_small.karc", &codes)?;
    write(
        &invalid,
        "meta_pseudonym_not_identifier.karc",
        &pseudonyms[1],
    )?;
    write(&invalid, "pseudonym_column_missing.karc", &pseudonyms[2])?;

    eprintln!("wrote the vectors under {}", root.display());
    Ok(())
}

/// The signing time of the signed vectors (2025-11-28T00:00:00Z): with
/// Ed25519's deterministic signatures, the vectors regenerate to the same
/// bytes.
const SIGNED_AT: u64 = 1_764_288_000;

/// `signed/`: `plain_small.karc` signed by the test key
/// `keys/signing_test.key`, its published copy, and three files that open
/// but must fail `verify --signer keys/signing_test.key.pub`.
fn signed_vectors(root: &Path, plain: &[u8]) -> Result<(), Box<dyn std::error::Error>> {
    let dir = root.join("signed");
    std::fs::create_dir_all(&dir)?;
    let write = |name: &str, bytes: &[u8]| std::fs::write(dir.join(name), bytes);
    let text = std::fs::read_to_string(root.join("keys/signing_test.key"))?;
    let key = SecretKey::from_file_text(&text.into(), None, "keys/signing_test.key")?;
    let signer = Signer {
        key,
        time: SIGNED_AT,
    };
    let archive = Archive::from_bytes(Path::new("plain"), plain.to_vec(), ClaimCheck::Enforce)?;
    let signed = archive.signed(&signer)?;
    write("signed_small.karc", &signed)?;
    let opened = Archive::from_bytes(Path::new("signed"), signed.clone(), ClaimCheck::Enforce)?;
    write("signed_published_small.karc", &opened.published())?;
    let s = sections_of(&signed);
    let at = |kind| s.iter().position(|(k, _)| *k == kind).expect("the section");
    // A byte of the signed manifest changed: the signature does not verify.
    let mut bad = s.clone();
    bad[at(SectionKind::Signature)].1[8] ^= 0x01;
    write("reject_bad_signature.karc", &reassemble(&bad))?;
    // The sensitive column's first two values swapped, its CRC recomputed.
    let mut edited = s.clone();
    let column = at(SectionKind::Column);
    let mut note = codec::decode_plain(
        row_count::blob(&edited[column].1, format::VERSION_MAJOR),
        "note",
        archive.rows(),
    )?;
    note.codes.swap(0, 1);
    edited[column].1 = row_count::counted(archive.rows(), codec::encode_plain(&note));
    write("reject_edited_section.karc", &reassemble(&edited))?;
    // The signature put on another file (the paper mode's pack: the same
    // public part, another private part).
    let config = Config::load(&root.join("source/small.toml"))?;
    let csv = root.join("source/small.csv");
    let options = PackOptions {
        groups: Default::default(),
        mode: DiffMode::Paper,
        seal: &Seal::None,
    };
    let mut moved = sections_of(&writer::pack_file(&config, &csv, &options)?);
    let last = moved.len() - 1;
    moved.insert(last, s[at(SectionKind::Signature)].clone());
    write("reject_moved_signature.karc", &reassemble(&moved))?;
    Ok(())
}

/// The must-reject vectors of the pruned hierarchies (`spec/FORMAT.md`
/// §6, §7.1), from `plain_small.karc` (`plain`), into `invalid`: a public
/// node nothing needs, a public parent beyond the kept nodes, a released
/// node beyond the public ones, and a whole hierarchy (private part)
/// without a public label.
fn hierarchy_vectors(plain: &[u8], invalid: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let write = |name: &str, bytes: &[u8]| std::fs::write(invalid.join(name), bytes);
    let public = |s: &Sections| meta::hierarchies_from_bytes(&s[1].1);
    // A leaf put back under its kept parent (the public digest rebound,
    // so that only the rule refuses it).
    let mut s = sections_of(plain);
    let mut records = public(&s)?;
    let age = records.last_mut().ok_or("two hierarchies")?;
    let leaf = age.levels[1]
        .first()
        .ok_or("a kept node of level 1")?
        .clone();
    age.levels[0].push(leaf.split('-').next().unwrap_or("20").to_owned());
    age.parents[0].push(0);
    s[1].1 = meta::hierarchies_to_bytes(&records)?;
    rebind(&mut s);
    write("hierarchies_node_unneeded.karc", &reassemble(&s))?;
    // A kept node's parent one past the kept nodes of the level above.
    let mut s = sections_of(plain);
    let mut records = public(&s)?;
    let above = records[1].levels[2].len() as u32;
    records[1].parents[1][0] = above;
    s[1].1 = meta::hierarchies_to_bytes(&records)?;
    rebind(&mut s);
    write("hierarchies_parent_not_kept.karc", &reassemble(&s))?;
    // The released node of `age` (the second QI; `city` is released as its
    // values) renumbered past its level's kept nodes.
    let mut s = sections_of(plain);
    let records = public(&s)?;
    let mut beyond =
        |_q: usize, level: u32, _node: u32| Some(records[1].levels[level as usize].len() as u32);
    let classes = s
        .iter()
        .position(|(k, _)| *k == SectionKind::QiClasses)
        .ok_or("QI_CLASSES")?;
    let (count, blob) = row_count::split(&s[classes].1);
    s[classes].1 = [count, &codec::renumber_classes(blob, 2, &mut beyond)?].concat();
    rebind(&mut s);
    write("classes_node_beyond_pruned.karc", &reassemble(&s))?;
    // The private part's whole hierarchy of `age` with a public
    // label renamed: restore cannot find the public node in it.
    let mut s = sections_of(plain);
    let last = s.len() - 1;
    let plaintext = s[last].1.clone();
    let (body, digest) = plaintext.split_at(plaintext.len() - 32);
    let (part, rest) = meta::split_from_bytes::<PrivatePart>(body)?;
    let mut sealed: meta::SealedMeta = meta::from_bytes(rest)?;
    let mut whole = meta::hierarchies_from_bytes(&sealed.hierarchies)?;
    let kept = public(&s)?[1].levels[1][0].clone();
    for label in whole[1].levels[1].iter_mut().filter(|l| **l == kept) {
        label.push_str(" (renamed)");
    }
    sealed.hierarchies = meta::hierarchies_to_bytes(&whole)?;
    s[last].1 = [
        meta::to_bytes(&part),
        meta::to_bytes(&sealed),
        digest.to_vec(),
    ]
    .concat();
    write("private_hierarchy_label_missing.karc", &reassemble(&s))?;
    Ok(())
}

/// `small.csv` packed (unsealed) under distinct l = 2, entropy l = 1.5,
/// t = 0.7 and alpha = 0.5 on `note`; the same file whose stored claim says
/// l = 2 and t = 0.2, which its classes break (t = 2/3); and the same file
/// whose `note` column holds one value (every class breaks l = 2), each
/// with its private part bound to its public part.
fn models_vectors(config: &Config, csv: &Path) -> Result<[Vec<u8>; 3], Box<dyn std::error::Error>> {
    let mut config = config.clone();
    let p = &mut config.privacy;
    p.sensitive = vec!["note".to_owned()];
    p.l = Some(2);
    p.entropy_l = Some(1.5);
    p.t = Some(0.7);
    p.alpha = Some(0.5);
    let options = PackOptions {
        groups: Default::default(),
        mode: DiffMode::default(),
        seal: &Seal::None,
    };
    let valid = writer::pack_file(&config, csv, &options)?;
    let at = |s: &Sections| {
        s.iter()
            .position(|(k, _)| *k == SectionKind::PrivacyModels)
            .ok_or("a PRIVACY_MODELS section")
    };
    let mut s = sections_of(&valid);
    let i = at(&s)?;
    let claim: ModelsClaim = meta::from_bytes(&s[i].1)?;
    s[i].1 = meta::to_bytes(&ModelsClaim {
        entropy_l: None,
        alpha: None,
        t: Some(0.2),
        ..claim
    });
    rebind(&mut s);
    let claim_broken = reassemble(&s);
    let mut s = sections_of(&valid);
    let rows = meta::meta_from_bytes(&s[0].1)?.rows as usize;
    let note = s
        .iter()
        .position(|(k, _)| *k == SectionKind::Column)
        .ok_or("a COLUMN section")?;
    let mut column = codec::decode_plain(
        row_count::blob(&s[note].1, format::VERSION_MAJOR),
        "note",
        rows,
    )?;
    let first = column.codes[0];
    column.codes.iter_mut().for_each(|c| *c = first);
    s[note].1 = row_count::counted(rows, codec::encode_plain(&column));
    rebind(&mut s);
    Ok([valid, claim_broken, reassemble(&s)])
}

/// `small.csv` packed (unsealed) with `note` allowed to pin `age`
/// (`allow_derived`), and the same file whose `COLUMN_CHECKS` lists the QI
/// `age` among the checked released columns (private part rebound).
fn column_checks_vectors(
    config: &Config,
    csv: &Path,
) -> Result<[Vec<u8>; 2], Box<dyn std::error::Error>> {
    let mut config = config.clone();
    let note = config
        .columns
        .iter_mut()
        .find(|c| c.name == "note")
        .ok_or("small.toml has note")?;
    note.allow_derived = vec!["age".to_owned()];
    let options = PackOptions {
        groups: Default::default(),
        mode: DiffMode::default(),
        seal: &Seal::None,
    };
    let valid = writer::pack_file(&config, csv, &options)?;
    let mut s = sections_of(&valid);
    let i = at(&s, SectionKind::ColumnChecks);
    let mut checks: ColumnChecksMeta = meta::from_bytes(&s[i].1)?;
    checks.columns.insert(0, 2);
    s[i].1 = meta::to_bytes(&checks);
    rebind(&mut s);
    Ok([valid, reassemble(&s)])
}

/// `small.csv` packed (unsealed) with `id` released as pseudonyms under
/// `keys/pseudonym.key` (the test key bytes 0, 1, …, 31, public: never use
/// it for data); `plain` (no pseudonyms) with `note`, a sensitive column,
/// flagged as pseudonyms; and `plain` with `id` flagged, whose file has no
/// `COLUMN` section for it.
fn pseudonym_vectors(
    config: &Config,
    csv: &Path,
    keys: &Path,
    plain: &[u8],
) -> Result<[Vec<u8>; 3], Box<dyn std::error::Error>> {
    let key: Vec<u8> = (0..32).collect();
    std::fs::write(keys.join("pseudonym.key"), key)?;
    let mut config = config.clone();
    let id = (config.columns.iter_mut())
        .find(|c| c.name == "id")
        .ok_or("small.toml has id")?;
    id.pseudonym = true;
    id.pseudonym_key = Some(PathBuf::from("../keys/pseudonym.key"));
    let options = PackOptions {
        groups: Default::default(),
        mode: DiffMode::default(),
        seal: &Seal::None,
    };
    let valid = writer::pack_file(&config, csv, &options)?;
    let flagged = |column: &str| -> Result<Vec<u8>, Box<dyn std::error::Error>> {
        let mut s = sections_of(plain);
        let i = at(&s, SectionKind::Meta);
        let mut public = meta::meta_from_bytes(&s[i].1)?;
        (public.columns.iter_mut())
            .find(|c| c.name == column)
            .ok_or("small.toml has the column")?
            .pseudonym = true;
        s[i].1 = meta::meta_to_bytes(&public)?;
        rebind(&mut s);
        Ok(reassemble(&s))
    };
    Ok([valid, flagged("note")?, flagged("id")?])
}

/// The golden digests of the writer's output on Adult, relative to the
/// vectors' folder; `tests/karc/archive.rs` packs every line's cell again.
const GOLDEN: &str = "golden_adult.txt";

/// One line per cell: `algorithm k mode bytes blake3`, of `writer::pack_file`
/// on `adult.csv` with `adult.toml` (k-anonymity with that k, unsealed: the
/// bytes are deterministic). Pins the encoder on a real table, which the
/// 6-row vectors cannot.
fn golden_adult(adult: &Path) -> Result<String, Box<dyn std::error::Error>> {
    let mut out = String::from(
        "# algorithm k mode bytes blake3: `karc pack --no-encryption` of fixtures/adult/adult.csv\n\
         # with fixtures/adult/adult.toml at that k; written by `archive_vectors`, checked by\n\
         # tests/karc/archive.rs (writer_output_is_pinned_on_adult).\n",
    );
    for (algorithm, k) in [("datafly", 10), ("mondrian", 5), ("incognito", 100)] {
        for &mode in DiffMode::ALL {
            let mut config = Config::load(&adult.join("adult.toml"))?;
            config.algorithm.name = algorithm.to_owned();
            config.privacy.k = Some(k);
            config.privacy.constraints.clear();
            let bytes = writer::pack_file(
                &config,
                &adult.join("adult.csv"),
                &PackOptions {
                    groups: Default::default(),
                    mode,
                    seal: &Seal::None,
                },
            )?;
            let hash = blake3_hex(&bytes);
            out.push_str(&format!("{algorithm} {k} {mode} {} {hash}\n", bytes.len()));
        }
    }
    Ok(out)
}
