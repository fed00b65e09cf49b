//! Decode speed of karc's table-driven canonical Huffman decoder
//! (`karc::huffman::Decoder`) against the textbook bit-by-bit canonical
//! decoder, both run in the same process on the same coded streams (the
//! `bench_huffman` runner, and a section of `bench`'s report).
//!
//! The streams are realistic ones: the dictionary codes of every column of
//! the raw 15-column Adult (`fixtures/adult-raw/adult.csv`, from `sex` with 2
//! symbols to `fnlwgt` with ~20,000, whose longest codes exceed the decoder's
//! one-lookup width), each tiled to the stream length, and a generated Zipf
//! alphabet of 4096 symbols. Each stream is coded with its own
//! `HuffmanCode::from_frequencies`, as the archive codes a column.
//!
//! The baseline is written here, independently of karc's own reference
//! decoder (`huffman::decode_bitwise`, which goes through bitstream-io): the
//! loop of DEFLATE's reference inflater `puff`, one bit at a time straight
//! from the byte slice, comparing the code so far with each length's range
//! of canonical codes. It is the fastest decoder that needs no table, so the
//! ratio is what the table buys.

use std::fmt::Write as _;
use std::path::Path;
use std::time::Instant;

use bitstream_io::BitWrite;
use karc::config::Config;
use karc::dataset::Dataset;
use karc::huffman::{self, BitWindow, DECODE_TABLE_BITS, HuffmanCode, MAX_CODE_LENGTH};
use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};

use karc::codec::{DiffMode, QiOriginal, QiSchema, decode_originals, encode_originals};

use crate::bench::{BoxError, Prepared, median};

/// One coded stream.
pub struct Stream {
    pub name: String,
    pub symbols: Vec<u32>,
    pub code: HuffmanCode,
    pub bytes: Vec<u8>,
}

impl Stream {
    pub fn new(name: String, symbols: Vec<u32>) -> Stream {
        let alphabet = symbols.iter().max().map_or(0, |&m| m as usize + 1);
        let mut freqs = vec![0u64; alphabet];
        for &s in &symbols {
            freqs[s as usize] += 1;
        }
        let code = HuffmanCode::from_frequencies(&freqs);
        let mut w = huffman::writer();
        code.write_symbols(&mut w, symbols.iter().copied())
            .expect("writing to memory");
        w.byte_align().expect("writing to memory");
        Stream {
            name,
            symbols,
            code,
            bytes: w.into_writer(),
        }
    }
}

/// The bit-by-bit canonical decoder (the loop of zlib's `puff.c`): for each
/// length in turn, take one more bit and check whether the code so far falls
/// in that length's range of canonical codes.
pub struct BitByBit {
    /// Codes per length.
    count: [u32; MAX_CODE_LENGTH as usize + 1],
    /// Symbols in canonical order (by length, then symbol).
    sorted: Vec<u32>,
    single: Option<u32>,
}

impl BitByBit {
    pub fn new(lengths: &[u8]) -> BitByBit {
        let mut count = [0u32; MAX_CODE_LENGTH as usize + 1];
        for &l in lengths.iter().filter(|&&l| l > 0) {
            count[l as usize] += 1;
        }
        let mut sorted: Vec<u32> = (0..lengths.len() as u32)
            .filter(|&s| lengths[s as usize] > 0)
            .collect();
        sorted.sort_by_key(|&s| (lengths[s as usize], s));
        // A single-symbol code costs no bits (spec/CODING.md).
        let single = (sorted.len() == 1).then(|| sorted[0]);
        BitByBit {
            count,
            sorted,
            single,
        }
    }

    /// Decodes `n` symbols from the start of `bytes` into `out`; `None` on a
    /// truncated or invalid stream.
    pub fn decode(&self, bytes: &[u8], n: usize, out: &mut Vec<u32>) -> Option<()> {
        if let Some(s) = self.single {
            out.extend(std::iter::repeat_n(s, n));
            return Some(());
        }
        let mut pos = 0usize;
        for _ in 0..n {
            let (mut code, mut first, mut index) = (0u32, 0u32, 0u32);
            let mut symbol = None;
            for &count in &self.count[1..] {
                let bit = (bytes.get(pos >> 3)? >> (7 - (pos & 7))) & 1;
                pos += 1;
                code |= u32::from(bit);
                if code.wrapping_sub(first) < count {
                    symbol = Some(self.sorted[(index + code - first) as usize]);
                    break;
                }
                index += count;
                first = (first + count) << 1;
                code <<= 1;
            }
            out.push(symbol?);
        }
        Some(())
    }
}

