//! The newcomer's path on awkward tables the project has never seen:
//! `karc init` → `karc keygen` → `karc pack` → `karc restore`, each with
//! `--json` (parsed here), then the same as a stream with init's hierarchy
//! files. Every archive must restore the input byte for byte.

use std::fmt::Write as _;
use std::path::Path;

use serde_json::Value;

use crate::common::{karc, outcome};

/// Runs karc with `--json`, asserting success; returns the parsed document
/// and checks its `schema` names the command.
fn json(args: &[&str], schema: &str) -> Value {
    let mut all = args.to_vec();
    all.push("--json");
    let (code, out, err) = outcome(&karc(&all));
    assert_eq!(code, 0, "karc {all:?}: {err}");
    let doc: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{all:?}: {e}\n{out}"));
    assert_eq!(doc["schema"], schema, "{out}");
    doc
}

/// A xorshift stream, so the tables are the same on every run.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// Comma-separated, LF: an id, timestamps with time zones, amounts with a
/// decimal comma (quoted), UTF-8 column names and cities, free text with
/// quotes, commas and newlines, missing cells (ages too if `missing_ages`),
/// a column of empty cells.
fn awkward(rows: usize, missing_ages: bool) -> String {
    let mut r = Rng(0x2545_F491_4F6C_DD1D);
    let mut t = String::from("id,créé_le,montant,ville,note,vide,âge,code_postal\n");
    let cities = ["Zürich", "São Paulo", "Kraków", "東京", "Ålesund", ""];
    let notes = [
        "ok",
        "\"he said \"\"hi\"\"\"",
        "\"line1\nline2\"",
        "",
        "\"a, b\"",
    ];
    for i in 0..rows {
        let zone = ["+02:00", "Z", "-05:00"][r.below(3) as usize];
        let created = format!(
            "2024-{:02}-{:02}T{:02}:{:02}:00{zone}",
            1 + r.below(12),
            1 + r.below(28),
            r.below(24),
            r.below(60)
        );
        let amount = format!("\"{},{:02}\"", r.below(5000), r.below(100));
        let city = cities[r.below(6) as usize];
        let note = notes[r.below(5) as usize];
        let age = match r.below(20) {
            0 if missing_ages => String::new(),
            _ => (18 + r.below(72)).to_string(),
        };
        let zip = 10000 + r.below(100);
        let _ = writeln!(t, "U{i:05},{created},{amount},{city},{note},,{age},{zip}");
    }
    t
}

/// `;`-separated, CRLF: day.month.year dates and decimal commas.
fn semicolons(rows: usize) -> String {
    let mut r = Rng(0x9E37_79B9_7F4A_7C15);
    let mut t = String::from("Name;Geburtsdatum;Gewicht;Land\r\n");
    for i in 0..rows {
        let _ = write!(
            t,
            "P{i};{:02}.{:02}.{};{},{};{}\r\n",
            1 + r.below(28),
            1 + r.below(12),
            1940 + r.below(70),
            40 + r.below(80),
            r.below(10),
            ["DE", "AT", "CH"][r.below(3) as usize]
        );
    }
    t
}

/// No header: numbers and letters only, so init cannot take row 1 for names.
fn headerless(rows: usize) -> String {
    let mut r = Rng(0xD1B5_4A32_D192_ED03);
    let mut t = String::new();
    for _ in 0..rows {
        let _ = writeln!(
            t,
            "{},{},{},{}",
            20 + r.below(50),
            ["M", "F"][r.below(2) as usize],
            ["a", "b", "c", "d"][r.below(4) as usize],
            1000 + r.below(1000)
        );
    }
    t
}

