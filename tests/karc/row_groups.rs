//! A batch pack in several row groups (issue 33): the whole table is one
//! release, coded a group at a time. Cutting it into groups changes the
//! file's layout, never its release, its claim or its original: each file
//! is compared with the same table packed as one group.

use std::path::{Path, PathBuf};

use karc::api;
use karc::archive::batch_groups::GroupSize;
use karc::archive::format::{self, SectionKind};
use karc::archive::reader::{Archive, ClaimCheck};
use karc::archive::seal::Seal;
use karc::archive::writer::{self, PackOptions};
use karc::archive::{Csv, Original, TableInput};
use karc::codec::DiffMode;
use karc::config::Config;

use crate::common::{fixture, karc, outcome};

fn pack(config: &Config, csv: &Path, mode: DiffMode, groups: GroupSize) -> Vec<u8> {
    let options = PackOptions {
        mode,
        seal: &Seal::None,
        groups,
    };
    writer::pack_file(config, csv, &options).unwrap()
}

fn open(name: &str, bytes: Vec<u8>) -> Archive {
    Archive::from_bytes(Path::new(name), bytes, ClaimCheck::Enforce).unwrap()
}

fn has_row_groups(bytes: &[u8]) -> bool {
    let container = format::parse(Path::new("x.karc"), bytes).unwrap();
    (container.entries.iter()).any(|e| e.kind() == Some(SectionKind::RowGroups))
}

/// Awkward files: CRLF, LF without a last line end, no header.
const AWKWARD: [(&str, bool, &str, bool); 3] = [
    ("crlf", true, "\r\n", true),
    ("lf", true, "\n", false),
    ("headerless", false, "\n", true),
];

/// An awkward file of 97 rows in `dir` (quoted line breaks, empty and
/// padded fields, blank lines) and its config.
fn awkward(dir: &Path, name: &str, header: bool, ending: &str, last: bool) -> (PathBuf, Config) {
    let mut text = String::new();
    if header {
        text.push_str(&format!("age,city,note{ending}"));
    }
    for r in 0..97u32 {
        let note = match r % 7 {
            0 => format!("\"line{ending}break, {r}\""),
            1 => String::new(),
            2 => format!("  padded {r} "),
            _ => format!("n{r}"),
        };
        text.push_str(&format!("{},c{},{note}{ending}", 20 + r % 30, r % 4));
        if r % 23 == 5 {
            text.push_str(ending);
        }
    }
    if !last {
        text.truncate(text.len() - ending.len());
    }
    let csv = dir.join(format!("{name}.csv"));
    std::fs::write(&csv, &text).unwrap();
    let toml = format!(
        "[input]\ndelimiter = \",\"\nheader = {header}\n[privacy]\nk = 3\n[algorithm]\nname = \"mondrian\"\n\
         [[columns]]\nname = \"age\"\nrole = \"quasi\"\ntype = \"integer\"\n\
         [[columns]]\nname = \"city\"\nrole = \"insensitive\"\n\
         [[columns]]\nname = \"note\"\nrole = \"insensitive\"\n"
    );
    let config_path = dir.join(format!("{name}.toml"));
    std::fs::write(&config_path, toml).unwrap();
    (csv, Config::load(&config_path).unwrap())
}

/// The file `csv` packed through the API, read where it lies
/// (`stream_bytes` 0, as `karc pack` reads a file of 32 MiB or more) or
/// held whole (`usize::MAX`), in groups of `rows` rows.
fn api_pack(
    config: &Config,
    csv: &Path,
    stream_bytes: usize,
    rows: Option<usize>,
) -> karc::Result<Vec<u8>> {
    let input = TableInput::open_with(csv, stream_bytes)?;
    assert_eq!(matches!(input.csv, Csv::File(_)), stream_bytes == 0);
    let a = api::anonymize(config, csv, &input)?;
    let options = api::PackOptions {
        mode: DiffMode::default(),
        seal: api::Seal::None,
        group_rows: rows,
    };
    api::pack(config, a, &input, &options).map(|p| p.bytes)
}

