//! Signed archives (issue 31): `keygen --signing`, `pack --sign`, `sign`,
//! `verify/restore/export --signer`, and everything that must fail: every
//! section type forged with its CRCs recomputed, a signature moved onto
//! another file, an unsigned file, another key. The detached signature is
//! checked by Debian's `minisign` too.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Output;

use karc::archive::format::{self, SectionKind};

use crate::common::{fixture, karc, outcome};

/// Every output of a run, to be searched for secret material.
#[derive(Default)]
struct Transcript(String);

impl Transcript {
    /// Runs `karc args`, keeps its outputs, returns its exit code.
    fn run(&mut self, args: &[&str]) -> (i32, String, String) {
        self.keep(karc(args))
    }

    fn keep(&mut self, o: Output) -> (i32, String, String) {
        let (code, out, err) = outcome(&o);
        self.0.push_str(&out);
        self.0.push_str(&err);
        (code, out, err)
    }
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A key pair made by `karc keygen --signing` in `dir`: the secret key's
/// path and its `.pub`'s.
fn keygen(t: &mut Transcript, dir: &Path, name: &str) -> (PathBuf, PathBuf) {
    let key = dir.join(name);
    let (code, out, err) = t.run(&["keygen", "--signing", "-o", s(&key)]);
    assert_eq!(code, 0, "{err}");
    let public = dir.join(format!("{name}.pub"));
    let text = std::fs::read_to_string(&public).unwrap();
    assert_eq!(
        text.lines().nth(1),
        Some(out.trim()),
        "the public line is printed"
    );
    (key, public)
}

/// The secret key file's key line: what must never show in any output.
fn secret_line(key: &Path) -> String {
    let text = std::fs::read_to_string(key).unwrap();
    text.lines().nth(1).unwrap().to_owned()
}

/// Adult packed with `--sign key` (unencrypted, so a restore needs no key).
fn signed_adult(t: &mut Transcript, dir: &Path, key: &Path) -> PathBuf {
    let out = dir.join("adult.karc");
    let (code, _, err) = t.run(&[
        "pack",
        "-c",
        s(&fixture("adult/adult.toml")),
        s(&fixture("adult/adult.csv")),
        "-o",
        s(&out),
        "--no-encryption",
        "--sign",
        s(key),
    ]);
    assert_eq!(code, 0, "{err}");
    out
}

#[test]
fn a_publisher_signs_and_a_third_party_verifies_the_archive_and_its_published_copy() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = Transcript::default();
    let (key, public) = keygen(&mut t, dir.path(), "publisher.key");
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&key), 0o600, "the secret key is its owner's only");
    assert_eq!(mode(&public), 0o644);
    let archive = signed_adult(&mut t, dir.path(), &key);
    let published = dir.path().join("published.karc");
    let (code, _, err) = t.run(&["publish", s(&archive), "-o", s(&published)]);
    assert_eq!(code, 0, "{err}");
    for file in [&archive, &published] {
        let (code, out, err) = t.run(&["verify", s(file), "--signer", s(&public)]);
        assert_eq!(code, 0, "{err}");
        assert!(out.contains("signature: valid, by key id"), "{out}");
        assert_eq!(
            out.contains("private part is absent"),
            file == &published,
            "{out}"
        );
        // The key's base64 line serves as well as its file.
        let line = std::fs::read_to_string(&public).unwrap();
        let line = line.lines().nth(1).unwrap();
        assert_eq!(t.run(&["verify", s(file), "--signer", line]).0, 0);
        // Without a key: said, not checked.
        let (_, out, _) = t.run(&["inspect", s(file)]);
        assert!(out.contains("not checked against a key you trust"), "{out}");
        let (_, json, _) = t.run(&["verify", s(file), "--json"]);
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["archive"]["signature"]["checked"], false);
    }
    // restore --signer: the original byte for byte.
    let restored = dir.path().join("restored.csv");
    let (code, _, err) = t.run(&[
        "restore",
        s(&archive),
        "-o",
        s(&restored),
        "--signer",
        s(&public),
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        std::fs::read(&restored).unwrap(),
        std::fs::read(fixture("adult/adult.csv")).unwrap()
    );
    let exported = dir.path().join("release.csv");
    let args = [
        "export",
        s(&published),
        "-o",
        s(&exported),
        "--signer",
        s(&public),
    ];
    assert_eq!(t.run(&args).0, 0);
    assert_secret_never_shown(&t, &key);
}

