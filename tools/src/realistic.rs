//! Realistic tables of any length (issue 16), with the awkward columns of
//! real life that Adult lacks: a sequential id, timestamps, amounts with two
//! decimals, ratios with nine, coordinates with six, zip-like codes with
//! leading zeros, skewed categories, free text with commas and quotes, and
//! empty cells.
//!
//! Two kinds: `mixed`, an insurance-claims table (age, sex and zip as
//! quasi-identifiers, the zip with a prefix hierarchy), and `numeric`, a
//! numeric-heavy table like issue 16's (integer id, 9-decimal ratios,
//! coordinates, incomes; four numeric quasi-identifiers, no hierarchy).
//! Each has its config (`tools/realistic.toml`, `tools/realistic-numeric.toml`,
//! written by [`config_toml`]) and hierarchies (`tools/hierarchies/`).
//!
//! Rows are made one at a time into reused buffers: memory does not grow
//! with the row count. The same kind, seed and row count give the same
//! bytes; decimals are formatted from integers (no float rounding in the
//! text), the only floating-point functions are `exp` of the log-normal
//! draws (the platform's libm) and exact IEEE arithmetic. The places (zip
//! codes and their coordinates) come from a fixed seed, not the table's, so
//! one hierarchy file fits every table.

use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};

/// Which table to make.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Kind {
    /// Insurance claims: id, timestamp, age, sex, zip, coordinates,
    /// categories, amount, ratio, diagnosis, free-text note.
    Mixed,
    /// Numeric-heavy: id, age, income, coordinates, three ratios, balance, score.
    Numeric,
}

/// A column of a kind, as its config lists it.
#[derive(Debug, Clone, Copy)]
pub struct Column {
    pub name: &'static str,
    /// `identifier`, `quasi`, `sensitive` or `insensitive`.
    pub role: &'static str,
    /// `integer` or `decimal`; `None` for text (the config's default type).
    pub value_type: Option<&'static str>,
    /// The hierarchy file (in the hierarchies directory) of a categorical QI.
    pub hierarchy: Option<&'static str>,
    /// Empty cells per thousand rows (0: never empty).
    pub missing_per_mille: u32,
}

const fn col(name: &'static str, role: &'static str, value_type: Option<&'static str>) -> Column {
    Column {
        name,
        role,
        value_type,
        hierarchy: None,
        missing_per_mille: 0,
    }
}

const fn missing(c: Column, per_mille: u32) -> Column {
    Column {
        missing_per_mille: per_mille,
        ..c
    }
}

const fn hierarchy(c: Column, file: &'static str) -> Column {
    Column {
        hierarchy: Some(file),
        ..c
    }
}

const ZIP_HIERARCHY: &str = "realistic_zip.csv";
const SEX_HIERARCHY: &str = "realistic_sex.csv";

const MIXED: [Column; 13] = [
    col("claim_id", "identifier", Some("integer")),
    col("filed_at", "insensitive", None),
    missing(col("age", "quasi", Some("integer")), 10),
    hierarchy(col("sex", "quasi", None), SEX_HIERARCHY),
    hierarchy(col("zip", "quasi", None), ZIP_HIERARCHY),
    // Latitude and longitude are empty together.
    missing(col("latitude", "insensitive", Some("decimal")), 20),
    missing(col("longitude", "insensitive", Some("decimal")), 20),
    col("procedure", "insensitive", None),
    missing(col("payer", "insensitive", None), 10),
    missing(col("amount", "insensitive", Some("decimal")), 20),
    missing(col("coverage_ratio", "insensitive", Some("decimal")), 30),
    col("diagnosis", "sensitive", None),
    missing(col("note", "insensitive", None), 100),
];

