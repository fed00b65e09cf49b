//! Decimal commas (`karc::number`): in a `;`-separated table, `1234,56`,
//! `-0,5` and `1.234,56` are numbers for `karc init`, the anonymizers
//! (batch and stream) and the hierarchy builders; the release shows them as
//! written and the archive restores the table byte for byte. A
//! comma-separated table reads no decimal comma.

use std::fmt::Write as _;
use std::path::Path;

use crate::common::{fixture, karc, outcome};

const RECIPIENT: &str = crate::common::TEST_RECIPIENT;

/// A `;`-separated table: an id, an amount in every spelling (decimal
/// comma, negative, thousands dots, plain integer, empty), an age, a country.
fn european(rows: usize) -> String {
    let mut t = String::from("kunde;betrag;alter;land\n");
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let mut below = |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n
    };
    for i in 0..rows {
        let amount = match i % 6 {
            0 => format!("{},{:02}", below(5000), below(100)),
            1 => format!("-0,{}", 1 + below(9)),
            2 => format!("{}.{:03},{:02}", 1 + below(9), below(1000), below(100)),
            3 if i % 5 == 0 => String::new(),
            3 => below(3000).to_string(),
            4 => format!("{},{}", below(100), below(10)),
            _ => format!("{}.{}", below(100), below(10)),
        };
        let country = ["DE", "AT", "CH"][below(3) as usize];
        let _ = writeln!(t, "K{i};{amount};{};{country}", 18 + below(70));
    }
    t
}

/// The amount as a German reader reads it, independently of karc: dots
/// group thousands when a comma follows, the comma is the decimal point.
fn german(text: &str) -> f64 {
    if text.contains(',') {
        text.replace('.', "").replace(',', ".").parse().unwrap()
    } else {
        text.parse().unwrap()
    }
}

fn config(dir: &Path, hierarchies: bool) -> String {
    let (amount, age) = if hierarchies {
        (
            "hierarchy = { intervals = [500, 1000, 5000] }\n",
            "hierarchy = { intervals = [10, 20] }\n",
        )
    } else {
        ("", "")
    };
    let toml = format!(
        "[input]\ndelimiter = \";\"\nheader = true\n\n\
         [[columns]]\nname = \"kunde\"\nrole = \"identifier\"\n\n\
         [[columns]]\nname = \"betrag\"\nrole = \"quasi\"\ntype = \"decimal\"\n{amount}\n\
         [[columns]]\nname = \"alter\"\nrole = \"quasi\"\ntype = \"integer\"\n{age}\n\
         [[columns]]\nname = \"land\"\nrole = \"insensitive\"\n\n\
         [privacy]\nk = 5\n"
    );
    let path = dir.join(format!("euro-{hierarchies}.toml"));
    std::fs::write(&path, toml).unwrap();
    path.to_str().unwrap().to_owned()
}

fn run_ok(args: &[&str]) -> String {
    let (code, out, err) = outcome(&karc(args));
    assert_eq!(code, 0, "karc {args:?}: {err}");
    out
}

/// Packs, restores (the same bytes), exports; checks every released amount
/// covers its original as a number. Returns the intervals released.
fn pack_and_check(dir: &Path, table: &str, config: &str, extra: &[&str], name: &str) -> usize {
    let p = |f: &str| dir.join(format!("{name}.{f}")).to_str().unwrap().to_owned();
    let input = dir.join("euro.csv").to_str().unwrap().to_owned();
    let mut args = vec!["pack", &input, "-c", config, "-r", RECIPIENT];
    let archive = p("karc");
    args.extend(["-o", &archive]);
    args.extend(extra);
    run_ok(&args);
    let identity = fixture("archive/keys/identity.txt");
    let back = p("back");
    run_ok(&[
        "restore",
        &archive,
        "-i",
        identity.to_str().unwrap(),
        "-o",
        &back,
    ]);
    assert!(
        std::fs::read(&back).unwrap() == table.as_bytes(),
        "{name}: the restored table differs"
    );
    let release = p("release.csv");
    run_ok(&["export", &archive, "-o", &release]);
    let released = std::fs::read_to_string(&release).unwrap();
    let mut intervals = 0;
    let originals = table.lines().skip(1);
    for (line, original) in released.lines().skip(1).zip(originals) {
        let shown = line.split(';').next().unwrap();
        let original = original.split(';').nth(1).unwrap();
        if shown == original || shown == "*" {
            continue;
        }
        assert!(!original.is_empty(), "{name}: an empty amount as {shown:?}");
        let x = german(original);
        let (lo, hi) = match shown.split_once('~') {
            // Mondrian: an interval of two originals.
            Some((lo, hi)) => (german(lo), german(hi)),
            // A built interval `[lo, hi)`.
            None => {
                let inner = shown.trim_start_matches('[').trim_end_matches(')');
                let (lo, hi) = inner.split_once(", ").unwrap();
                (lo.parse().unwrap(), hi.parse::<f64>().unwrap() - 1e-9)
            }
        };
        assert!(lo <= x && x <= hi, "{name}: {original} released as {shown}");
        intervals += 1;
    }
    intervals
}