/// No output of any command holds the secret key's line, or any piece of
/// it (16 characters, 12 bytes) that is not also in the public key (which
/// the secret key file holds too) or zeros (an unprotected key's salt).
fn assert_secret_never_shown(t: &Transcript, key: &Path) {
    let secret = secret_line(key);
    let mut public = key.as_os_str().to_owned();
    public.push(".pub");
    let public = std::fs::read_to_string(public).unwrap();
    let mut checked = 0;
    for at in (0..secret.len() - 16).step_by(4) {
        let piece = &secret[at..at + 16];
        if public.contains(piece) || piece.contains("AAAA") {
            continue;
        }
        checked += 1;
        assert!(
            !t.0.contains(piece),
            "secret material in an output: {piece}"
        );
    }
    assert!(checked >= 10, "the seed's pieces were looked for");
}

#[test]
fn unsigned_files_other_keys_and_restores_without_a_signature_fail_with_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = Transcript::default();
    let (key, public) = keygen(&mut t, dir.path(), "a.key");
    let (_, other) = keygen(&mut t, dir.path(), "b.key");
    let plain = fixture("archive/valid/plain_small.karc");
    let (code, _, err) = t.run(&["verify", s(&plain), "--signer", s(&public)]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("unsigned"), "{err}");
    let out = dir.path().join("out.csv");
    let (code, _, err) = t.run(&["restore", s(&plain), "-o", s(&out), "--signer", s(&public)]);
    assert_eq!(code, 1, "{err}");
    assert!(!out.exists(), "nothing written from an unsigned file");
    let (code, _, _) = t.run(&["export", s(&plain), "-o", s(&out), "--signer", s(&public)]);
    assert_eq!(code, 1);
    assert!(!out.exists());
    let signed = dir.path().join("signed.karc");
    let args = ["sign", s(&plain), "--key", s(&key), "-o", s(&signed)];
    assert_eq!(t.run(&args).0, 0);
    let (code, _, err) = t.run(&["verify", s(&signed), "--signer", s(&other)]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("none of the keys given"), "{err}");
    // Either of two keys passes.
    let args = [
        "verify",
        s(&signed),
        "--signer",
        s(&other),
        "--signer",
        s(&public),
    ];
    assert_eq!(t.run(&args).0, 0);
    // Signing again replaces the signature: one SIGNATURE section.
    let again = dir.path().join("again.karc");
    let args = ["sign", s(&signed), "--key", s(&key), "-o", s(&again)];
    assert_eq!(t.run(&args).0, 0);
    let bytes = std::fs::read(&again).unwrap();
    let c = format::parse(&again, &bytes).unwrap();
    let signatures = (c.entries.iter()).filter(|e| e.kind() == Some(SectionKind::Signature));
    assert_eq!(signatures.count(), 1);
    assert_secret_never_shown(&t, &key);
}

/// `bytes` with one byte of section `i` changed, its CRC and the table's
/// recomputed (what anyone can do without a key).
fn forge(bytes: &[u8], i: usize) -> Option<Vec<u8>> {
    let c = format::parse(Path::new("f"), bytes).unwrap();
    let e = c.entries[i];
    if e.length == 0 {
        return None;
    }
    let mut out = bytes.to_vec();
    let at = e.offset as usize + e.length as usize / 2;
    out[at] ^= 0x01;
    let crc = format::crc32(&out[e.range()]);
    let layout = format::EntryLayout::of(c.major);
    let entry = layout.at(i) + layout.crc_at;
    out[entry..entry + 4].copy_from_slice(&crc.to_le_bytes());
    format::reseal_table(&mut out);
    Some(out)
}

