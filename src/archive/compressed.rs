//! The Brotli streams (RFC 7932) that hold the `META` and `HIERARCHIES`
//! sections (`spec/FORMAT.md` §5, §6).
//!
//! Both are small postcard structures full of names and labels, where
//! Brotli's static dictionary and context modelling beat DEFLATE. The
//! writer's choices (quality, window) change only the bytes, never what a
//! reader accepts: any stream RFC 7932 allows decodes, so long as it ends
//! exactly at the section's end and stays under the section's bound.

use brotli::enc::{BrotliEncoderParams, StandardAlloc};
use brotli::{BrotliDecompressStream, BrotliResult, BrotliState};

/// The quality karc writes, by the postcard's size: Brotli's best (11) up
/// to 32 KiB, where it takes about 30 ms (2 ms on Adult's 1.8 KB of
/// hierarchies); it grows faster than the input (100 ms at 95 KiB), so
/// larger inputs take quality 5 (a few percent above quality 9's size, at
/// 20 to 100 MB/s), and above 4 MiB quality 3 (a million-leaf hierarchy,
/// 25 MB: 0.3 s, 8 % larger than quality 5 at a fifth of its time).
/// Measured by `bench_sections` (`tools/BENCHMARKS.md`, "Brotli sections").
pub const QUALITIES: [(usize, u32); 3] = [(32 << 10, 11), (4 << 20, 5), (usize::MAX, 3)];

/// The quality of [`QUALITIES`] for `len` bytes.
pub fn quality(len: usize) -> u32 {
    QUALITIES
        .iter()
        .find(|&&(up_to, _)| len <= up_to)
        .map_or(3, |&(_, q)| q)
}

/// `plain` as one Brotli stream at the [`quality`] of its size, with the
/// smallest window that covers it, so that a reader's ring buffer is no
/// larger than the section needs.
pub fn compress(plain: &[u8]) -> Vec<u8> {
    compress_at(plain, quality(plain.len()))
}

/// `plain` at Brotli `quality` (0 to 11, mode generic: text mode gave the
/// same bytes on Adult), with the window of [`compress`].
pub fn compress_at(plain: &[u8], quality: u32) -> Vec<u8> {
    let params = BrotliEncoderParams {
        quality: quality.min(11) as i32,
        lgwin: window_bits(plain.len()),
        size_hint: plain.len(),
        ..BrotliEncoderParams::default()
    };
    let mut stream = Vec::with_capacity(plain.len() / 2 + 16);
    brotli::BrotliCompress(&mut &plain[..], &mut stream, &params)
        .expect("compressing from memory to memory");
    stream
}

/// The smallest window (RFC 7932 `WBITS`, 10 to 24) whose `2^w - 16` bytes
/// hold `len` bytes: a back reference can then reach the whole input.
fn window_bits(len: usize) -> i32 {
    (10..24).find(|&w| (1usize << w) - 16 >= len).unwrap_or(24)
}

