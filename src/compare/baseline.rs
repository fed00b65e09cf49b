//! The compressors karc is measured against, run in-process through their
//! crates so that sizes and times come from the same run and machine.
//!
//! `zip` is what a user's zip tool writes (one deflate entry at the default
//! level, the baseline of paper 004); zstd and xz are what a careful user
//! would reach for besides.

use std::io::{Cursor, Read, Write};
use std::time::Instant;

use serde::Serialize;

/// A general-purpose compressor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Compressor {
    /// A zip archive with one deflate entry, default level.
    Zip,
    /// zstd at level 19 (a user's "small" setting).
    Zstd,
    /// xz at preset 9 extreme (`xz -9e`).
    Xz,
}

impl Compressor {
    /// Every compressor, in the order reports list them.
    pub const ALL: [Compressor; 3] = [Compressor::Zip, Compressor::Zstd, Compressor::Xz];

    /// The compressor and its level, as reports name it (`zip`, `zstd-19`, `xz-9e`).
    pub fn name(self) -> &'static str {
        match self {
            Compressor::Zip => "zip",
            Compressor::Zstd => "zstd-19",
            Compressor::Xz => "xz-9e",
        }
    }

    /// Compresses `data` (named `entry` inside a zip).
    pub fn compress(self, data: &[u8], entry: &str) -> std::io::Result<Vec<u8>> {
        match self {
            Compressor::Zip => {
                let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
                let options = zip::write::SimpleFileOptions::default()
                    .compression_method(zip::CompressionMethod::Deflated);
                w.start_file(entry, options)
                    .map_err(std::io::Error::other)?;
                w.write_all(data)?;
                Ok(w.finish().map_err(std::io::Error::other)?.into_inner())
            }
            Compressor::Zstd => zstd::bulk::compress(data, 19),
            Compressor::Xz => {
                let mut out = Vec::new();
                let mut enc =
                    liblzma::read::XzEncoder::new(data, 9 | liblzma::stream::PRESET_EXTREME);
                enc.read_to_end(&mut out)?;
                Ok(out)
            }
        }
    }

    /// Restores what [`Compressor::compress`] made.
    pub fn decompress(self, data: &[u8]) -> std::io::Result<Vec<u8>> {
        match self {
            Compressor::Zip => {
                let mut archive =
                    zip::ZipArchive::new(Cursor::new(data)).map_err(std::io::Error::other)?;
                let mut entry = archive.by_index(0).map_err(std::io::Error::other)?;
                let mut out = Vec::with_capacity(entry.size() as usize);
                entry.read_to_end(&mut out)?;
                Ok(out)
            }
            Compressor::Zstd => {
                let mut out = Vec::new();
                zstd::stream::read::Decoder::new(data)?.read_to_end(&mut out)?;
                Ok(out)
            }
            Compressor::Xz => {
                let mut out = Vec::new();
                liblzma::read::XzDecoder::new(data).read_to_end(&mut out)?;
                Ok(out)
            }
        }
    }
}

/// Size and times of one compressor on one input.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Measurement {
    /// Which compressor.
    pub compressor: Compressor,
    /// Bytes compressed.
    pub input_bytes: u64,
    /// Bytes it made.
    pub bytes: u64,
    /// Compressing, the fastest run.
    pub compress_ms: f64,
    /// Decompressing (checked equal), the fastest run.
    pub decompress_ms: f64,
}

/// Compresses and decompresses `data`, checking the round trip.
pub fn measure(compressor: Compressor, data: &[u8], entry: &str) -> std::io::Result<Measurement> {
    let start = Instant::now();
    let packed = compressor.compress(data, entry)?;
    let compress_ms = start.elapsed().as_secs_f64() * 1e3;
    let start = Instant::now();
    let unpacked = compressor.decompress(&packed)?;
    let decompress_ms = start.elapsed().as_secs_f64() * 1e3;
    if unpacked != data {
        return Err(std::io::Error::other(format!(
            "{} did not restore its input",
            compressor.name()
        )));
    }
    Ok(Measurement {
        compressor,
        input_bytes: data.len() as u64,
        bytes: packed.len() as u64,
        compress_ms,
        decompress_ms,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_compressor_round_trips_and_shrinks_text() {
        let text: Vec<u8> = (0..2000)
            .flat_map(|i| format!("{};Private;HS-grad;{}\r\n", i % 70, i % 3).into_bytes())
            .collect();
        for c in Compressor::ALL {
            let m = measure(c, &text, "t.csv").unwrap();
            assert!(
                m.bytes < m.input_bytes / 4,
                "{}: {} of {}",
                c.name(),
                m.bytes,
                m.input_bytes
            );
        }
    }
}

#[cfg(test)]
mod adult {
    use super::*;

    /// The issue quotes `zip` of Adult's CSV at 183,486 B and `xz -9e` at
    /// 121,024 B; deflate implementations differ by a few percent.
    #[test]
    fn adult_sizes_match_the_command_line_tools() {
        let csv = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures/adult/adult.csv"
        ))
        .unwrap();
        let zip = measure(Compressor::Zip, &csv, "adult.csv").unwrap();
        assert!((170_000..200_000).contains(&zip.bytes), "zip {}", zip.bytes);
        let xz = measure(Compressor::Xz, &csv, "adult.csv").unwrap();
        assert!((115_000..127_000).contains(&xz.bytes), "xz {}", xz.bytes);
        eprintln!(
            "zip {} B in {:.1} ms, xz {} B",
            zip.bytes, zip.compress_ms, xz.bytes
        );
    }
}
