//! Pseudonymized identifiers (issue 30; `spec/FORMAT.md` §5, docs/CONFIG.md
//! `pseudonym`): an identifier column released as keyed pseudonyms, never
//! as its values; the same key file gives the same pseudonyms in every
//! release, a fresh key others; restore gives back the original bytes.

use std::path::{Path, PathBuf};

use karc::archive::reader::{Archive, ClaimCheck};
use karc::pseudonym::{PSEUDONYM_DIGITS, PseudonymKey};
use karc::table::Column;

use crate::common::{karc, outcome};

/// A table of 300 people: an id, an e-mail (one missing), two QIs and a
/// sensitive column.
fn table() -> (String, Vec<String>) {
    let mut csv = String::from("id,email,zip,sex,disease\n");
    let mut originals = Vec::new();
    for i in 0..300 {
        let id = format!("P-{:05}", 1000 + i * 7);
        let email = match i {
            17 => String::new(),
            _ => format!("person.{i}@example.org"),
        };
        let zip = format!("{}", 10100 + (i % 6) * 10 + i % 3);
        let sex = ["F", "M"][i % 2];
        let disease = ["flu", "cold", "asthma", "none"][i % 4];
        csv += &format!("{id},{email},{zip},{sex},{disease}\n");
        originals.push(id);
        if !email.is_empty() {
            originals.push(email);
        }
    }
    (csv, originals)
}

fn config(key: Option<&str>) -> String {
    let key = key.map_or_else(String::new, |k| format!("pseudonym_key = \"{k}\"\n"));
    format!(
        "{key}
[[columns]]
name = \"id\"
role = \"identifier\"
pseudonym = true

[[columns]]
name = \"email\"
role = \"identifier\"
pseudonym = true

[[columns]]
name = \"zip\"
role = \"quasi\"
hierarchy = {{ mask = 4 }}

[[columns]]
name = \"sex\"
role = \"quasi\"
hierarchy = {{ flat = true }}

[[columns]]
name = \"disease\"
role = \"sensitive\"

[privacy]
k = 3
"
    )
}

struct Dir(tempfile::TempDir);

impl Dir {
    fn path(&self, name: &str) -> String {
        self.0.path().join(name).to_str().unwrap().to_owned()
    }

    fn run(&self, args: &[&str]) -> (i32, String, String) {
        outcome(&karc(args))
    }

    fn pack(&self, config: &str, out: &str) {
        let (code, _, err) = self.run(&[
            "pack",
            "-c",
            &self.path(config),
            &self.path("t.csv"),
            "-o",
            &self.path(out),
            "--no-encryption",
        ]);
        assert_eq!(code, 0, "{err}");
    }

    /// The released column named `name`.
    fn released(&self, file: &str, name: &str) -> Column {
        let archive = Archive::open(Path::new(&self.path(file)), ClaimCheck::Enforce).unwrap();
        let columns = archive.release_columns().unwrap();
        columns.into_iter().find(|c| c.name == name).unwrap()
    }
}

fn setup() -> (Dir, Vec<String>) {
    let dir = Dir(tempfile::tempdir().unwrap());
    let (csv, originals) = table();
    std::fs::write(dir.path("t.csv"), csv).unwrap();
    std::fs::write(dir.path("kept.toml"), config(Some("pseudonym.key"))).unwrap();
    std::fs::write(dir.path("fresh.toml"), config(None)).unwrap();
    (dir, originals)
}

fn texts(c: &Column) -> Vec<String> {
    c.codes
        .iter()
        .map(|&x| c.dict.value(x).to_owned())
        .collect()
}

#[test]
fn keygen_pseudonym_writes_32_private_bytes_and_never_overwrites() {
    let (d, _) = setup();
    let key = d.path("pseudonym.key");
    let (code, _, err) = d.run(&["keygen", "--pseudonym", "-o", &key]);
    assert_eq!(code, 0, "{err}");
    let bytes = std::fs::read(&key).unwrap();
    assert_eq!(bytes.len(), 32);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&key).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let (code, _, err) = d.run(&["keygen", "--pseudonym", "-o", &key]);
    assert_eq!(
        (code, err.contains("never overwritten")),
        (2, true),
        "{err}"
    );
    assert_eq!(std::fs::read(&key).unwrap(), bytes);
    let (code, _, err) = d.run(&["keygen", "--pseudonym", "-o", &key, "--force"]);
    assert_eq!(code, 0, "{err}");
    assert_ne!(std::fs::read(&key).unwrap(), bytes, "a new key");
}