const NUMERIC: [Column; 10] = [
    col("id", "identifier", Some("integer")),
    missing(col("age", "quasi", Some("integer")), 10),
    missing(col("income", "quasi", Some("integer")), 20),
    // Latitude and longitude are empty together.
    missing(col("latitude", "quasi", Some("decimal")), 10),
    missing(col("longitude", "quasi", Some("decimal")), 10),
    col("ratio_1", "insensitive", Some("decimal")),
    missing(col("ratio_2", "insensitive", Some("decimal")), 30),
    col("ratio_3", "insensitive", Some("decimal")),
    missing(col("balance", "insensitive", Some("decimal")), 20),
    col("score", "sensitive", Some("integer")),
];

impl Kind {
    pub const ALL: [Kind; 2] = [Kind::Mixed, Kind::Numeric];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Mixed => "mixed",
            Kind::Numeric => "numeric",
        }
    }

    pub fn columns(self) -> &'static [Column] {
        match self {
            Kind::Mixed => &MIXED,
            Kind::Numeric => &NUMERIC,
        }
    }

    /// The config's file name in `tools/`.
    pub fn config_file(self) -> &'static str {
        match self {
            Kind::Mixed => "realistic.toml",
            Kind::Numeric => "realistic-numeric.toml",
        }
    }

    /// The committed config in `tools/`.
    pub fn bundled_config(self) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join(self.config_file())
    }

    fn describe(self) -> &'static str {
        match self {
            Kind::Mixed => {
                "insurance claims: a sequential claim id, a filing timestamp, age, sex and a zip code \
                 (quasi-identifiers; the zip generalized by prefix), the zip's coordinates, skewed \
                 categories, a 2-decimal amount, a 9-decimal coverage ratio, a diagnosis (sensitive) \
                 and a free-text note"
            }
            Kind::Numeric => {
                "numeric-heavy: a sequential id, age, income, latitude and longitude \
                 (quasi-identifiers, released as intervals), three 9-decimal ratios, a 2-decimal \
                 balance and a score (sensitive)"
            }
        }
    }
}

/// The config of `kind`'s tables, Mondrian k = 10; hierarchy files are named
/// under `hierarchies` (a path as the config should spell it: relative to
/// the config file, or absolute).
pub fn config_toml(kind: Kind, hierarchies: &str) -> String {
    let mut t = String::new();
    let about = format!(
        "The tables of `gen-table --kind {0}` (tools/src/realistic.rs), {1}. Written by \
         `gen-table --kind {0} --config FILE`. Empty cells are missing values.",
        kind.name(),
        kind.describe(),
    );
    let mut line = String::from("#");
    for word in about.split(' ') {
        if line.len() + 1 + word.len() > 80 {
            let _ = writeln!(t, "{line}");
            line = String::from("#");
        }
        line.push(' ');
        line.push_str(word);
    }
    let _ = writeln!(t, "{line}");
    t.push_str("[input]\ndelimiter = \",\"\nheader = true\n");
    for c in kind.columns() {
        let _ = write!(
            t,
            "\n[[columns]]\nname = \"{}\"\nrole = \"{}\"\n",
            c.name, c.role
        );
        if let Some(ty) = c.value_type {
            let _ = writeln!(t, "type = \"{ty}\"");
        }
        if let Some(h) = c.hierarchy {
            let path = format!("{}/{h}", hierarchies.trim_end_matches('/'));
            let _ = writeln!(
                t,
                "type = \"categorical\"\nhierarchy = {}",
                karc::api::toml_string(&path)
            );
        }
    }
    t.push_str(
        "\n[privacy]\nk = 10\n\
         # Mondrian shows a class that mixes empty and numeric cells of a QI as `*`, and a\n\
         # class whose every QI is `*` counts as suppressed (small tables have a few).\n\
         suppression_limit = 0.01\n\n[algorithm]\nname = \"mondrian\"\n",
    );
    t
}

/// The hierarchy files of `kind`'s categorical QIs: (file name, contents).
pub fn hierarchies(kind: Kind) -> Vec<(&'static str, String)> {
    match kind {
        Kind::Numeric => Vec::new(),
        Kind::Mixed => {
            let mut sex = String::new();
            for s in SEXES {
                let _ = writeln!(sex, "{s};*");
            }
            let places = places();
            let mut codes: Vec<&str> = places.iter().map(|p| p.zip.as_str()).collect();
            codes.sort_unstable();
            let mut zip = String::new();
            for z in codes {
                let _ = writeln!(zip, "{z};{}*;{}**;{}***;*", &z[..4], &z[..3], &z[..2]);
            }
            vec![(SEX_HIERARCHY, sex), (ZIP_HIERARCHY, zip)]
        }
    }
}