/// A file read where it lies packs to the very bytes its bytes in memory
/// pack to, in one group and in groups (each group's bytes read again
/// from the file); a file that changed after its table was read is
/// refused, naming it.
#[test]
fn a_file_read_where_it_lies_packs_as_its_bytes() {
    let dir = tempfile::tempdir().unwrap();
    for (name, header, ending, last) in AWKWARD {
        let (csv, config) = awkward(dir.path(), name, header, ending, last);
        for rows in [None, Some(1), Some(10), Some(40)] {
            let from_file = api_pack(&config, &csv, 0, rows).unwrap();
            let from_bytes = api_pack(&config, &csv, usize::MAX, rows).unwrap();
            assert!(from_file == from_bytes, "{name} in groups of {rows:?}");
            // In groups, the API frees the table's rows before coding: the
            // bytes are those of the writer that keeps them.
            let size = rows.map_or_else(GroupSize::default, GroupSize::rows);
            let kept = pack(&config, &csv, DiffMode::default(), size);
            assert!(
                from_bytes == kept,
                "{name} in groups of {rows:?}: rows freed"
            );
            let archive = open(name, from_file);
            assert!(archive.restore(None).unwrap() == std::fs::read(&csv).unwrap());
        }
    }
    let (csv, config) = awkward(dir.path(), "changed", true, "\n", true);
    for rows in [None, Some(10)] {
        let input = TableInput::open_with(&csv, 0).unwrap();
        let a = api::anonymize(&config, &csv, &input).unwrap();
        let mut text = std::fs::read_to_string(&csv).unwrap();
        text.push_str("99,c9,late\n");
        std::fs::write(&csv, &text).unwrap();
        let options = api::PackOptions {
            mode: DiffMode::default(),
            seal: api::Seal::None,
            group_rows: rows,
        };
        let e = api::pack(&config, a, &input, &options)
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains("changed.csv") && e.contains("changed while karc read it"),
            "{e}"
        );
    }
}

/// A table whose rows were freed, and released columns whose rows were
/// (their classes kept), packed as one group (as when its records do not
/// split into the groups asked for): the table is read again whole from
/// the original, the released rows made from the classes, and the file
/// is the one the rows make.
#[test]
fn a_table_without_its_rows_is_read_again_as_one_group() {
    let dir = tempfile::tempdir().unwrap();
    let (csv, config) = awkward(dir.path(), "freed", true, "\r\n", false);
    let bytes = std::fs::read(&csv).unwrap();
    let table = karc::table::Table::from_bytes(&csv, &bytes, &config.csv_options().unwrap());
    let mut data = karc::dataset::Dataset::bind(&config, table.unwrap()).unwrap();
    let model = karc::privacy::PrivacyModel::from_config(&config, &data).unwrap();
    let (outcome, report) =
        karc::report::Report::anonymize_checked(&config, &data, &model).unwrap();
    let mut released = writer::released_columns(&data, &outcome);
    data.table.forget_rows(|_| false);
    assert!(!data.table.holds_rows());
    // The released columns too hold their symbols only, their rows in the
    // classes.
    let classes = karc::codec::ReleasedClasses::from_columns(&released);
    for column in &mut released {
        column.rows = Vec::new();
    }
    let a = writer::Anonymization {
        config: &config,
        data: &data,
        model: &model,
        released: &released,
        classes: Some(&classes),
        report: &report,
    };
    let options = PackOptions {
        mode: DiffMode::default(),
        seal: &Seal::None,
        groups: GroupSize::whole(),
    };
    let packed = writer::pack_with_arrow(&a, Original::Bytes(&bytes), None, &options).unwrap();
    assert!(packed == pack(&config, &csv, DiffMode::default(), GroupSize::whole()));
}

/// `csv` packed with `config` in one group and in groups of `rows`: the
/// same release, claim, metadata and original; `groups` groups.
fn same_release(config: &Config, csv: &Path, mode: DiffMode, rows: usize, groups: usize) {
    let one = pack(config, csv, mode, GroupSize::default());
    let many = pack(config, csv, mode, GroupSize::rows(rows));
    assert!(!has_row_groups(&one));
    assert_eq!(has_row_groups(&many), groups > 1);
    let (one, many) = (open("one", one), open("many", many));
    let (i1, im) = (one.inspect(None).unwrap(), many.inspect(None).unwrap());
    assert_eq!((i1.row_groups, im.row_groups), (1, groups), "{mode:?}");
    assert_eq!(i1.meta, im.meta, "the same claim, algorithm and metrics");
    assert_eq!(one.claim_report, many.claim_report);
    assert_eq!(
        one.release_columns().unwrap(),
        many.release_columns().unwrap()
    );
    let original = std::fs::read(csv).unwrap();
    assert!(
        one.restore(None).unwrap() == original,
        "{mode:?}: one group"
    );
    assert!(many.restore(None).unwrap() == original, "{mode:?}: groups");
    let (mut e1, mut em) = (Vec::new(), Vec::new());
    one.export_csv(&mut e1).unwrap();
    many.export_csv(&mut em).unwrap();
    assert!(e1 == em, "the exported release");
}

