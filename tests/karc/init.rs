//! `karc init` → `karc keygen` → `karc pack` → `karc restore` on tables the
//! project's configs were never written for, with no hand-written
//! hierarchy: every algorithm packs, every archive restores byte for byte.

use std::fmt::Write as _;
use std::path::Path;

use crate::common::{fixture, karc, outcome};

const ALGORITHMS: [&str; 5] = [
    "mondrian",
    "datafly",
    "incognito",
    "topdown",
    "basic-mondrian",
];

/// Runs karc, asserting success; returns stdout.
fn ok(args: &[&str]) -> String {
    let (code, out, err) = outcome(&karc(args));
    assert_eq!(code, 0, "karc {args:?}: {err}");
    out
}

/// A table as a user's own: ISO dates (some missing), zip codes with
/// leading zeros, decimals with missing cells, free text with quotes and
/// semicolons, a category, `;` as delimiter.
fn own_table(rows: usize) -> String {
    let mut t = String::from("record;visit;zip;weight;comment;ward\n");
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n
    };
    for i in 0..rows {
        let visit = match next(20) {
            0 => String::new(),
            _ => format!(
                "20{:02}-{:02}-{:02}",
                19 + next(5),
                1 + next(12),
                1 + next(28)
            ),
        };
        let zip = format!(
            "{:05}",
            [2139, 2141, 10001, 10003, 94105, 60601][next(6) as usize] + next(3)
        );
        let weight = match next(15) {
            0 => String::new(),
            1 => "?".to_owned(),
            _ => format!("{}.{}", 45 + next(60), next(10)),
        };
        let comment = match next(4) {
            0 => String::new(),
            1 => "\"said \"\"fine\"\"; no follow-up needed after the visit today\"".to_owned(),
            _ => format!(
                "\"patient number {i} describes symptoms; asked for a second opinion soon\""
            ),
        };
        let ward = ["north", "south", "east", "west"][next(4) as usize];
        let _ = writeln!(t, "{i};{visit};{zip};{weight};{comment};{ward}");
    }
    t
}

/// init → keygen → pack with each algorithm → restore, byte for byte.
fn round_trip(dir: &Path, table: &Path, init_args: &[&str]) {
    let config = dir.join("config.toml");
    let config = config.to_str().unwrap();
    let table_name = table.to_str().unwrap();
    let mut args = vec!["init", table_name, "-o", config, "--force"];
    args.extend_from_slice(init_args);
    ok(&args);
    let text = std::fs::read_to_string(config).unwrap();
    assert!(text.contains("role = \"quasi\""), "{text}");
    let identity = dir.join("identity.txt");
    let identity = identity.to_str().unwrap();
    let _ = std::fs::remove_file(identity);
    let recipient = ok(&["keygen", "-o", identity]);
    let recipient = recipient.trim();
    assert!(recipient.starts_with("age1"), "{recipient}");
    let original = std::fs::read(table).unwrap();
    for algorithm in ALGORITHMS {
        let archive = dir.join(format!("{algorithm}.karc"));
        let restored = dir.join(format!("{algorithm}.csv"));
        let (archive, restored) = (archive.to_str().unwrap(), restored.to_str().unwrap());
        ok(&[
            "pack", "-c", config, table_name, "-a", algorithm, "-o", archive, "-r", recipient,
        ]);
        ok(&["restore", archive, "-i", identity, "-o", restored]);
        assert!(
            std::fs::read(restored).unwrap() == original,
            "{table:?} with {algorithm}: the restored table differs"
        );
    }
}

#[test]
fn init_keygen_pack_restore_on_real_tables() {
    let dir = tempfile::tempdir().unwrap();
    for table in ["italia/italia.csv", "arx-toy/test2.csv", "arx-toy/test.csv"] {
        round_trip(dir.path(), &fixture(table), &[]);
    }
}

#[test]
fn init_keygen_pack_restore_on_raw_adult() {
    // 32,561 rows, `, `-separated cells, `?` for missing values.
    let dir = tempfile::tempdir().unwrap();
    round_trip(dir.path(), &fixture("adult-raw/adult.csv"), &[]);
}

#[test]
fn init_keygen_pack_restore_on_an_own_table() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("own.csv");
    std::fs::write(&table, own_table(3000)).unwrap();
    round_trip(dir.path(), &table, &[]);
    let config = std::fs::read_to_string(dir.path().join("config.toml")).unwrap();
    for expected in [
        "delimiter = \";\"",
        "name = \"record\"\nrole = \"identifier\"",
        "hierarchy = { dates = \"day,month,year\" }",
        "hierarchy = { mask = 4 }",
        "type = \"decimal\"\nhierarchy = { intervals = [",
        "name = \"comment\"\nrole = \"identifier\"  # free text",
        "name = \"ward\"\nrole = \"quasi\"",
    ] {
        assert!(config.contains(expected), "{expected:?} in\n{config}");
    }
    // Given QIs and sensitive column, hierarchies as ARX files.
    let hierarchies = dir.path().join("h");
    round_trip(
        dir.path(),
        &table,
        &[
            "--qi",
            "visit,zip,weight",
            "--sensitive",
            "ward",
            "--l",
            "2",
            "--hierarchies-dir",
            hierarchies.to_str().unwrap(),
        ],
    );
    let config = std::fs::read_to_string(dir.path().join("config.toml")).unwrap();
    assert!(config.contains("hierarchy = \"h/zip.csv\""), "{config}");
    assert!(config.contains("sensitive = \"ward\"\nl = 2"), "{config}");
    let zip = std::fs::read_to_string(hierarchies.join("zip.csv")).unwrap();
    assert!(zip.lines().all(|l| l.split(';').count() == 6), "{zip}");
    assert!(zip.contains("02139;0213*;021**;02***;0****;*"), "{zip}");
}

