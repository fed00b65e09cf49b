//! The one pack pipeline: a batch pack (one row group) and a streamed pack
//! (a row group per block of rows) go through the same writer, so the same
//! rows restore byte for byte either way, and how a stream is cut into
//! groups changes the file's layout, never its release.

use std::path::Path;

use karc::archive::format::{self, SectionKind};
use karc::archive::reader::{Archive, ClaimCheck};
use karc::archive::seal::{self, Seal};
use karc::archive::stream_pack::{self, StreamPackOptions};
use karc::archive::writer::{self, PackOptions};
use karc::codec::DiffMode;
use karc::config::Config;
use karc::io::{Access, Output};
use karc::stream::{StreamAlgorithm, StreamParams};

use crate::common::{fixture, karc, outcome};

const RECIPIENT: &str = "age1rncunzzu2rfp6u4lk3vyrlxg662esyasypj5swz2jsvt9t2t04as0kjg76";

/// The first `rows` rows of raw Adult without `?` (a streamed QI cannot be
/// missing), its spaces after the commas kept (learnt as padding), the
/// last row without its line feed.
fn adult_rows(rows: usize) -> String {
    let text = std::fs::read_to_string(fixture("adult-raw/adult.csv")).unwrap();
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| !l.contains('?'))
        .take(rows + 1)
        .collect();
    lines.join("\n")
}

fn config() -> Config {
    Config::load(&fixture("adult-raw/adult-stream.toml")).unwrap()
}

/// `pack_stream` of `csv` with FADS (k = 5, delay 200) in groups of
/// `group_rows`, sealed as `seal` says.
fn stream(csv: &Path, out: &Path, group_rows: usize, seal: &Seal) -> Vec<u8> {
    let mut params = StreamParams::new(5, 200);
    params.seed = 7;
    let output = Output::new(out, Access::Private).unwrap();
    let report = stream_pack::pack_stream(
        &config(),
        csv,
        &output,
        &StreamPackOptions {
            mode: DiffMode::default(),
            seal,
            algorithm: StreamAlgorithm::Fads,
            params,
            pid: None,
            group_rows,
            sign: None,
        },
    )
    .unwrap();
    let bytes = std::fs::read(out).unwrap();
    assert_eq!(report.file_bytes, bytes.len() as u64);
    assert_eq!(report.original_len, std::fs::metadata(csv).unwrap().len());
    bytes
}

fn kinds(bytes: &[u8]) -> Vec<Option<SectionKind>> {
    let container = format::parse(Path::new("x.karc"), bytes).unwrap();
    container.entries.iter().map(|e| e.kind()).collect()
}

#[test]
fn batch_and_stream_of_the_same_rows_restore_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let text = adult_rows(1_500);
    let csv = dir.path().join("adult.csv");
    std::fs::write(&csv, &text).unwrap();
    let recipient = seal::parse_recipient(RECIPIENT, "test").unwrap();
    let sealed = Seal::Recipients(vec![recipient]);
    let key = seal::read_identity_file(&fixture("archive/keys/identity.txt")).unwrap();

    let mut batch_config = config();
    batch_config.algorithm.name = "mondrian".to_owned();
    batch_config.privacy.k = Some(5);
    let options = PackOptions {
        groups: Default::default(),
        mode: DiffMode::default(),
        seal: &sealed,
    };
    let batch = writer::pack_file(&batch_config, &csv, &options).unwrap();
    let streamed = stream(&csv, &dir.path().join("s.karc"), 400, &sealed);
    for (what, bytes, groups) in [("batch", batch, 1), ("stream", streamed, 4)] {
        let a = Archive::from_bytes(Path::new(what), bytes, ClaimCheck::Enforce).unwrap();
        assert_eq!(a.inspect(None).unwrap().row_groups, groups, "{what}");
        assert_eq!(a.rows(), 1_500, "{what}");
        assert_eq!(a.restore(Some(&key)).unwrap(), text.as_bytes(), "{what}");
    }
}