#[test]
fn adult_in_row_groups_has_the_release_of_one_group_in_every_mode() {
    let csv = fixture("adult/adult.csv");
    let mut config = Config::load(&fixture("adult/adult.toml")).unwrap();
    for mode in ["per-value-rans", "context", "per-value", "paper"] {
        same_release(&config, &csv, mode.parse().unwrap(), 7_000, 5);
    }
    // Global recoding (Datafly) and local (Mondrian), k = 10.
    config.privacy.k = Some(10);
    for algorithm in ["datafly", "mondrian"] {
        config.algorithm.name = algorithm.to_owned();
        same_release(&config, &csv, DiffMode::default(), 10_000, 4);
    }
}

/// Raw Adult (padding learnt from the first group, trimmed fields),
/// with classes re-checked row by row (l-diversity).
#[test]
fn raw_adult_with_padding_and_l_diversity_in_row_groups() {
    // Without its rows of missing values, which the hierarchies lack.
    let text = std::fs::read_to_string(fixture("adult-raw/adult.csv")).unwrap();
    let kept: Vec<&str> = text.lines().filter(|l| !l.contains('?')).collect();
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("adult.csv");
    std::fs::write(&csv, kept.join("\n") + "\n").unwrap();
    let mut config = Config::load(&fixture("adult-raw/adult-stream.toml")).unwrap();
    config.algorithm.name = "mondrian".to_owned();
    config.privacy.k = Some(5);
    same_release(&config, &csv, DiffMode::default(), 9_000, 4);
    config.privacy.l = Some(2);
    config.privacy.sensitive = vec!["salary-class".to_owned()];
    same_release(&config, &csv, DiffMode::default(), 12_000, 3);
}

/// Records cut where the CSV's own syntax is awkward: CRLF, quoted fields
/// holding line feeds and delimiters, blank lines, spaces, no final line
/// ending, a header-less file.
#[test]
fn awkward_records_split_into_groups_and_restore() {
    let dir = tempfile::tempdir().unwrap();
    for (name, header, ending, last) in AWKWARD {
        let (csv, config) = awkward(dir.path(), name, header, ending, last);
        for rows in [1, 10, 40] {
            same_release(
                &config,
                &csv,
                DiffMode::default(),
                rows,
                97usize.div_ceil(rows),
            );
        }
    }
}

/// `karc pack --group-rows` writes a file of several groups that `karc
/// verify`, `restore` and `export` read.
#[test]
fn pack_group_rows_on_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = |n: &str| dir.path().join(n).display().to_string();
    let config = fixture("adult/adult.toml").display().to_string();
    let csv = fixture("adult/adult.csv").display().to_string();
    let (archive, restored, export) = (d("a.karc"), d("restored.csv"), d("release.csv"));
    let args = [
        "pack",
        "-c",
        &config,
        &csv,
        "-o",
        &archive,
        "--no-encryption",
        "--group-rows",
        "8000",
    ];
    let (code, _, stderr) = outcome(&karc(&args));
    assert_eq!(code, 0, "{stderr}");
    let bytes = std::fs::read(&archive).unwrap();
    assert!(has_row_groups(&bytes));
    for args in [
        vec!["verify", archive.as_str()],
        vec!["restore", &archive, "-o", &restored],
        vec!["export", &archive, "-o", &export],
    ] {
        let (code, _, stderr) = outcome(&karc(&args));
        assert_eq!(code, 0, "{args:?}: {stderr}");
    }
    assert!(std::fs::read(&restored).unwrap() == std::fs::read(&csv).unwrap());
    let a = open("a", bytes);
    assert_eq!(a.inspect(None).unwrap().row_groups, 4);
    let mut release = Vec::new();
    a.export_csv(&mut release).unwrap();
    assert!(std::fs::read(&export).unwrap() == release);
}