#[test]
fn every_section_type_forged_with_its_crcs_recomputed_fails_verify_signer() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = Transcript::default();
    let key = fixture("archive/keys/signing_test.key");
    let public = fixture("archive/keys/signing_test.key.pub");
    let mut types = std::collections::BTreeSet::new();
    // Between them: META, HIERARCHIES, ARROW_SCHEMA, PRIVACY_MODELS,
    // ROW_GROUPS, QI_CLASSES, COLUMN, SIGNATURE, COLUMN_CHECKS, both private
    // sections.
    for name in [
        "models_small",
        "streamed_small_groups",
        "arrow_small_parquet",
        "sealed_small_x25519",
    ] {
        let signed = dir.path().join(format!("{name}.karc"));
        let source = fixture(&format!("archive/valid/{name}.karc"));
        let args = ["sign", s(&source), "--key", s(&key), "-o", s(&signed)];
        assert_eq!(t.run(&args).0, 0, "{name}");
        assert_eq!(t.run(&["verify", s(&signed), "--signer", s(&public)]).0, 0);
        let bytes = std::fs::read(&signed).unwrap();
        let c = format::parse(&signed, &bytes).unwrap();
        for (i, e) in c.entries.iter().enumerate() {
            let Some(forged) = forge(&bytes, i) else {
                continue;
            };
            types.insert(e.code);
            let path = dir.path().join(format!("{name}_{i}.karc"));
            std::fs::write(&path, &forged).unwrap();
            let (code, _, err) = t.run(&["verify", s(&path), "--signer", s(&public)]);
            assert_eq!(code, 1, "{name} section {i} (type {}): {err}", e.code);
            // A restore checks the signature before it decodes anything.
            let out = dir.path().join("r.csv");
            let args = ["restore", s(&path), "-o", s(&out), "--signer", s(&public)];
            assert_ne!(t.run(&args).0, 0);
            assert!(!out.exists());
        }
    }
    assert_eq!(
        types.into_iter().collect::<Vec<_>>(),
        vec![1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 17],
        "every section type was forged"
    );
    assert_secret_never_shown(&t, &key);
}

#[test]
fn a_signature_moved_onto_another_file_fails() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = Transcript::default();
    let key = fixture("archive/keys/signing_test.key");
    let public = fixture("archive/keys/signing_test.key.pub");
    let sign = |t: &mut Transcript, name: &str| {
        let out = dir.path().join(format!("{name}.karc"));
        let source = fixture(&format!("archive/valid/{name}.karc"));
        assert_eq!(
            t.run(&["sign", s(&source), "--key", s(&key), "-o", s(&out)])
                .0,
            0
        );
        std::fs::read(out).unwrap()
    };
    let donor = sign(&mut t, "plain_small");
    // Same sections, another release (its classes coded otherwise).
    let target = std::fs::read(fixture("archive/valid/classes_rans_small.karc")).unwrap();
    let sections = |bytes: &[u8]| -> Vec<(u16, u16, Vec<u8>)> {
        let c = format::parse(Path::new("m"), bytes).unwrap();
        (c.entries.iter())
            .map(|e| (e.code, e.flags, bytes[e.range()].to_vec()))
            .collect()
    };
    let signature = sections(&donor)
        .into_iter()
        .find(|(code, _, _)| *code == SectionKind::Signature.code())
        .unwrap();
    let mut moved = sections(&target);
    let at = moved.len() - 1; // before the private part
    moved.insert(at, signature);
    let raw: Vec<(u16, u16, &[u8])> = moved.iter().map(|(c, f, b)| (*c, *f, &b[..])).collect();
    let bytes = format::assemble_raw(format::VERSION_MAJOR, format::VERSION_MINOR, &raw);
    let path = dir.path().join("moved.karc");
    std::fs::write(&path, &bytes).unwrap();
    // It opens (the section is well formed), and fails the check.
    assert_eq!(t.run(&["verify", s(&path)]).0, 0);
    let (code, _, err) = t.run(&["verify", s(&path), "--signer", s(&public)]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("not the section that was signed"), "{err}");
    // A signed published copy given a private part back: the private part
    // was not signed.
    let published = dir.path().join("published.karc");
    let signed_plain = dir.path().join("plain_small.karc");
    assert_eq!(
        t.run(&["publish", s(&signed_plain), "-o", s(&published)]).0,
        0
    );
    let mut copy = sections(&std::fs::read(&published).unwrap());
    let private = sections(&donor).pop().unwrap();
    copy.push(private);
    let raw: Vec<(u16, u16, &[u8])> = copy.iter().map(|(c, f, b)| (*c, *f, &b[..])).collect();
    let bytes = format::assemble_raw(format::VERSION_MAJOR, format::VERSION_MINOR, &raw);
    std::fs::write(&path, &bytes).unwrap();
    assert_eq!(t.run(&["verify", s(&path), "--signer", s(&public)]).0, 0);
    // The copy's signature was made with the private part: it is the same
    // one, so it passes; a different private part does not.
    let other_private = sections(&sign(&mut t, "plain_small_paper")).pop().unwrap();
    *copy.last_mut().unwrap() = other_private;
    let raw: Vec<(u16, u16, &[u8])> = copy.iter().map(|(c, f, b)| (*c, *f, &b[..])).collect();
    let bytes = format::assemble_raw(format::VERSION_MAJOR, format::VERSION_MINOR, &raw);
    std::fs::write(&path, &bytes).unwrap();
    let (code, _, err) = t.run(&["verify", s(&path), "--signer", s(&public)]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("private part is not the one that was signed"),
        "{err}"
    );
}

