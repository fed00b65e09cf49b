//! The commands around the archive: `export` equals `anonymize` byte for
//! byte, and `pack`, `restore`, `inspect` and their siblings round trip and
//! say what is wrong.

use std::path::Path;

use crate::archive::small_table;
use crate::common::{fixture, karc, outcome};

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
