//! The entry points of the fuzz targets (`fuzz/`), shared with the stable
//! regression test that replays their crash files (`tests/karc/fuzzed.rs`):
//! each reads untrusted bytes the way the program does and must return,
//! whatever the bytes, without a panic and in memory the input can back.
//! Errors are the expected outcome; what they say is checked elsewhere.

use std::path::Path;

use crate::archive::reader::{Archive, ClaimCheck};
use crate::config::Config;
use crate::hierarchy::Hierarchy;
use crate::table::{CsvOptions, Table};

/// An archive from bytes: opened without the claim check (so that a mutant
/// whose claim no longer holds still reaches the decoders), the claim
/// re-checked, the release exported, the file inspected and restored (an
/// unsealed private part), as `verify`, `export`, `inspect` and `restore`
/// do.
pub fn archive(data: &[u8]) {
    archive_as_is(data);
    if let Some(resealed) = crcs_recomputed(data) {
        archive_as_is(&resealed);
    }
}

/// `data` with every section's CRC and the table's recomputed (where the
/// table lies inside it): a mutant that the CRCs would stop reaches the
/// decoders, as a forger's file does.
fn crcs_recomputed(data: &[u8]) -> Option<Vec<u8>> {
    use crate::archive::format::{EntryLayout, HEADER_LEN, crc32, reseal_table};
    let major = u16::from_le_bytes(data.get(8..10)?.try_into().ok()?);
    let layout = EntryLayout::of(major);
    let count = u32::from_le_bytes(data.get(16..20)?.try_into().ok()?) as usize;
    let table_end = HEADER_LEN.checked_add(layout.len.checked_mul(count)?)?;
    if table_end > data.len() {
        return None;
    }
    let mut out = data.to_vec();
    // A 2.0 section starts where the one before it ends (the first at
    // the table's end); a 1.0 entry states its offset.
    let mut next = table_end as u64;
    for e in 0..count {
        let at = layout.at(e);
        let field = |o: usize, width: usize| {
            let mut le = [0u8; 8];
            le[..width].copy_from_slice(&data[at + o..at + o + width]);
            u64::from_le_bytes(le)
        };
        let offset = layout.offset_at.map_or(next, |o| field(o, 8));
        let length = field(layout.length_at, layout.length_width);
        next = offset.saturating_add(length);
        if let Some(body) = usize::try_from(offset)
            .ok()
            .zip(usize::try_from(length).ok())
            .and_then(|(o, l)| data.get(o..o.checked_add(l)?))
        {
            let crc = layout.crc_at;
            out[at + crc..at + crc + 4].copy_from_slice(&crc32(body).to_le_bytes());
        }
    }
    reseal_table(&mut out);
    Some(out)
}

fn archive_as_is(data: &[u8]) {
    let path = Path::new("fuzz.karc");
    let Ok(archive) = Archive::from_bytes(path, data.to_vec(), ClaimCheck::Skip) else {
        return;
    };
    let _ = archive.check_claim();
    let _ = archive.export_csv(&mut std::io::sink());
    let _ = archive.inspect(None);
    let _ = archive.restore(None);
    let _ = archive.published();
    // The SIGNATURE section, checked against the test key of the vectors.
    let _ = archive.verify_signature(&[test_signer()]);
}

/// The public key of `fixtures/archive/keys/signing_test.key` (test only),
/// which signed the vectors the corpus is seeded with.
fn test_signer() -> crate::minisign::PublicKey {
    crate::minisign::PublicKey::from_line(
        "RWQmoMmWBK3z1+78ihvFvxc71JBCKmTV9XLKem/TPV2rn2ah+z29gbc6",
        "test key",
    )
    .expect("the test key's line")
}

/// minisign's untrusted texts: the bytes as a `SIGNATURE` section, a
/// `.minisig` file, a public key file and a secret key file (without a
/// passphrase: scrypt is not run, and its work factors are checked
/// before it would be), as `verify --signer` and `--sign` read them.
pub fn signature(data: &[u8]) {
    use crate::minisign::{Minisig, PublicKey, SecretKey};
    if let Ok(embedded) = crate::archive::signature::parse_section(0, data) {
        let _ = embedded.status();
    }
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(sig) = Minisig::parse(text, "fuzz.minisig") {
        let _ = sig.verify(&test_signer(), &[0; 64]);
        let _ = Minisig::parse(&sig.to_text(), "again").expect("a parsed signature reads back");
    }
    let _ = PublicKey::from_file_text(text, "fuzz.pub");
    let _ = SecretKey::from_file_text(&text.to_owned().into(), None, "fuzz.key");
}