#[test]
fn a_detached_signature_is_checked_by_minisign_and_refused_on_any_other_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = Transcript::default();
    let key = fixture("archive/keys/signing_test.key");
    let public = fixture("archive/keys/signing_test.key.pub");
    let file = dir.path().join("small.karc");
    std::fs::copy(fixture("archive/valid/plain_small.karc"), &file).unwrap();
    let (code, _, err) = t.run(&["sign", s(&file), "--key", s(&key), "--detached"]);
    assert_eq!(code, 0, "{err}");
    let sig = dir.path().join("small.karc.minisig");
    let text = std::fs::read_to_string(&sig).unwrap();
    assert!(text.contains("trusted comment: karc format:"), "{text}");
    let other = dir.path().join("other.karc");
    std::fs::copy(fixture("archive/valid/plain_small_paper.karc"), &other).unwrap();
    let minisign = |m: &Path| {
        std::process::Command::new("minisign")
            .args(["-V", "-q", "-m", s(m), "-x", s(&sig), "-p", s(&public)])
            .status()
    };
    match minisign(&file) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            // .ci/run installs Debian's minisign; a machine without it skips.
            eprintln!(
                "note: minisign is not installed here: its check of the detached signature is skipped"
            );
        }
        status => {
            assert!(
                status.unwrap().success(),
                "minisign accepts karc's signature"
            );
            assert!(
                !minisign(&other).unwrap().success(),
                "and refuses it on another file"
            );
        }
    }
    assert_secret_never_shown(&t, &key);
}

#[test]
fn protected_keys_need_their_passphrase_and_hostile_key_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = Transcript::default();
    let pass = dir.path().join("pass.txt");
    std::fs::write(&pass, "a signing passphrase\n").unwrap();
    let key = dir.path().join("p.key");
    let args = [
        "keygen",
        "--signing",
        "-o",
        s(&key),
        "--passphrase-file",
        s(&pass),
    ];
    let (code, _, err) = t.run(&args);
    assert_eq!(code, 0, "{err}");
    // Never overwritten without --force.
    let (code, _, err) = t.run(&args);
    assert_eq!(code, 2);
    assert!(err.contains("never overwritten without --force"), "{err}");
    let file = fixture("archive/valid/plain_small.karc");
    let signed = dir.path().join("s.karc");
    let sign = [
        "sign",
        s(&file),
        "--key",
        s(&key),
        "-o",
        s(&signed),
        "--passphrase-file",
        s(&pass),
    ];
    let (code, _, err) = t.run(&sign);
    assert_eq!(code, 0, "{err}");
    let public = dir.path().join("p.key.pub");
    assert_eq!(t.run(&["verify", s(&signed), "--signer", s(&public)]).0, 0);
    let wrong = dir.path().join("wrong.txt");
    std::fs::write(&wrong, "not it\n").unwrap();
    let mut bad = sign;
    bad[7] = s(&wrong);
    let (code, _, err) = t.run(&bad);
    assert_eq!(code, 2);
    assert!(err.contains("wrong passphrase"), "{err}");
    // A key file asking scrypt for 2^40 bytes: refused before scrypt runs.
    let text = std::fs::read_to_string(&key).unwrap();
    let mut raw = base64_decode(text.lines().nth(1).unwrap());
    raw[46..54].copy_from_slice(&(1u64 << 40).to_le_bytes());
    raw[38..46].copy_from_slice(&(1u64 << 40).to_le_bytes());
    let hostile = dir.path().join("hostile.key");
    std::fs::write(
        &hostile,
        format!("untrusted comment: x\n{}\n", base64_encode(&raw)),
    )
    .unwrap();
    let mut args = sign;
    args[3] = s(&hostile);
    let (code, _, err) = t.run(&args);
    assert_eq!(code, 2);
    assert!(err.contains("above karc's limits"), "{err}");
    assert_secret_never_shown(&t, &key);
    assert!(!t.0.contains("a signing passphrase"));
}

