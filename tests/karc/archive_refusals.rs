//! Archives refused: every flipped byte and truncation, a sealed or public
//! part changed, wrong keys, missing parts and versions, each with its own
//! message, and a streamed or two-thread restore that keeps nothing of a
//! file that fails.

use std::path::Path;

use karc::archive::ArchiveError;
use karc::archive::format::{self, SectionKind};
use karc::archive::reader::{Archive, ClaimCheck};
use karc::archive::seal::{Key, Seal};
use karc::archive::writer::{self, PackOptions};
use karc::codec::DiffMode;
use karc::config::Config;

use crate::archive::{
    archive_error, key_pair, low_cost_passphrase, open, pack, reassemble, restore, sections_of,
    small_table,
};
use crate::common::{fixture, karc, outcome};

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

/// A restore decodes the released columns once, on a second thread while
/// the file is checked, and takes their decoding as the check that each
/// codes its rows: a column blob that does not decode (its layout byte
/// forged, CRCs recomputed) fails an open-and-restore with the error an
/// open gives, sealed or not, and before the private part is read.
#[test]
fn a_column_that_does_not_decode_fails_a_restore_as_an_open() {
    let (config, csv) = small_table();
    let (key, sealed) = key_pair();
    for (seal, key) in [(Seal::None, None), (sealed, Some(&key))] {
        let good = pack(&config, &csv, None, None, DiffMode::default(), &seal);
        let mut sections = sections_of(&good);
        let column = sections
            .iter()
            .position(|(k, _)| *k == SectionKind::Column)
            .expect("a released column");
        // The blob after its row count (one varint byte: a few rows).
        sections[column].1[1] = 0x63;
        let forged = reassemble(&sections);
        let opened = archive_error(open(&forged)).to_string();
        let restored = archive_error(
            Archive::from_bytes_and_restore(Path::new("t.karc"), forged, ClaimCheck::Enforce, key)
                .map(|_| ()),
        )
        .to_string();
        assert_eq!(restored, opened);
        assert!(
            opened.contains("column") && opened.contains("layout"),
            "{opened}"
        );
    }
}