/// The walk on one table: batch with inline hierarchies, then a stream with
/// hierarchy files.
fn walk(dir: &Path, name: &str, table: &str) {
    let p = |f: &str| dir.join(format!("{name}.{f}")).to_str().unwrap().to_owned();
    let input = p("csv");
    std::fs::write(&input, table).unwrap();
    let init = json(&["init", &input, "-o", &p("toml")], "karc.init/1");
    assert_eq!(init["hierarchy_files"], Value::Array(vec![]), "{init}");
    let keygen = json(&["keygen", "-o", &p("id")], "karc.keygen/1");
    let recipient = keygen["recipients"][0].as_str().unwrap().to_owned();
    assert!(recipient.starts_with("age1"), "{keygen}");
    let packed = json(
        &[
            "pack",
            &input,
            "-c",
            &p("toml"),
            "-r",
            &recipient,
            "-o",
            &p("karc"),
        ],
        "karc.pack/1",
    );
    assert_eq!(packed["original_bytes"], table.len(), "{name}: {packed}");
    let restored = json(
        &["restore", &p("karc"), "-i", &p("id"), "-o", &p("back")],
        "karc.restore/1",
    );
    assert_eq!(restored["bytes"], table.len(), "{name}: {restored}");
    let back = std::fs::read(p("back")).unwrap();
    assert!(
        back == table.as_bytes(),
        "{name}: the restored table differs"
    );

    // A stream cannot build hierarchies from values it has not seen: init
    // writes them as files, and the config says so when it does not.
    let config = std::fs::read_to_string(p("toml")).unwrap();
    assert!(config.contains("--hierarchies-dir DIR"), "{config}");
    let hierarchies = dir.join(format!("{name}-h"));
    let init = json(
        &[
            "init",
            &input,
            "-o",
            &p("stream.toml"),
            "--hierarchies-dir",
            hierarchies.to_str().unwrap(),
        ],
        "karc.init/1",
    );
    assert!(init["hierarchy_files"].as_array().is_some(), "{init}");
    let (stream_toml, stream_karc) = (p("stream.toml"), p("stream.karc"));
    let stream_pack = [
        "pack",
        &input,
        "-c",
        &stream_toml,
        "-r",
        &recipient,
        "-o",
        &stream_karc,
        "--stream",
        "-a",
        "fads",
        "--delay",
        "50",
    ];
    let packed = json(&stream_pack, "karc.pack/1");
    assert_eq!(packed["original_bytes"], table.len(), "{name}: {packed}");
    json(
        &[
            "restore",
            &p("stream.karc"),
            "-i",
            &p("id"),
            "-o",
            &p("stream.back"),
        ],
        "karc.restore/1",
    );
    let back = std::fs::read(p("stream.back")).unwrap();
    assert!(
        back == table.as_bytes(),
        "{name}: the streamed archive restores another table"
    );
}

#[test]
fn a_newcomer_packs_and_restores_awkward_tables() {
    let dir = tempfile::tempdir().unwrap();
    walk(dir.path(), "awkward", &awkward(400, true));
    // Missing ages stream too (a value of their own), as init says.
    let config = std::fs::read_to_string(dir.path().join("awkward.toml")).unwrap();
    assert!(
        config.contains("numeric QI is a value of its own, here âge ("),
        "{config}"
    );
    // The same table without missing ages.
    walk(dir.path(), "awkward-full", &awkward(400, false));
    walk(dir.path(), "semicolons", &semicolons(300));
    walk(dir.path(), "headerless", &headerless(200));
    // Day-first dotted dates are dates (a calendar hierarchy), not 300
    // distinct categories kept out of the release.
    let config = std::fs::read_to_string(dir.path().join("semicolons.toml")).unwrap();
    let expected = "name = \"Geburtsdatum\"\nrole = \"quasi\"";
    assert!(config.contains(expected), "{config}");
    assert!(
        config.contains("{ dates = \"day,month,year\" }"),
        "{config}"
    );
}

/// One row: every value is unique to the one person, so init still picks
/// QIs (a constant column tells nothing only when there are other rows) and
/// lowers k to 1.
#[test]
fn a_single_row_table_walks_too() {
    let dir = tempfile::tempdir().unwrap();
    walk(dir.path(), "one", "a,b,c\n1,x,2020-01-01\n");
    let config = std::fs::read_to_string(dir.path().join("one.toml")).unwrap();
    assert!(
        config.contains("k = 1  # --k 5 is more than the 1 rows"),
        "{config}"
    );
    assert!(config.contains("role = \"quasi\""), "{config}");
}

/// Real tables (`fixtures/`, from the shared data sets) a newcomer might
/// try first, streamed too.
#[test]
fn a_newcomer_packs_the_shared_tables() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let dir = tempfile::tempdir().unwrap();
    for (name, rel) in [
        ("italia", "italia/italia.csv"),
        ("toy", "arx-toy/test.csv"),
        ("toy2", "arx-toy/test2.csv"),
    ] {
        let table = std::fs::read_to_string(fixtures.join(rel)).unwrap();
        walk(dir.path(), name, &table);
    }
}