#[test]
fn a_stream_in_many_groups_has_the_release_of_one_group() {
    let dir = tempfile::tempdir().unwrap();
    let text = adult_rows(1_000) + "\n";
    let csv = dir.path().join("adult.csv");
    std::fs::write(&csv, &text).unwrap();
    let one = stream(&csv, &dir.path().join("one.karc"), 5_000, &Seal::None);
    let many = stream(&csv, &dir.path().join("many.karc"), 130, &Seal::None);
    // One group: no ROW_GROUPS, an unframed private part (FORMAT.md §4).
    assert!(!kinds(&one).contains(&Some(SectionKind::RowGroups)));
    // After the derived-column check's section (FORMAT.md §5.2).
    assert_eq!(kinds(&many)[2], Some(SectionKind::ColumnChecks));
    assert_eq!(kinds(&many)[3], Some(SectionKind::RowGroups));
    let one = Archive::from_bytes(Path::new("one"), one, ClaimCheck::Enforce).unwrap();
    let many = Archive::from_bytes(Path::new("many"), many, ClaimCheck::Enforce).unwrap();
    let (i1, im) = (one.inspect(None).unwrap(), many.inspect(None).unwrap());
    assert_eq!((i1.row_groups, im.row_groups), (1, 8));
    assert_eq!(i1.meta, im.meta, "the same claim, algorithm and metrics");
    assert_eq!(
        one.release_columns().unwrap(),
        many.release_columns().unwrap()
    );
    assert_eq!(one.released(), many.released());
    assert_eq!(one.restore(None).unwrap(), text.as_bytes());
    assert_eq!(many.restore(None).unwrap(), text.as_bytes());
}

/// `karc pack --stream --report-json` writes the report a batch pack
/// writes: the same fields, the stream's figures.
#[test]
fn pack_stream_writes_the_batch_report_schema() {
    let dir = tempfile::tempdir().unwrap();
    let d = |n: &str| dir.path().join(n).display().to_string();
    std::fs::write(d("adult.csv"), adult_rows(600)).unwrap();
    let config = fixture("adult-raw/adult-stream.toml").display().to_string();
    let pack = |extra: &[&str], name: &str| {
        let (report, archive) = (d(&format!("{name}.json")), d(&format!("{name}.karc")));
        let input = d("adult.csv");
        let mut args = vec!["pack", "-c", &config, "-k", "5", "--no-encryption"];
        args.extend_from_slice(extra);
        args.extend([input.as_str(), "-o", &archive, "--report-json", &report]);
        let (code, _, stderr) = outcome(&karc(&args));
        assert_eq!(code, 0, "{stderr}");
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
        json
    };
    let batch = pack(&["-a", "mondrian"], "batch");
    let streamed = pack(
        &["--stream", "--delay", "100", "--group-rows", "250"],
        "stream",
    );
    let keys =
        |v: &serde_json::Value| -> Vec<String> { v.as_object().unwrap().keys().cloned().collect() };
    assert_eq!(keys(&batch), keys(&streamed));
    assert_eq!(streamed["algorithm"], "fads");
    assert_eq!(streamed["rows"], 600);
    assert_eq!(streamed["k"], 5);
    assert!(streamed["classes"].as_u64().unwrap() >= 1);
    assert!(streamed["min_class"].as_u64().unwrap() >= 5);
    assert_eq!(keys(&batch["metrics"]), keys(&streamed["metrics"]));
}

/// The stream writer's bytes are pinned as the batch writer's are
/// (`archive::writer_output_is_pinned_on_adult`): packing the vectors'
/// source as `archive_vectors` does gives the committed
/// `streamed_small_groups.karc` (three groups, framed private part, its
/// sections spooled through scratch files) byte for byte.
#[test]
fn stream_writer_output_is_pinned() {
    let dir = tempfile::tempdir().unwrap();
    let config = Config::load(&fixture("archive/source/small.toml")).unwrap();
    let out = dir.path().join("streamed.karc");
    let mut params = StreamParams::new(2, 3);
    params.seed = 0;
    stream_pack::pack_stream(
        &config,
        &fixture("archive/source/small.csv"),
        &Output::new(&out, Access::Private).unwrap(),
        &StreamPackOptions {
            mode: DiffMode::default(),
            seal: &Seal::None,
            algorithm: StreamAlgorithm::Fads,
            params,
            pid: None,
            group_rows: 2,
            sign: None,
        },
    )
    .unwrap();
    let committed = std::fs::read(fixture("archive/valid/streamed_small_groups.karc")).unwrap();
    assert!(
        std::fs::read(&out).unwrap() == committed,
        "the stream writer's bytes changed"
    );
}