/// The symbol streams: every column of the raw Adult, tiled, and a Zipf
/// alphabet.
pub fn streams(n: usize) -> Result<Vec<Stream>, BoxError> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let raw = root.join("fixtures/adult-raw");
    let config = Config::load(&raw.join("adult-archive.toml"))?;
    let data = Dataset::load(&config, &raw.join("adult.csv"))?;
    let mut out = Vec::new();
    for column in &data.table.columns {
        let symbols: Vec<u32> = column.codes.iter().copied().cycle().take(n).collect();
        out.push(Stream::new(format!("adult `{}`", column.name), symbols));
    }
    // Zipf(1.1) over 4096 symbols by inverse transform on the cumulative
    // weights, from a seeded stream: the long tail of a high-cardinality
    // column, with codes well past the one-lookup width.
    let alphabet = 4096;
    let mut cumulative = Vec::with_capacity(alphabet);
    let mut total = 0.0;
    for r in 1..=alphabet {
        total += (r as f64).powf(-1.1);
        cumulative.push(total);
    }
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let symbols = (0..n)
        .map(|_| {
            let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * total;
            cumulative.partition_point(|&c| c < u).min(alphabet - 1) as u32
        })
        .collect();
    out.push(Stream::new(
        format!("Zipf(1.1), {alphabet} symbols"),
        symbols,
    ));
    Ok(out)
}