/// Writes `kind`'s config to `config` and its hierarchies into
/// `hierarchies_dir` (created), which the config names relative to its own
/// directory when it lies inside it, else by absolute path.
pub fn write_config(kind: Kind, config: &Path, hierarchies_dir: &Path) -> io::Result<()> {
    std::fs::create_dir_all(hierarchies_dir)?;
    for (name, text) in hierarchies(kind) {
        std::fs::write(hierarchies_dir.join(name), text)?;
    }
    let dir = std::path::absolute(hierarchies_dir)?;
    let config_dir = std::path::absolute(config)?
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let named = match dir.strip_prefix(&config_dir) {
        Ok(rel) if rel.as_os_str().is_empty() => PathBuf::from("."),
        Ok(rel) => rel.to_path_buf(),
        Err(_) => dir.clone(),
    };
    let named = named.to_str().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{}: not UTF-8", hierarchies_dir.display()),
        )
    })?;
    std::fs::write(config, config_toml(kind, named))
}

/// Writes `rows` rows of `kind` (header first, `,`, LF, quoted only where
/// needed) made from `seed` to `out`.
pub fn write_csv(kind: Kind, rows: u64, seed: u64, out: impl Write) -> io::Result<()> {
    let mut w = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(out);
    w.write_record(kind.columns().iter().map(|c| c.name))?;
    let mut table = Generator::new(kind, seed);
    for _ in 0..rows {
        w.write_record(table.next_row())?;
    }
    w.flush()
}

/// Sexes as recorded, with their weights.
const SEXES: [&str; 3] = ["F", "M", "X"];
const SEX_WEIGHTS: [f64; 3] = [50.0, 48.5, 1.5];

const PROCEDURES: [&str; 40] = [
    "office visit",
    "lab panel",
    "x-ray",
    "physical therapy",
    "flu vaccine",
    "mri scan",
    "ct scan",
    "ultrasound",
    "blood draw",
    "ecg",
    "dental cleaning",
    "eye exam",
    "allergy test",
    "urgent care visit",
    "er visit",
    "minor surgery",
    "colonoscopy",
    "mammogram",
    "cardiology consult",
    "dermatology consult",
    "telehealth visit",
    "prenatal visit",
    "hearing test",
    "sleep study",
    "chiropractic",
    "occupational therapy",
    "speech therapy",
    "endoscopy",
    "biopsy",
    "cast application",
    "stitches",
    "vaccination",
    "wellness exam",
    "nutrition counseling",
    "psychotherapy",
    "ambulance",
    "dialysis",
    "chemotherapy",
    "radiation therapy",
    "joint injection",
];

const PAYERS: [&str; 12] = [
    "Medicare",
    "Medicaid",
    "BlueShield",
    "UnitedCare",
    "Aetna Plus",
    "Cigna One",
    "Humana Gold",
    "Kaiser",
    "Self-pay",
    "Tricare",
    "Workers' Comp",
    "Other",
];

const DIAGNOSES: [&str; 25] = [
    "I10", "E11.9", "J06.9", "M54.5", "Z00.00", "E78.5", "F41.1", "J45.909", "K21.9", "F32.9",
    "N39.0", "M25.561", "R51", "J02.9", "E66.9", "G43.909", "L70.0", "H10.9", "R10.9", "Z23",
    "I25.10", "M17.11", "J44.9", "N18.3", "C50.919",
];

