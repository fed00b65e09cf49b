//! Archive speed against zip, measured in the same run (issue 3's targets):
//! writing the archive (the anonymization excluded; private part sealed for
//! an X25519 recipient) at most half of zip's time on the same CSV, and
//! restoring (open with its integrity and claim checks, unseal, decode,
//! render, SHA-256) no slower than unzip.
//!
//! ```text
//! cargo run --release -p karc-tools --bin bench_archive -- [CONFIG CSV [RUNS]]
//! ```
//! (default: fixtures/adult/adult.toml, fixtures/adult/adult.csv, 9 runs;
//! every figure is the median of the runs, the two sides interleaved.)

use std::io::{Cursor, Read, Write};
use std::path::PathBuf;
use std::time::Instant;

use karc::anonymize::{self, Algorithm};
use karc::archive::reader::{Archive, ClaimCheck};
use karc::archive::seal::{Key, Seal};
use karc::archive::writer::{self, Anonymization, PackOptions};
use karc::codec::DiffMode;
use karc::config::Config;
use karc::dataset::Dataset;
use karc::privacy::PrivacyModel;
use karc::report::Report;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn ms<T>(f: impl FnOnce() -> T) -> (f64, T) {
    let start = Instant::now();
    let out = f();
    (start.elapsed().as_secs_f64() * 1e3, out)
}

fn zip_bytes(name: &str, data: &[u8]) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    w.start_file(name, options).expect("zip entry");
    w.write_all(data).expect("zip write");
    w.finish().expect("zip finish").into_inner()
}

fn unzip_bytes(archive: &[u8]) -> Vec<u8> {
    let mut z = zip::ZipArchive::new(Cursor::new(archive)).expect("zip archive");
    let mut entry = z.by_index(0).expect("zip entry");
    let mut out = Vec::with_capacity(entry.size() as usize);
    entry.read_to_end(&mut out).expect("unzip");
    out
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let config_path = PathBuf::from(
        args.first()
            .map_or("fixtures/adult/adult.toml", String::as_str),
    );
    let csv = PathBuf::from(
        args.get(1)
            .map_or("fixtures/adult/adult.csv", String::as_str),
    );
    let runs: usize = args.get(2).map_or(Ok(9), |r| r.parse())?;

    let mut config = Config::load(&config_path)?;
    config.privacy.k = Some(5);
    config.privacy.constraints.clear();
    let algorithm = Algorithm::from_name(&config.algorithm.name)?;
    let original = std::fs::read(&csv)?;
    let data = Dataset::load(&config, &csv)?;
    let model = PrivacyModel::from_config(&config, &data)?;
    let outcome = anonymize::run(&data, &model, &config.algorithm)?;
    let report = Report::new(
        algorithm,
        config.algorithm.seed,
        &data,
        &model,
        &outcome,
        0.0,
    );
    let a = Anonymization {
        config: &config,
        data: &data,
        model: &model,
        outcome: &outcome,
        report: &report,
    };
    let identity = age::x25519::Identity::generate();
    let seal = Seal::Recipients(vec![identity.to_public()]);
    let key = Key::Identities(vec![Box::new(identity)]);
    let name = csv
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("data.csv");

    println!(
        "{}: {} bytes, {} rows; {} k=5; {runs} runs, medians",
        csv.display(),
        original.len(),
        data.rows(),
        algorithm.name()
    );
    for mode in DiffMode::ALL {
        let options = PackOptions {
            mode: *mode,
            seal: &seal,
        };
        let (mut t_zip, mut t_pack, mut t_load_pack, mut t_unzip, mut t_restore) =
            (vec![], vec![], vec![], vec![], vec![]);
        let mut sizes = (0, 0);
        for _ in 0..runs {
            let (t, z) = ms(|| zip_bytes(name, &original));
            t_zip.push(t);
            let (t, k) = ms(|| writer::pack(&a, &original, &options).expect("pack"));
            t_pack.push(t);
            let (t, _) = ms(|| {
                let data = Dataset::load(&config, &csv).expect("load");
                writer::pack(&Anonymization { data: &data, ..a }, &original, &options)
                    .expect("pack")
            });
            t_load_pack.push(t);
            let (t, u) = ms(|| unzip_bytes(&z));
            t_unzip.push(t);
            assert!(u == original);
            let (t, r) = ms(|| {
                Archive::from_bytes(&PathBuf::from("bench.karc"), k.clone(), ClaimCheck::Enforce)
                    .and_then(|arc| arc.restore(Some(&key)))
                    .expect("restore")
            });
            t_restore.push(t);
            assert!(r == original, "restore differs");
            sizes = (z.len(), k.len());
        }
        let (zip, pack, load_pack) = (median(t_zip), median(t_pack), median(t_load_pack));
        let (unzip, restore) = (median(t_unzip), median(t_restore));
        println!(
            "mode {mode}: zip {} bytes, karc {} bytes (sealed)",
            sizes.0, sizes.1
        );
        println!(
            "  write:   zip {zip:8.2} ms   karc pack {pack:8.2} ms   ratio {:.3} (target <= 0.5)   [with CSV load: {load_pack:.2} ms, ratio {:.3}]",
            pack / zip,
            load_pack / zip
        );
        println!(
            "  restore: unzip {unzip:6.2} ms   karc restore {restore:6.2} ms   ratio {:.3} (target <= 1.0)",
            restore / unzip
        );
    }
    Ok(())
}