fn base64_decode(line: &str) -> Vec<u8> {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD
        .decode(line)
        .unwrap()
}

fn base64_encode(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

#[test]
fn a_streamed_pack_is_signed_as_it_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = Transcript::default();
    let key = fixture("archive/keys/signing_test.key");
    let public = fixture("archive/keys/signing_test.key.pub");
    let csv = dir.path().join("head.csv");
    let adult = std::fs::read_to_string(fixture("adult/adult.csv")).unwrap();
    let head: Vec<&str> = adult.lines().take(400).collect();
    std::fs::write(&csv, head.join("\n") + "\n").unwrap();
    let out = dir.path().join("stream.karc");
    let config = fixture("adult/adult.toml");
    let (code, _, err) = t.run(&[
        "pack",
        "--stream",
        "-a",
        "fads",
        "-k",
        "5",
        "--delay",
        "50",
        "--group-rows",
        "100",
        "-c",
        s(&config),
        s(&csv),
        "-o",
        s(&out),
        "--no-encryption",
        "--sign",
        s(&key),
    ]);
    assert_eq!(code, 0, "{err}");
    let (code, out_text, err) = t.run(&["verify", s(&out), "--signer", s(&public)]);
    assert_eq!(code, 0, "{err}");
    assert!(out_text.contains("signature: valid"), "{out_text}");
    let restored = dir.path().join("r.csv");
    let args = [
        "restore",
        s(&out),
        "-o",
        s(&restored),
        "--signer",
        s(&public),
    ];
    assert_eq!(t.run(&args).0, 0);
    assert_eq!(
        std::fs::read(&restored).unwrap(),
        std::fs::read(&csv).unwrap()
    );
    assert_secret_never_shown(&t, &key);
}

#[test]
fn the_signed_vectors_verify_or_are_refused_as_the_readme_says() {
    let public = fixture("archive/keys/signing_test.key.pub");
    let expected = [
        ("signed_small.karc", 0, ""),
        ("signed_published_small.karc", 0, ""),
        (
            "reject_bad_signature.karc",
            1,
            "the signature does not verify",
        ),
        (
            "reject_edited_section.karc",
            1,
            "section 4 (column) is not the section that was signed",
        ),
        (
            "reject_moved_signature.karc",
            1,
            "the private part is not the one that was signed",
        ),
    ];
    let mut names: Vec<String> = std::fs::read_dir(fixture("archive/signed"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    let mut listed: Vec<String> = expected.iter().map(|(n, _, _)| n.to_string()).collect();
    listed.sort();
    assert_eq!(names, listed, "every signed vector has its entry here");
    for (name, code, error) in expected {
        let path = fixture(&format!("archive/signed/{name}"));
        // Each opens and verifies without a key.
        assert_eq!(outcome(&karc(&["verify", s(&path)])).0, 0, "{name}");
        let (found, _, err) = outcome(&karc(&["verify", s(&path), "--signer", s(&public)]));
        assert_eq!(found, code, "{name}: {err}");
        assert!(err.contains(error), "{name}: {err}");
    }
    // The signed file restores to the small table, checked first.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("small.csv");
    let path = fixture("archive/signed/signed_small.karc");
    let args = ["restore", s(&path), "-o", s(&out), "--signer", s(&public)];
    assert_eq!(outcome(&karc(&args)).0, 0);
    let original = std::fs::read(fixture("archive/source/small.csv")).unwrap();
    assert_eq!(std::fs::read(&out).unwrap(), original);
}