/// `karc export` to Parquet and Arrow IPC of a file of several groups
/// writes a batch per group: the tables read back hold the release.
#[test]
fn export_of_row_groups_to_parquet_and_ipc_holds_the_release() {
    let dir = tempfile::tempdir().unwrap();
    let config = Config::load(&fixture("adult/adult.toml")).unwrap();
    let csv = fixture("adult/adult.csv");
    let bytes = pack(&config, &csv, DiffMode::default(), GroupSize::rows(9_000));
    let archive = dir.path().join("a.karc");
    std::fs::write(&archive, &bytes).unwrap();
    let release = open("a", bytes).release_columns().unwrap();
    for ext in ["parquet", "arrow"] {
        let out = dir.path().join(format!("release.{ext}"));
        let (a, o) = (archive.display().to_string(), out.display().to_string());
        let (code, _, stderr) = outcome(&karc(&["export", &a, "-o", &o]));
        assert_eq!(code, 0, "{ext}: {stderr}");
        let (table, _) = karc::arrow::read_table(&out).unwrap();
        assert_eq!(table.rows, 30_162, "{ext}");
        assert_eq!(table.columns.len(), release.len(), "{ext}");
        for (read, released) in table.columns.iter().zip(&release) {
            assert_eq!(read.name, released.name, "{ext}");
            assert!(
                (0..table.rows).all(|r| read.text(r) == released.text(r)),
                "{ext}: column {}",
                read.name
            );
        }
    }
}

/// The sections of each kind in a file.
fn count_sections(bytes: &[u8], kind: SectionKind) -> usize {
    let container = format::parse(Path::new("x.karc"), bytes).unwrap();
    (container.entries.iter())
        .filter(|e| e.kind() == Some(kind))
        .count()
}

/// A local recoding in groups writes its classes once (`CLASS_TABLE`) and
/// each group's rows' classes in it (`ROW_CLASSES`): its public part is
/// the one group's within a few hundred bytes a group (with a table per
/// group, Adult's Mondrian classes were repeated in every group).
#[test]
fn groups_share_one_class_table() {
    let csv = fixture("adult/adult.csv");
    let mut config = Config::load(&fixture("adult/adult.toml")).unwrap();
    config.algorithm.name = "mondrian".to_owned();
    config.privacy.k = Some(5);
    let one = pack(&config, &csv, DiffMode::default(), GroupSize::default());
    let many = pack(&config, &csv, DiffMode::default(), GroupSize::rows(8_000));
    assert_eq!(count_sections(&one, SectionKind::ClassTable), 0);
    assert_eq!(count_sections(&one, SectionKind::QiClasses), 1);
    assert_eq!(count_sections(&many, SectionKind::ClassTable), 1);
    assert_eq!(count_sections(&many, SectionKind::RowClasses), 4);
    assert_eq!(count_sections(&many, SectionKind::QiClasses), 0);
    let (one, many) = (open("one", one), open("many", many));
    let (i1, im) = (one.inspect(None).unwrap(), many.inspect(None).unwrap());
    let qis = |i: &karc::archive::reader::Inspection| -> u64 {
        let columns: u64 = (i.columns.iter())
            .filter(|c| c.role == karc::config::Role::Quasi)
            .map(|c| c.public_bytes)
            .sum();
        columns + i.class_rows_bytes.unwrap()
    };
    assert!(
        qis(&im) < qis(&i1) + 4 * 600,
        "{} against {} in one group",
        qis(&im),
        qis(&i1)
    );
    assert!(im.public_bytes < i1.public_bytes + 4 * 1_000);
}

/// A release of one class in groups: its rows' classes take no bits, and
/// the file still restores and holds its claim.
#[test]
fn one_class_in_groups() {
    let csv = fixture("archive/source/small.csv");
    let mut config = Config::load(&fixture("archive/source/small.toml")).unwrap();
    config.privacy.k = Some(6);
    same_release(&config, &csv, DiffMode::default(), 2, 3);
    let many = open(
        "many",
        pack(&config, &csv, DiffMode::default(), GroupSize::rows(2)),
    );
    let report = many.claim_report.as_ref().unwrap();
    assert_eq!(report.constraints[0].histogram, vec![(6, 1)]);
}