#[test]
fn decimal_commas_are_numbers_and_keep_their_spelling() {
    let dir = tempfile::tempdir().unwrap();
    let table = european(600);
    let input = dir.path().join("euro.csv");
    std::fs::write(&input, &table).unwrap();

    // init infers the amounts as decimals (their range read as numbers),
    // the ages as integers: the line above each column's name says.
    let init = dir.path().join("init.toml");
    run_ok(&[
        "init",
        input.to_str().unwrap(),
        "-o",
        init.to_str().unwrap(),
    ]);
    let text = std::fs::read_to_string(&init).unwrap();
    let kind = |name: &str| {
        let lines: Vec<&str> = text.lines().collect();
        let at = lines
            .iter()
            .position(|l| *l == format!("name = \"{name}\""))
            .unwrap();
        lines[at - 1].to_owned()
    };
    assert!(kind("betrag").contains("# decimals -0.9.."), "{text}");
    assert!(kind("alter").contains("# integers 18.."), "{text}");

    // Mondrian's intervals, and the stream's, run between the numbers.
    let plain = config(dir.path(), false);
    let mondrian = pack_and_check(dir.path(), &table, &plain, &["-a", "mondrian"], "mondrian");
    assert!(mondrian > 100, "{mondrian} intervals");
    let stream = ["--stream", "-a", "fads", "--delay", "60"];
    let fads = pack_and_check(dir.path(), &table, &plain, &stream, "fads");
    assert!(fads > 100, "{fads} intervals");
    // A built hierarchy of intervals reads them too (Datafly).
    let built = config(dir.path(), true);
    pack_and_check(dir.path(), &table, &built, &["-a", "datafly"], "datafly");
}

#[test]
fn a_comma_separated_table_reads_no_decimal_comma() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("comma.csv");
    std::fs::write(&input, "id,amount\n1,\"1234,56\"\n2,7.5\n").unwrap();
    let config = dir.path().join("comma.toml");
    std::fs::write(
        &config,
        "[input]\ndelimiter = \",\"\n\n[[columns]]\nname = \"id\"\nrole = \"identifier\"\n\n\
         [[columns]]\nname = \"amount\"\nrole = \"quasi\"\ntype = \"decimal\"\n\n\
         [privacy]\nk = 1\n",
    )
    .unwrap();
    let out = dir.path().join("comma.karc");
    let (code, _, err) = outcome(&karc(&[
        "pack",
        input.to_str().unwrap(),
        "-c",
        config.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--no-encryption",
    ]));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("expected a decimal number, found \"1234,56\"") && err.lines().count() == 1,
        "{err}"
    );
}

/// The codecs read a decimal comma as they read a point (`spec/CODING.md`
/// 4.2, 5.3 and 6.6, a scale of `32 + d`): a table of comma decimals packs
/// to the size of its twin with points, give or take the marks' share of a
/// few texts (it took 27 % more when commas made every decimal a text).
#[test]
fn a_decimal_comma_table_codes_as_small_as_its_twin_with_points() {
    let dir = tempfile::tempdir().unwrap();
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut below = |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n
    };
    let mut points = String::from("id;lat;amount;ratio\n");
    for i in 0..4000 {
        let _ = writeln!(
            points,
            "{i};{}.{:06};{}.{:02};0.{:09}",
            30 + below(20),
            below(1_000_000),
            below(90_000),
            below(100),
            below(1_000_000_000)
        );
    }
    let commas = points.replace('.', ",");
    let toml = "[input]\ndelimiter = \";\"\n\n\
        [[columns]]\nname = \"id\"\nrole = \"insensitive\"\n\n\
        [[columns]]\nname = \"lat\"\nrole = \"quasi\"\ntype = \"decimal\"\n\n\
        [[columns]]\nname = \"amount\"\nrole = \"quasi\"\ntype = \"decimal\"\n\n\
        [[columns]]\nname = \"ratio\"\nrole = \"insensitive\"\n\n\
        [privacy]\nk = 10\n\n[algorithm]\nname = \"mondrian\"\n";
    let config = dir.path().join("twin.toml");
    std::fs::write(&config, toml).unwrap();
    let mut sizes = Vec::new();
    for (name, table) in [("points", &points), ("commas", &commas)] {
        let input = dir.path().join(format!("{name}.csv"));
        std::fs::write(&input, table).unwrap();
        let archive = dir.path().join(format!("{name}.karc"));
        let back = dir.path().join(format!("{name}.back"));
        let (input, archive, back) = (
            input.to_str().unwrap(),
            archive.to_str().unwrap(),
            back.to_str().unwrap(),
        );
        let c = config.to_str().unwrap();
        run_ok(&["pack", input, "-c", c, "--no-encryption", "-o", archive]);
        run_ok(&["restore", archive, "-o", back]);
        assert!(std::fs::read(back).unwrap() == table.as_bytes(), "{name}");
        sizes.push(std::fs::metadata(archive).unwrap().len() as f64);
    }
    assert!(
        (sizes[1] / sizes[0] - 1.0).abs() < 0.005,
        "points {} B, commas {} B",
        sizes[0],
        sizes[1]
    );
}