#[test]
fn init_refuses_unknown_columns_and_overwrites() {
    let dir = tempfile::tempdir().unwrap();
    let table = fixture("italia/italia.csv");
    let config = dir.path().join("c.toml");
    let (code, _, err) = outcome(&karc(&[
        "init",
        table.to_str().unwrap(),
        "--qi",
        "age,shoe",
        "-o",
        config.to_str().unwrap(),
    ]));
    assert_eq!(code, 2);
    assert!(
        err.contains("no column \"shoe\" (its columns: ID, age,"),
        "{err}"
    );
    assert!(!config.exists());
    std::fs::write(&config, "mine").unwrap();
    let (code, _, err) = outcome(&karc(&[
        "init",
        table.to_str().unwrap(),
        "-o",
        config.to_str().unwrap(),
    ]));
    assert_eq!(code, 2);
    assert!(err.contains("the file exists: give --force"), "{err}");
    assert_eq!(std::fs::read_to_string(&config).unwrap(), "mine");
}

#[test]
fn a_wrong_delimiter_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("t.csv");
    std::fs::write(&table, "a,b,c\n1;2;3\n4;5;6\n").unwrap();
    let config = dir.path().join("c.toml");
    std::fs::write(
        &config,
        "[input]\ndelimiter = \",\"\n[[columns]]\nname = \"a\"\nrole = \"quasi\"\ntype = \"integer\"\n",
    )
    .unwrap();
    let out = dir.path().join("r.csv");
    let run = |config: &Path| {
        outcome(&karc(&[
            "anonymize",
            "-c",
            config.to_str().unwrap(),
            table.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]))
    };
    let (code, _, err) = run(&config);
    assert_eq!(code, 2);
    assert!(
        err.contains(
            "t.csv:2: expected 3 columns as in the header, found 1: is the delimiter ';'?"
        ),
        "{err}"
    );
    // A header read as one column.
    std::fs::write(&table, "a;b;c\n1;2;3\n").unwrap();
    let (code, _, err) = run(&config);
    assert_eq!(code, 2);
    assert!(
        err.contains("the table was read as one column; is the delimiter ';'?"),
        "{err}"
    );
}

/// A hand-written config with builders only: Datafly and Incognito work on
/// numeric QIs with no hierarchy file; a streamed pack, which never holds a
/// whole column, says it needs files.
#[test]
fn builders_in_a_hand_written_config() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("c.toml");
    std::fs::write(
        &config,
        "[input]\ndelimiter = \";\"\n\
         [[columns]]\nname = \"age\"\nrole = \"quasi\"\ntype = \"integer\"\nhierarchy = { intervals = [5, 10, 50] }\n\
         [[columns]]\nname = \"gender\"\nrole = \"quasi\"\nhierarchy = { flat = true }\n\
         [[columns]]\nname = \"zipcode\"\nrole = \"quasi\"\nhierarchy = { mask = 4 }\n\
         [privacy]\nk = 2\n",
    )
    .unwrap();
    let table = fixture("arx-toy/test.csv");
    let release = dir.path().join("r.csv");
    for algorithm in ["datafly", "incognito"] {
        ok(&[
            "anonymize",
            "-c",
            config.to_str().unwrap(),
            table.to_str().unwrap(),
            "-a",
            algorithm,
            "-o",
            release.to_str().unwrap(),
        ]);
        let text = std::fs::read_to_string(&release).unwrap();
        // Every age is an interval of the ladder, or suppressed.
        for line in text.lines().skip(1) {
            let age = line.split(';').next().unwrap();
            assert!(age == "*" || age.contains('-'), "{algorithm}: {line}");
        }
        let (code, _, err) = outcome(&karc(&[
            "verify",
            release.to_str().unwrap(),
            "--qi",
            "age,gender,zipcode",
            "-k",
            "2",
        ]));
        assert_eq!(code, 0, "{algorithm}: {err}");
    }
    let (code, _, err) = outcome(&karc(&[
        "pack",
        "--stream",
        "-a",
        "fads",
        "--delay",
        "4",
        "-c",
        config.to_str().unwrap(),
        table.to_str().unwrap(),
        "-o",
        dir.path().join("s.karc").to_str().unwrap(),
        "--no-encryption",
    ]));
    assert_eq!(code, 2);
    assert!(
        err.contains("column \"gender\": a streamed table is not read whole")
            && err.contains("--hierarchies-dir"),
        "{err}"
    );
}