/// A table from CSV bytes; the first byte picks the options (header, trim,
/// delimiter detected or given).
pub fn csv(data: &[u8]) {
    let Some((&first, bytes)) = data.split_first() else {
        return;
    };
    let options = CsvOptions {
        delimiter: [None, Some(b','), Some(b';'), Some(b'\t')][usize::from(first & 3)],
        header: first & 4 != 0,
        trim: first & 8 != 0,
    };
    let _ = Table::from_bytes(Path::new("fuzz.csv"), bytes, &options);
}

/// A config from TOML text, and the options derived from it.
pub fn config(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(c) = Config::parse(Path::new("fuzz.toml"), text) {
        let _ = c.csv_options();
        for column in &c.columns {
            let _ = c.hierarchy_path(column);
        }
    }
}

/// A hierarchy from ARX CSV bytes, then (when valid) through its archive
/// record and its `HIERARCHIES` section and back; and the same bytes as an
/// archive's `HIERARCHIES` section.
pub fn hierarchy(data: &[u8]) {
    use crate::archive::meta;
    let path = Path::new("fuzz.csv");
    if let Ok(h) = Hierarchy::from_bytes(path, data) {
        let record = meta::HierarchyRecord::from_hierarchy(&h);
        let section = meta::hierarchies_to_bytes(std::slice::from_ref(&record))
            .expect("a hierarchy read from memory fits the section");
        let stored = meta::hierarchies_from_bytes(&section).expect("the section reads back");
        assert_eq!(
            stored,
            std::slice::from_ref(&record),
            "the section keeps the record"
        );
        let back = record
            .into_hierarchy(path)
            .expect("a valid hierarchy's record rebuilds it");
        assert_eq!(back.to_tree(), h.to_tree(), "the record keeps the tree");
        pruned(&h, data);
    }
    if let Ok(records) = meta::hierarchies_from_bytes(data) {
        for r in records {
            // As a 2.0 public record, and as a 1.0 (whole) one.
            let _ = crate::hierarchy::Pruned::from_tree(r.levels.clone(), r.parents.clone());
            let _ = r.into_hierarchy(path);
        }
    }
}

/// A Parquet or Arrow IPC table (the first byte picks which, the rest is the
/// file) read as karc reads a `.parquet` or `.arrow` input: every outcome is
/// a table or an error, never a panic or an abort (issue 32).
pub fn arrow_table(data: &[u8]) {
    let Some((&first, bytes)) = data.split_first() else {
        return;
    };
    let format = if first & 1 == 0 {
        crate::arrow::TableFormat::Ipc
    } else {
        crate::arrow::TableFormat::Parquet
    };
    let _ = crate::arrow::read_table_bytes(Path::new("fuzz.arrow"), bytes.to_vec(), format);
}

/// `h` pruned to nodes the bytes pick (node `n` of level `l` used when a
/// byte's bit says so): the public tree must read back, need every node,
/// and map back to `h`'s nodes as pruning numbered them (FORMAT §6).
fn pruned(h: &Hierarchy, data: &[u8]) {
    use crate::hierarchy::{NodeLabels, Pruned};
    let mut bits = data
        .iter()
        .cycle()
        .flat_map(|b| (0..8).map(move |i| b >> i & 1 == 1));
    let used: Vec<Vec<bool>> = (0..=h.height())
        .map(|l| {
            (0..h.nodes(l))
                .map(|_| l > 0 && l < h.height() && bits.next().unwrap_or(false))
                .collect()
        })
        .collect();
    let (p, numbers) = Pruned::prune(h, &used);
    let (levels, parents) = p.to_tree();
    let back = Pruned::from_tree(levels, parents).expect("a pruned tree reads back");
    assert_eq!(back, p);
    let mut public_used: Vec<Vec<bool>> =
        (0..=p.height()).map(|l| vec![false; p.nodes(l)]).collect();
    for (l, level) in used.iter().enumerate() {
        for (n, _) in level.iter().enumerate().filter(|(_, u)| **u) {
            public_used[l][numbers[l][n] as usize] = true;
        }
    }
    assert_eq!(
        p.unneeded_node(&public_used),
        None,
        "pruning keeps only needed nodes"
    );
    let full = p
        .full_numbers(h)
        .expect("a pruned tree maps to its whole one");
    for (l, level) in full.iter().enumerate() {
        for (public, &whole) in level.iter().enumerate() {
            assert_eq!(numbers[l][whole as usize] as usize, public);
        }
    }
}