#[test]
fn pseudonyms_hide_the_identifiers_link_with_a_kept_key_and_restore() {
    let (d, originals) = setup();
    let (code, _, err) = d.run(&["keygen", "--pseudonym", "-o", &d.path("pseudonym.key")]);
    assert_eq!(code, 0, "{err}");
    d.pack("kept.toml", "a.karc");
    d.pack("kept.toml", "b.karc");
    d.pack("fresh.toml", "f.karc");

    // Same key file: the same pseudonyms; a fresh key: others.
    for name in ["id", "email"] {
        let a = texts(&d.released("a.karc", name));
        assert_eq!(a, texts(&d.released("b.karc", name)), "{name}");
        let f = texts(&d.released("f.karc", name));
        assert!(
            a.iter().zip(&f).all(|(a, f)| a != f || a.is_empty()),
            "{name}"
        );
        assert!(
            (a.iter().enumerate()).all(|(r, p)| match (name, r) {
                ("email", 17) => p.is_empty(),
                _ => p.len() == PSEUDONYM_DIGITS && p.bytes().all(|b| b.is_ascii_hexdigit()),
            }),
            "{name}: {a:?}"
        );
    }
    let key: [u8; 32] = std::fs::read(d.path("pseudonym.key"))
        .unwrap()
        .try_into()
        .unwrap();
    let key = PseudonymKey::from_bytes(key);
    assert_eq!(
        texts(&d.released("a.karc", "id"))[1],
        key.pseudonym("id", "P-01007")
    );

    // The published copy holds no original id or e-mail, in its bytes or
    // its decoded release.
    let (code, _, err) = d.run(&["publish", &d.path("a.karc"), "-o", &d.path("p.karc")]);
    assert_eq!(code, 0, "{err}");
    let published = std::fs::read(d.path("p.karc")).unwrap();
    let released: Vec<String> = (Archive::open(Path::new(&d.path("p.karc")), ClaimCheck::Enforce)
        .unwrap()
        .release_columns()
        .unwrap()
        .iter())
    .flat_map(texts)
    .collect();
    for value in &originals {
        let found = published
            .windows(value.len())
            .any(|w| w == value.as_bytes());
        assert!(!found, "{value} in the published bytes");
        assert!(!released.contains(value), "{value} in the release");
    }

    // Restore gives the original byte for byte; inspect, verify and export work.
    for file in ["a.karc", "f.karc"] {
        let out = d.path(&format!("{file}.csv"));
        let (code, _, err) = d.run(&["restore", &d.path(file), "-o", &out]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(
            std::fs::read(&out).unwrap(),
            std::fs::read(d.path("t.csv")).unwrap()
        );
    }
    let (code, out, err) = d.run(&["inspect", &d.path("p.karc"), "--json"]);
    assert_eq!(code, 0, "{err}");
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    let flags: Vec<bool> = (json["columns"].as_array().unwrap().iter())
        .map(|c| c["pseudonym"].as_bool().unwrap())
        .collect();
    assert_eq!(flags, [true, true, false, false, false]);
    let (code, out, err) = d.run(&["verify", &d.path("p.karc")]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, _, err) = d.run(&["export", &d.path("p.karc"), "-o", &d.path("e.csv")]);
    assert_eq!(code, 0, "{err}");
    let export = std::fs::read_to_string(d.path("e.csv")).unwrap();
    assert!(export.starts_with("id,email,zip,sex,disease\n"), "{export}");
    assert!(export.contains(&key.pseudonym("email", "person.1@example.org")));
}

#[test]
fn a_stream_pack_gives_the_same_pseudonyms_in_every_row_group() {
    let (d, _) = setup();
    let (code, _, err) = d.run(&["keygen", "--pseudonym", "-o", &d.path("pseudonym.key")]);
    assert_eq!(code, 0, "{err}");
    d.pack("kept.toml", "a.karc");
    // A stream reads no table whole: its hierarchies are files.
    let zips: String = (0..6)
        .flat_map(|z| (0..3).map(move |r| 10100 + z * 10 + r))
        .map(|z| format!("{z};{}*;*\n", z / 10))
        .collect();
    std::fs::write(d.path("zip.csv"), zips).unwrap();
    std::fs::write(d.path("sex.csv"), "F;*\nM;*\n").unwrap();
    let stream = config(Some("pseudonym.key"))
        .replace("{ mask = 4 }", "\"zip.csv\"")
        .replace("{ flat = true }", "\"sex.csv\"");
    std::fs::write(d.path("stream.toml"), stream).unwrap();
    let (code, _, err) = d.run(&[
        "pack",
        "--stream",
        "-c",
        &d.path("stream.toml"),
        "-a",
        "fads",
        "-k",
        "3",
        "--delay",
        "20",
        "--group-rows",
        "50",
        &d.path("t.csv"),
        "-o",
        &d.path("s.karc"),
        "--no-encryption",
    ]);
    assert_eq!(code, 0, "{err}");
    for name in ["id", "email"] {
        let mut batch = texts(&d.released("a.karc", name));
        let mut stream = texts(&d.released("s.karc", name));
        batch.sort();
        stream.sort();
        assert_eq!(batch, stream, "{name}");
    }
    let (code, _, err) = d.run(&["restore", &d.path("s.karc"), "-o", &d.path("s.csv")]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        std::fs::read(d.path("s.csv")).unwrap(),
        std::fs::read(d.path("t.csv")).unwrap()
    );
}

#[test]
fn a_fresh_key_is_sealed_in_the_private_part_only() {
    let (d, _) = setup();
    d.pack("fresh.toml", "f.karc");
    let archive = Archive::open(Path::new(&d.path("f.karc")), ClaimCheck::Enforce).unwrap();
    let sealed = archive.private_parts(None).unwrap().sealed.unwrap();
    // One key drawn for the pack, shared by its two columns.
    let keys: Vec<u32> = sealed.pseudonym_keys.iter().map(|(c, _)| *c).collect();
    assert_eq!(keys, [0, 1]);
    assert_eq!(sealed.pseudonym_keys[0].1, sealed.pseudonym_keys[1].1);
    let key = PseudonymKey::from_bytes(sealed.pseudonym_keys[0].1);
    assert_eq!(
        texts(&d.released("f.karc", "id"))[0],
        key.pseudonym("id", "P-01000")
    );
    // The published copy has no private part, so no key.
    let (code, _, err) = d.run(&["publish", &d.path("f.karc"), "-o", &d.path("p.karc")]);
    assert_eq!(code, 0, "{err}");
    let published = std::fs::read(d.path("p.karc")).unwrap();
    let raw = &sealed.pseudonym_keys[0].1;
    assert!(!published.windows(32).any(|w| w == raw));
}

#[test]
fn a_pseudonym_config_is_refused_with_one_line() {
    let (d, _) = setup();
    let bad = |name: &str, text: &str| -> String {
        let path: PathBuf = d.0.path().join(name);
        std::fs::write(&path, text).unwrap();
        let (code, _, err) = d.run(&[
            "pack",
            "-c",
            path.to_str().unwrap(),
            &d.path("t.csv"),
            "-o",
            &d.path("x.karc"),
            "--no-encryption",
        ]);
        assert_eq!(code, 2, "{err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        err
    };
    let on_a_qi = config(None).replace(
        "name = \"sex\"\nrole = \"quasi\"",
        "name = \"sex\"\nrole = \"quasi\"\npseudonym = true",
    );
    let err = bad("qi.toml", &on_a_qi);
    assert!(
        err.contains("pseudonym is for an identifier column"),
        "{err}"
    );
    let err = bad("missing.toml", &config(Some("nowhere.key")));
    assert!(err.contains("nowhere.key"), "{err}");
    std::fs::write(d.path("short.key"), b"0123456789").unwrap();
    let err = bad("short.toml", &config(Some("short.key")));
    assert!(err.contains("expected 32 bytes, found 10"), "{err}");
    assert!(!Path::new(&d.path("x.karc")).exists());
}

/// Issue 30: `karc anonymize` left pseudonymized identifiers out, where a
/// pack publishes them. With a kept key its release equals the export of a
/// pack byte for byte; with a fresh key it still shows pseudonyms (drawn
/// for that release, kept nowhere), never the identifiers.
#[test]
fn anonymize_releases_the_pseudonyms_a_pack_publishes() {
    let (d, originals) = setup();
    let (code, _, err) = d.run(&["keygen", "--pseudonym", "-o", &d.path("pseudonym.key")]);
    assert_eq!(code, 0, "{err}");
    d.pack("kept.toml", "a.karc");
    let (code, _, err) = d.run(&["export", &d.path("a.karc"), "-o", &d.path("e.csv")]);
    assert_eq!(code, 0, "{err}");
    for (config, out) in [("kept.toml", "r.csv"), ("fresh.toml", "f.csv")] {
        let (code, _, err) = d.run(&[
            "anonymize",
            "-c",
            &d.path(config),
            &d.path("t.csv"),
            "-o",
            &d.path(out),
        ]);
        assert_eq!(code, 0, "{err}");
    }
    let release = std::fs::read_to_string(d.path("r.csv")).unwrap();
    assert_eq!(release, std::fs::read_to_string(d.path("e.csv")).unwrap());
    let fresh = std::fs::read_to_string(d.path("f.csv")).unwrap();
    assert!(fresh.starts_with("id,email,zip,sex,disease\n"), "{fresh}");
    assert_ne!(fresh, release);
    for value in &originals {
        assert!(!fresh.contains(value.as_str()), "{value} released");
        assert!(!release.contains(value.as_str()), "{value} released");
    }
}

/// A sealed file restores its pseudonymized identifiers from the private
/// part, not from the pseudonyms its release shows in the same column
/// (the restore decodes the released columns while the file is checked).
#[test]
fn a_sealed_file_restores_the_identifiers_behind_its_pseudonyms() {
    let (d, _) = setup();
    let identity = crate::common::fixture("archive/keys/identity.txt");
    let identity = identity.to_str().unwrap();
    let (code, _, err) = d.run(&[
        "pack",
        "-c",
        &d.path("fresh.toml"),
        &d.path("t.csv"),
        "-o",
        &d.path("s.karc"),
        "-r",
        crate::common::TEST_RECIPIENT,
    ]);
    assert_eq!(code, 0, "{err}");
    let out = d.path("s.csv");
    let (code, _, err) = d.run(&["restore", &d.path("s.karc"), "-i", identity, "-o", &out]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        std::fs::read(&out).unwrap(),
        std::fs::read(d.path("t.csv")).unwrap()
    );
}