/// Codes `symbols` symbols of every stream, decodes them `runs` times with
/// both decoders (interleaved; each output checked against the coded
/// symbols) and returns the Markdown table of medians and ratios.
pub fn report(symbols: usize, runs: usize) -> Result<String, BoxError> {
    let runs = runs.max(1);
    let streams = streams(symbols)?;
    let mut report = String::new();
    writeln!(
        report,
        "Table-driven decoding ({DECODE_TABLE_BITS}-bit first lookup) against bit-by-bit \
         decoding; {symbols} symbols per stream, median of {runs} run(s). ratio = bit-by-bit time / \
         table-driven time; MB/s counts coded bytes. The table-driven decoder yields several \
         symbols per lookup where the alphabet has at most 256 symbols; the last two columns \
         compare it with one lookup per symbol (`Decoder::next` in a loop): ratio = that time / \
         table-driven time. Every decoder's output is checked against the coded symbols on \
         every run.\n"
    )?;
    writeln!(
        report,
        "| stream | alphabet | max code bits | bits/symbol | table-driven MB/s | table-driven Msym/s | bit-by-bit MB/s | bit-by-bit Msym/s | ratio | one lookup per symbol Msym/s | ratio |\n\
         | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    )?;
    let (mut total_table, mut total_single, mut total_bitwise) = (0.0, 0.0, 0.0);
    let (mut total_bytes, mut total_symbols) = (0usize, 0usize);
    let mut out = Vec::new();
    for s in &streams {
        let n = s.symbols.len();
        let decoder = s.code.decoder();
        let baseline = BitByBit::new(s.code.lengths());
        let (mut table, mut single, mut bitwise) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..runs {
            out.clear();
            let start = Instant::now();
            decoder.decode(&s.bytes, 0, n, &mut out)?;
            table.push(start.elapsed().as_secs_f64());
            if out != s.symbols {
                return Err(format!("{}: the table-driven decoder differs", s.name).into());
            }
            out.clear();
            let start = Instant::now();
            let mut w = BitWindow::new(&s.bytes, 0);
            out.reserve(n);
            for _ in 0..n {
                out.push(decoder.next(&mut w)?);
            }
            single.push(start.elapsed().as_secs_f64());
            if out != s.symbols {
                return Err(format!("{}: one lookup per symbol differs", s.name).into());
            }
            out.clear();
            let start = Instant::now();
            let decoded = baseline.decode(&s.bytes, n, &mut out);
            bitwise.push(start.elapsed().as_secs_f64());
            if decoded.is_none() || out != s.symbols {
                return Err(format!("{}: the bit-by-bit decoder differs", s.name).into());
            }
        }
        let (table, single, bitwise) = (median(table), median(single), median(bitwise));
        let (mb, msym) = (s.bytes.len() as f64 / 1e6, n as f64 / 1e6);
        writeln!(
            report,
            "| {} | {} | {} | {:.2} | {:.1} | {:.1} | {:.1} | {:.1} | {:.2} | {:.1} | {:.2} |",
            s.name,
            s.code.lengths().iter().filter(|&&l| l > 0).count(),
            s.code.lengths().iter().copied().max().unwrap_or(0),
            s.bytes.len() as f64 * 8.0 / n as f64,
            mb / table,
            msym / table,
            mb / bitwise,
            msym / bitwise,
            bitwise / table,
            msym / single,
            single / table
        )?;
        total_table += table;
        total_single += single;
        total_bitwise += bitwise;
        total_bytes += s.bytes.len();
        total_symbols += n;
    }
    let (mb, msym) = (total_bytes as f64 / 1e6, total_symbols as f64 / 1e6);
    writeln!(
        report,
        "| all streams | - | - | {:.2} | {:.1} | {:.1} | {:.1} | {:.1} | {:.2} | {:.1} | {:.2} |",
        total_bytes as f64 * 8.0 / total_symbols as f64,
        mb / total_table,
        msym / total_table,
        mb / total_bitwise,
        msym / total_bitwise,
        total_bitwise / total_table,
        msym / total_single,
        total_single / total_table
    )?;
    Ok(report)
}

/// The time to decode each QI's section of the private part's original
/// columns, per difference mode: every QI coded on its own (one section,
/// decoded on the calling thread) against its released column, as
/// `karc restore` decodes it. `config`/`csv` are anonymized with the
/// config's algorithm and privacy model; each figure is the median of
/// `runs`, the decoded column checked against the original on every run.
/// `only` names the one QI to time (all when `None`).
pub fn sections_report(
    config: &Path,
    csv: &Path,
    modes: &[DiffMode],
    only: Option<&str>,
    runs: usize,
) -> Result<String, BoxError> {
    let runs = runs.max(1);
    let config = Config::load(config)?;
    let p = Prepared::new(config, csv)?;
    let released = p.released.as_slice();
    let originals = QiOriginal::of_dataset(&p.data);
    let mut report = String::new();
    writeln!(
        report,
        "Decoding each QI's section of the original columns ({} rows, {} k={}), one \
         section at a time on one thread; ms, median of {runs} run(s).\n",
        p.data.rows(),
        p.config.algorithm.name,
        p.config.privacy.k.unwrap_or(0)
    )?;
    write!(report, "| QI |")?;
    for m in modes {
        write!(report, " {m} bytes | {m} ms |")?;
    }
    write!(report, "\n| --- |")?;
    for _ in modes {
        write!(report, " ---: | ---: |")?;
    }
    writeln!(report)?;
    let mut totals = vec![0.0; modes.len()];
    for (q, (qi, rel)) in originals.iter().zip(released).enumerate() {
        if only.is_some_and(|name| name != qi.name) {
            continue;
        }
        write!(report, "| {} |", qi.name)?;
        let schema = [QiSchema {
            name: qi.name,
            value_type: qi.value_type,
            hierarchy: qi.hierarchy,
        }];
        let rel = std::slice::from_ref(rel);
        let expected: Vec<&str> = qi
            .column
            .codes
            .iter()
            .map(|&c| qi.column.dict.value(c))
            .collect();
        for (i, &mode) in modes.iter().enumerate() {
            let blob = encode_originals(mode, std::slice::from_ref(&originals[q]), rel).bytes;
            let mut times = Vec::with_capacity(runs);
            for _ in 0..runs {
                let start = Instant::now();
                let columns = decode_originals(&blob, &schema, rel)?;
                times.push(start.elapsed().as_secs_f64() * 1e3);
                let c = &columns[0];
                if !c
                    .codes
                    .iter()
                    .map(|&x| c.dict.value(x))
                    .eq(expected.iter().copied())
                {
                    return Err(format!("{}: {mode} decodes other texts", qi.name).into());
                }
            }
            let ms = median(times);
            totals[i] += ms;
            write!(report, " {} | {ms:.3} |", blob.len())?;
        }
        writeln!(report)?;
    }
    write!(report, "| all sections |")?;
    for t in totals {
        write!(report, " - | {t:.3} |")?;
    }
    writeln!(report)?;
    Ok(report)
}
