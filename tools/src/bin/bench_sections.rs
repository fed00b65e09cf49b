//! Time and size of the Brotli streams of `META` and `HIERARCHIES`
//! (`karc::archive::compressed`) at quality 11 and at the qualities of
//! larger inputs, on generated hierarchies of 300 to 1M text leaves and
//! `META`s of 100 to 20,000 columns, beside Adult's: what `QUALITIES` (the
//! quality karc writes by size) is chosen from. Prints a Markdown table;
//! medians of several runs (CPU-bound, one thread).
//!
//! ```sh
//! cargo run --release -p karc-tools --bin bench_sections -- [--runs R]
//! ```

use std::path::Path;
use std::time::Instant;

use clap::Parser;
use karc::archive::compressed;
use karc::archive::meta::{self, ColumnMeta, HierarchyRecord, PublicMeta};
use karc::config::{Config, Role, ValueType};
use karc_tools::bench::BoxError;
use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};

#[derive(Debug, Parser)]
#[command(about = "Brotli sections: time and size at quality 11 and at the large inputs' quality")]
struct Args {
    /// Timed runs per input and quality; the median counts.
    #[arg(long, default_value_t = 5)]
    runs: usize,
    /// Inputs above this many bytes are not timed at quality 11 (seconds each).
    #[arg(long, default_value_t = 4 << 20)]
    best_up_to: usize,
    /// Further qualities timed beside 11 (by default those karc writes above 32 KiB).
    #[arg(long, value_delimiter = ',', default_values_t = [5, 3])]
    qualities: Vec<u32>,
}

const WORDS: [&str; 16] = [
    "north", "south", "east", "west", "river", "hill", "park", "lake", "green", "oak", "pine",
    "mill", "bridge", "port", "field", "wood",
];

fn word(rng: &mut ChaCha8Rng) -> &'static str {
    WORDS[(rng.next_u32() % WORDS.len() as u32) as usize]
}

/// A hierarchy of `leaves` text leaves (`Oak hill 01234`), regions of 100
/// leaves, districts of 100 regions, and the root.
fn hierarchy(leaves: usize, rng: &mut ChaCha8Rng) -> HierarchyRecord {
    let leaf_labels: Vec<String> = (0..leaves)
        .map(|i| {
            let (a, b) = (word(rng), word(rng));
            format!(
                "{}{} {b} {:05}-{i}",
                a[..1].to_uppercase(),
                &a[1..],
                rng.next_u32() % 100_000
            )
        })
        .collect();
    let regions = leaves.div_ceil(100);
    let districts = regions.div_ceil(100);
    HierarchyRecord {
        levels: vec![
            leaf_labels,
            (0..regions).map(|r| format!("Region {r}")).collect(),
            (0..districts).map(|d| format!("District {d}")).collect(),
            vec!["*".to_owned()],
        ],
        parents: vec![
            (0..leaves as u32).map(|i| i / 100).collect(),
            (0..regions as u32).map(|r| r / 100).collect(),
            vec![0; districts],
        ],
    }
}

/// A `META` of `columns` columns (`oak_mill_17`), every fourth a QI with a
/// hierarchy, after the Adult one's claim and metrics.
fn meta_of(columns: usize, adult: &PublicMeta, rng: &mut ChaCha8Rng) -> PublicMeta {
    let mut m = adult.clone();
    m.columns = (0..columns)
        .map(|i| ColumnMeta {
            name: format!("{}_{}_{i}", word(rng), word(rng)),
            role: if i % 4 == 0 {
                Role::Quasi
            } else {
                Role::Insensitive
            },
            value_type: [
                ValueType::Integer,
                ValueType::Decimal,
                ValueType::Categorical,
            ][i % 3],
            hierarchy: (i % 4 == 0).then_some(i as u32 / 4),
            pseudonym: false,
        })
        .collect();
    m.qis = (0..columns as u32).step_by(4).collect();
    m
}

/// The median time of `runs` calls, in ms, and the last result.
fn timed<T>(runs: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut times = Vec::with_capacity(runs);
    let mut last = None;
    for _ in 0..runs.max(1) {
        let start = Instant::now();
        last = Some(f());
        times.push(start.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    (times[times.len() / 2], last.expect("one run"))
}

fn row(args: &Args, name: &str, plain: &[u8]) {
    let cell = |quality: u32| {
        let (ms, stream) = timed(args.runs, || compressed::compress_at(plain, quality));
        let (back_ms, back) = timed(args.runs, || compressed::decompress(&stream, plain.len()));
        assert_eq!(back.expect("decodes"), plain, "{name}: round trip");
        format!("{ms:.1} | {} | {back_ms:.2}", stream.len())
    };
    let mut cells = vec![if plain.len() <= args.best_up_to {
        cell(11)
    } else {
        "- | - | -".to_owned()
    }];
    cells.extend(args.qualities.iter().map(|&q| cell(q)));
    let written = compressed::quality(plain.len());
    println!(
        "| {name} | {} | {} | {written} |",
        plain.len(),
        cells.join(" | ")
    );
}

fn main() -> Result<(), BoxError> {
    let args = Args::parse();
    let config = Config::load(Path::new("fixtures/adult/adult.toml"))?;
    let csv = Path::new("fixtures/adult/adult.csv");
    let options = karc::archive::writer::PackOptions {
        groups: Default::default(),
        mode: karc::codec::DiffMode::default(),
        seal: &karc::archive::seal::Seal::None,
    };
    let packed = karc::archive::writer::pack_file(&config, csv, &options)?;
    let archive = karc::archive::reader::Archive::from_bytes(
        Path::new("adult"),
        packed,
        karc::archive::reader::ClaimCheck::Enforce,
    )?;
    let adult = archive.meta.clone();
    // The whole hierarchies (the public part holds those the release uses).
    let sealed = archive.private_parts(None)?.sealed.ok_or("a 2.0 file")?;
    let records: Vec<HierarchyRecord> = meta::hierarchies_from_bytes(&sealed.hierarchies)?;
    let heads: String = [11]
        .iter()
        .chain(&args.qualities)
        .fold(String::new(), |h, q| {
            h + &format!(" q{q} ms | q{q} B | q{q} decode ms |")
        });
    println!("| input | postcard B |{heads} karc writes |");
    let rules = " ---: |".repeat(2 + 3 * (1 + args.qualities.len()));
    println!("| --- |{rules}");
    row(&args, "Adult META", &meta::to_bytes(&adult));
    row(
        &args,
        "Adult hierarchies",
        &meta::hierarchies_postcard(&records),
    );
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    for columns in [100, 1_000, 5_000, 20_000] {
        let m = meta_of(columns, &adult, &mut rng);
        row(
            &args,
            &format!("META, {columns} columns"),
            &meta::to_bytes(&m),
        );
    }
    for leaves in [300, 1_000, 2_000, 10_000, 100_000, 1_000_000] {
        let h = [hierarchy(leaves, &mut rng)];
        let name = format!("hierarchy, {leaves} text leaves");
        row(&args, &name, &meta::hierarchies_postcard(&h));
    }
    Ok(())
}