/// Decodes one Brotli stream that must fill `stream` exactly (no byte
/// after its last meta-block) and decompress to at most `limit` bytes,
/// so that a small corrupt or hostile section cannot make us allocate
/// without bound. Large-window streams (not RFC 7932) are refused.
pub fn decompress(stream: &[u8], limit: usize) -> Result<Vec<u8>, String> {
    let mut state = BrotliState::new_strict(
        StandardAlloc::default(),
        StandardAlloc::default(),
        StandardAlloc::default(),
    );
    let mut plain = vec![0u8; limit.min(stream.len().saturating_mul(4).max(1 << 12))];
    let (mut in_left, mut in_at) = (stream.len(), 0usize);
    let (mut out_at, mut total) = (0usize, 0usize);
    loop {
        let mut out_left = plain.len() - out_at;
        let result = BrotliDecompressStream(
            &mut in_left,
            &mut in_at,
            stream,
            &mut out_left,
            &mut out_at,
            &mut plain,
            &mut total,
            &mut state,
        );
        match result {
            BrotliResult::ResultSuccess => break,
            BrotliResult::NeedsMoreOutput if plain.len() >= limit => {
                return Err(format!(
                    "the Brotli stream decompresses to more than {limit} bytes"
                ));
            }
            BrotliResult::NeedsMoreOutput => {
                plain.resize(limit.min(plain.len().saturating_mul(2)), 0);
            }
            BrotliResult::NeedsMoreInput => {
                return Err(
                    "truncated Brotli stream: the section ends before its last meta-block"
                        .to_owned(),
                );
            }
            BrotliResult::ResultFailure => {
                let code = format!("{:?}", state.error_code);
                let code = code.strip_prefix("BROTLI_DECODER_ERROR_").unwrap_or(&code);
                return Err(format!("not a valid Brotli stream ({code})"));
            }
        }
    }
    if in_left != 0 {
        let s = if in_left == 1 { "" } else { "s" };
        return Err(format!("{in_left} byte{s} after the Brotli stream"));
    }
    plain.truncate(out_at);
    Ok(plain)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_at_every_quality_with_the_smallest_window() {
        let small: Vec<u8> = b"Married-civ-spouse\nNever-married\nDivorced\n".repeat(10);
        let numbers = |n: u32| -> Vec<u8> {
            (0..n)
                .flat_map(|i| format!("{};", i.wrapping_mul(2_654_435_761) % 1000).into_bytes())
                .collect()
        };
        let (large, huge) = (numbers(200_000), numbers(1_500_000));
        assert_eq!(quality(small.len()), 11);
        assert_eq!(quality(large.len()), 5);
        assert_eq!(quality(huge.len()), 3);
        assert_eq!(quality(32 << 10), 11);
        assert_eq!(quality((32 << 10) + 1), 5);
        assert_eq!(quality(4 << 20), 5);
        assert_eq!(quality((4 << 20) + 1), 3);
        for plain in [Vec::new(), b"x".to_vec(), small, large, huge] {
            let stream = compress(&plain);
            assert_eq!(decompress(&stream, plain.len()).unwrap(), plain);
            // WBITS in the stream's first bits: 10 to 24 by the length.
            let w = window_bits(plain.len());
            assert!((1usize << w) - 16 >= plain.len() || w == 24);
            assert!(w == 10 || (1usize << (w - 1)) - 16 < plain.len());
        }
        assert_eq!(window_bits(1008), 10);
        assert_eq!(window_bits(1009), 11);
        assert_eq!(window_bits(usize::MAX), 24);
    }

    #[test]
    fn must_reject_truncated_trailing_over_limit_and_garbage() {
        let plain = b"Private;Self-emp-not-inc;Self-emp-inc;Federal-gov\n".repeat(40);
        let stream = compress(&plain);
        for cut in [0, 1, stream.len() / 2, stream.len() - 1] {
            let e = decompress(&stream[..cut], plain.len()).unwrap_err();
            assert!(
                e.contains("truncated") || e.contains("not a valid"),
                "{cut}: {e}"
            );
        }
        let mut trailing = stream.clone();
        trailing.extend_from_slice(&[0, 0]);
        let e = decompress(&trailing, plain.len()).unwrap_err();
        assert_eq!(e, "2 bytes after the Brotli stream");
        // Exactly at the limit decodes; one byte under it is refused.
        assert_eq!(decompress(&stream, plain.len()).unwrap(), plain);
        let e = decompress(&stream, plain.len() - 1).unwrap_err();
        assert!(e.contains("more than"), "{e}");
        // A bomb: 2^24 zero bytes in a few bytes, refused at a 1 MiB bound.
        let bomb = compress(&vec![0u8; 1 << 24]);
        assert!(bomb.len() < 100, "{}", bomb.len());
        let e = decompress(&bomb, 1 << 20).unwrap_err();
        assert!(e.contains("more than 1048576 bytes"), "{e}");
        let e = decompress(b"\xff\xff\xff\xff", 1 << 20).unwrap_err();
        assert!(e.starts_with("not a valid Brotli stream"), "{e}");
    }
}