/// The notes' words, most frequent first (drawn with Zipf weights).
const WORDS: [&str; 96] = [
    "the",
    "patient",
    "and",
    "to",
    "of",
    "with",
    "no",
    "pain",
    "for",
    "in",
    "follow",
    "up",
    "was",
    "reports",
    "mild",
    "visit",
    "needs",
    "review",
    "left",
    "right",
    "since",
    "last",
    "week",
    "prior",
    "claim",
    "approved",
    "denied",
    "pending",
    "resubmitted",
    "copay",
    "waived",
    "per",
    "policy",
    "referral",
    "missing",
    "authorization",
    "received",
    "called",
    "office",
    "twice",
    "stable",
    "improving",
    "worse",
    "after",
    "therapy",
    "session",
    "knee",
    "back",
    "shoulder",
    "chest",
    "cough",
    "fever",
    "rash",
    "dizzy",
    "tired",
    "blood",
    "pressure",
    "high",
    "normal",
    "labs",
    "ordered",
    "results",
    "closed",
    "scan",
    "clear",
    "refill",
    "requested",
    "dose",
    "changed",
    "allergic",
    "penicillin",
    "see",
    "notes",
    "attached",
    "urgent",
    "routine",
    "morning",
    "evening",
    "home",
    "work",
    "injury",
    "fall",
    "accident",
    "member",
    "id",
    "mismatch",
    "corrected",
    "address",
    "updated",
    "phone",
    "duplicate",
    "billing",
    "code",
    "error",
    "appeal",
    "filed",
];

/// A place: a zip code and the coordinates of its centre, in millionths of
/// a degree.
#[derive(Debug, Clone)]
struct Place {
    zip: String,
    lat: i64,
    lon: i64,
}

/// Regions (3-digit zip prefixes) and zip codes per region: 480 codes.
const REGIONS: u64 = 48;
const ZIPS_PER_REGION: u64 = 10;
/// The seed of the places, fixed so that one hierarchy fits every table.
const PLACES_SEED: u64 = 0x5eed_0f91_ace5;

/// The places, in a fixed random order (their popularity rank).
fn places() -> Vec<Place> {
    let mut rng = ChaCha8Rng::seed_from_u64(PLACES_SEED);
    let mut prefixes: Vec<u64> = Vec::new();
    while (prefixes.len() as u64) < REGIONS {
        // The first regions start with 0: codes with leading zeros.
        let p = if prefixes.len() < 6 {
            below(&mut rng, 100)
        } else {
            below(&mut rng, 1000)
        };
        if !prefixes.contains(&p) {
            prefixes.push(p);
        }
    }
    let mut out = Vec::new();
    for &p in &prefixes {
        // A region's centre somewhere in a continent-sized box.
        let lat = 25_000_000 + below(&mut rng, 24_000_000) as i64;
        let lon = -124_000_000 + below(&mut rng, 57_000_000) as i64;
        let mut suffixes: Vec<u64> = Vec::new();
        while (suffixes.len() as u64) < ZIPS_PER_REGION {
            let s = below(&mut rng, 100);
            if !suffixes.contains(&s) {
                suffixes.push(s);
            }
        }
        for s in suffixes {
            out.push(Place {
                zip: format!("{:03}{:02}", p, s),
                lat: lat + below(&mut rng, 600_000) as i64 - 300_000,
                lon: lon + below(&mut rng, 600_000) as i64 - 300_000,
            });
        }
    }
    // Popularity unrelated to the code: shuffle (Fisher-Yates).
    for i in (1..out.len()).rev() {
        let j = below(&mut rng, i as u64 + 1) as usize;
        out.swap(i, j);
    }
    out
}

/// A uniform integer below `n`, without the bias of a plain modulo.
fn below(rng: &mut ChaCha8Rng, n: u64) -> u64 {
    ((u128::from(rng.next_u64()) * u128::from(n)) >> 64) as u64
}

/// A uniform float in [0, 1).
fn unit(rng: &mut ChaCha8Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// An approximately standard normal draw (Irwin-Hall: twelve uniforms less
/// six), with no libm function.
fn normal(rng: &mut ChaCha8Rng) -> f64 {
    (0..12).map(|_| unit(rng)).sum::<f64>() - 6.0
}

/// A log-normal draw of this median and shape.
fn log_normal(rng: &mut ChaCha8Rng, median: f64, sigma: f64) -> f64 {
    median * (sigma * normal(rng)).exp()
}

/// Draws indices with fixed weights (cumulative, searched by bisection).
#[derive(Debug, Clone)]
struct Weighted {
    cumulative: Vec<f64>,
}

impl Weighted {
    fn new(weights: impl IntoIterator<Item = f64>) -> Weighted {
        let mut total = 0.0;
        let cumulative = weights
            .into_iter()
            .map(|w| {
                total += w;
                total
            })
            .collect();
        Weighted { cumulative }
    }

    /// Zipf weights 1, 1/2, 1/3, ... over `n` values (exact divisions).
    fn zipf(n: usize) -> Weighted {
        Weighted::new((1..=n).map(|i| 1.0 / i as f64))
    }

    fn pick(&self, rng: &mut ChaCha8Rng) -> usize {
        let x = unit(rng) * self.cumulative.last().copied().unwrap_or(0.0);
        self.cumulative
            .partition_point(|&c| c <= x)
            .min(self.cumulative.len() - 1)
    }
}

/// Seconds of 2023-01-01T00:00:00Z since the Unix epoch: the first timestamp.
const START: i64 = 1_672_531_200;

/// Writes `t` (seconds since the epoch) as `YYYY-MM-DDTHH:MM:SSZ`.
fn push_timestamp(out: &mut String, t: i64) {
    let (days, secs) = (t.div_euclid(86_400), t.rem_euclid(86_400));
    let (year, month, day) = karc::civil::civil_from_days(days);
    let _ = write!(
        out,
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    );
}

/// Writes `value / 10^decimals` with exactly `decimals` digits after the point.
fn push_fixed(out: &mut String, value: i64, decimals: u32) {
    let scale = 10i64.pow(decimals);
    let sign = if value < 0 { "-" } else { "" };
    let (whole, frac) = (
        value.unsigned_abs() / scale as u64,
        value.unsigned_abs() % scale as u64,
    );
    let _ = write!(
        out,
        "{sign}{whole}.{frac:0width$}",
        width = decimals as usize
    );
}

/// A seeded endless source of rows of one kind.
pub struct Generator {
    kind: Kind,
    rng: ChaCha8Rng,
    /// The next row's id.
    row: u64,
    /// The last timestamp, in seconds since the epoch.
    clock: i64,
    places: Vec<Place>,
    place: Weighted,
    sex: Weighted,
    procedure: Weighted,
    payer: Weighted,
    diagnosis: Weighted,
    word: Weighted,
    /// The current row's cells, reused from row to row.
    fields: Vec<String>,
}

impl Generator {
    pub fn new(kind: Kind, seed: u64) -> Generator {
        let places = places();
        Generator {
            kind,
            rng: ChaCha8Rng::seed_from_u64(seed),
            row: 0,
            clock: START,
            place: Weighted::zipf(places.len()),
            places,
            sex: Weighted::new(SEX_WEIGHTS),
            procedure: Weighted::zipf(PROCEDURES.len()),
            payer: Weighted::zipf(PAYERS.len()),
            diagnosis: Weighted::zipf(DIAGNOSES.len()),
            word: Weighted::zipf(WORDS.len()),
            fields: vec![String::new(); kind.columns().len()],
        }
    }

    /// The next row's cells, in the order of `kind.columns()`.
    pub fn next_row(&mut self) -> &[String] {
        for f in &mut self.fields {
            f.clear();
        }
        match self.kind {
            Kind::Mixed => self.mixed(),
            Kind::Numeric => self.numeric(),
        }
        // Each column's empty cells, but the coordinates' are decided
        // together (the latitude's draw).
        let columns = self.kind.columns();
        let mut located = true;
        for (c, column) in columns.iter().enumerate() {
            if column.missing_per_mille == 0 {
                continue;
            }
            let empty = if column.name == "longitude" {
                !located
            } else {
                below(&mut self.rng, 1000) < u64::from(column.missing_per_mille)
            };
            if column.name == "latitude" {
                located = !empty;
            }
            if empty {
                self.fields[c].clear();
            }
        }
        self.row += 1;
        &self.fields
    }

    fn age(&mut self) -> i64 {
        ((44.0 + 16.0 * normal(&mut self.rng)).round() as i64).clamp(18, 90)
    }

    /// A ratio in [0, 1) with nine decimals: mostly uniform, a quarter of
    /// them a round contract value (trailing zeros), in billionths.
    fn ratio(&mut self, round_share: u64) -> i64 {
        if below(&mut self.rng, 100) < round_share {
            [500_000_000, 700_000_000, 800_000_000, 900_000_000][below(&mut self.rng, 4) as usize]
        } else {
            below(&mut self.rng, 1_000_000_000) as i64
        }
    }

    /// Coordinates near a place, in millionths of a degree.
    fn near(&mut self, place: usize, spread: u64) -> (i64, i64) {
        let p = &self.places[place];
        let (lat, lon) = (p.lat, p.lon);
        let d = |rng: &mut ChaCha8Rng| below(rng, 2 * spread + 1) as i64 - spread as i64;
        (lat + d(&mut self.rng), lon + d(&mut self.rng))
    }

    fn mixed(&mut self) {
        let id = self.row;
        // Claims arrive every 0 to 60 s; 3 % are filed late, stamped up to
        // 5 minutes before the one before them.
        self.clock += below(&mut self.rng, 61) as i64;
        let stamp = if below(&mut self.rng, 100) < 3 {
            self.clock - below(&mut self.rng, 301) as i64
        } else {
            self.clock
        };
        let age = self.age();
        let sex = self.sex.pick(&mut self.rng);
        let place = self.place.pick(&mut self.rng);
        let (lat, lon) = self.near(place, 50_000);
        let procedure = self.procedure.pick(&mut self.rng);
        let payer = self.payer.pick(&mut self.rng);
        // A tenth are whole amounts (flat fees); the rest cents.
        let dollars = log_normal(&mut self.rng, 120.0, 1.1).clamp(1.0, 1e6);
        let cents = if below(&mut self.rng, 10) == 0 {
            dollars.round() as i64 * 100
        } else {
            (dollars * 100.0).round() as i64
        };
        let ratio = self.ratio(25);
        let diagnosis = self.diagnosis.pick(&mut self.rng);
        let mut note = std::mem::take(&mut self.fields[12]);
        self.sentence(&mut note);
        if below(&mut self.rng, 5) == 0 {
            note.push(' ');
            self.sentence(&mut note);
        }
        self.fields[12] = note;

        let f = &mut self.fields;
        let _ = write!(f[0], "{id}");
        push_timestamp(&mut f[1], stamp);
        let _ = write!(f[2], "{age}");
        f[3].push_str(SEXES[sex]);
        f[4].push_str(&self.places[place].zip);
        push_fixed(&mut f[5], lat, 6);
        push_fixed(&mut f[6], lon, 6);
        f[7].push_str(PROCEDURES[procedure]);
        f[8].push_str(PAYERS[payer]);
        push_fixed(&mut f[9], cents, 2);
        push_fixed(&mut f[10], ratio, 9);
        f[11].push_str(DIAGNOSES[diagnosis]);
    }

    fn numeric(&mut self) {
        let id = self.row;
        let age = self.age();
        // Incomes: log-normal, a third of them reported in round thousands.
        let income = log_normal(&mut self.rng, 52_000.0, 0.7)
            .clamp(0.0, 1e8)
            .round() as i64;
        let income = if below(&mut self.rng, 3) == 0 {
            (income + 500) / 1000 * 1000
        } else {
            income
        };
        let place = self.place.pick(&mut self.rng);
        let (lat, lon) = self.near(place, 250_000);
        let r1 = self.ratio(0);
        let r2 = self.ratio(25);
        // Skewed towards 0: the cube of a uniform draw.
        let r3 = (unit(&mut self.rng).powi(3) * 1e9) as i64;
        let magnitude =
            (log_normal(&mut self.rng, 1500.0, 1.3).clamp(0.0, 1e9) * 100.0).round() as i64;
        let balance = if below(&mut self.rng, 100) < 15 {
            -magnitude
        } else {
            magnitude
        };
        let score = ((690.0 + 70.0 * normal(&mut self.rng)).round() as i64).clamp(300, 850);

        let f = &mut self.fields;
        let _ = write!(f[0], "{id}");
        let _ = write!(f[1], "{age}");
        let _ = write!(f[2], "{income}");
        push_fixed(&mut f[3], lat, 6);
        push_fixed(&mut f[4], lon, 6);
        push_fixed(&mut f[5], r1, 9);
        push_fixed(&mut f[6], r2, 9);
        push_fixed(&mut f[7], r3, 9);
        push_fixed(&mut f[8], balance, 2);
        let _ = write!(f[9], "{score}");
    }

    /// Appends a sentence of 4 to 14 words: capitalized, some words
    /// followed by a comma, some in double quotes.
    fn sentence(&mut self, out: &mut String) {
        let words = 4 + below(&mut self.rng, 11);
        for i in 0..words {
            if i > 0 {
                if below(&mut self.rng, 100) < 8 {
                    out.push(',');
                }
                out.push(' ');
            }
            let word = WORDS[self.word.pick(&mut self.rng)];
            let quoted = below(&mut self.rng, 100) < 4;
            if quoted {
                out.push('"');
            }
            if i == 0 {
                let mut chars = word.chars();
                if let Some(first) = chars.next() {
                    out.extend(first.to_uppercase());
                    out.push_str(chars.as_str());
                }
            } else {
                out.push_str(word);
            }
            if quoted {
                out.push('"');
            }
        }
        out.push(match below(&mut self.rng, 20) {
            0 => '!',
            1 | 2 => '?',
            _ => '.',
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_civil_dates() {
        let mut s = String::new();
        push_timestamp(&mut s, START);
        assert_eq!(s, "2023-01-01T00:00:00Z");
        s.clear();
        // 2024-02-29T23:59:59Z, a leap day.
        push_timestamp(&mut s, 1_709_251_199);
        assert_eq!(s, "2024-02-29T23:59:59Z");
        s.clear();
        push_timestamp(&mut s, 0);
        assert_eq!(s, "1970-01-01T00:00:00Z");
    }

    #[test]
    fn fixed_decimals_keep_zeros_and_signs() {
        let cases = [
            (0, 2, "0.00"),
            (5, 2, "0.05"),
            (-5, 2, "-0.05"),
            (123_400, 2, "1234.00"),
            (800_000_000, 9, "0.800000000"),
            (7, 9, "0.000000007"),
            (-73_123_456, 6, "-73.123456"),
        ];
        for (v, d, text) in cases {
            let mut s = String::new();
            push_fixed(&mut s, v, d);
            assert_eq!(s, text, "{v} with {d} decimals");
        }
    }

    #[test]
    fn places_are_distinct_five_digit_codes_some_with_a_leading_zero() {
        let places = places();
        assert_eq!(places.len() as u64, REGIONS * ZIPS_PER_REGION);
        let mut codes: Vec<&str> = places.iter().map(|p| p.zip.as_str()).collect();
        assert!(
            codes
                .iter()
                .all(|c| c.len() == 5 && c.bytes().all(|b| b.is_ascii_digit()))
        );
        assert!(codes.iter().filter(|c| c.starts_with('0')).count() >= 60);
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), places.len());
    }

    #[test]
    fn zipf_weights_skew_towards_the_first_values() {
        let w = Weighted::zipf(40);
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut counts = [0u32; 40];
        for _ in 0..40_000 {
            counts[w.pick(&mut rng)] += 1;
        }
        // The first of 40 Zipf values has weight 1 / H(40), about 23 %.
        assert!((8_000..10_500).contains(&counts[0]), "{counts:?}");
        assert!(counts[0] > 5 * counts[9], "{counts:?}");
        assert!(counts.iter().all(|&c| c > 0), "{counts:?}");
    }
}
