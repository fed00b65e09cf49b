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

/// Inputs up to this size are compressed at Brotli's best quality (11):
/// 32 KiB of labels take about 30-40 ms there (1.6 ms for Adult's 1.8 KB
/// of hierarchies), and q11 grows superlinearly (55 ms at 64 KiB, 340 ms at
/// 256 KiB; `tools/BENCHMARKS.md`).
const BEST_QUALITY_UP_TO: usize = 32 << 10;

/// The quality of larger inputs (a hierarchy of a million leaves, the
/// `META` of thousands of columns): about 20 MB/s, within 3-5 % of
/// quality 9's size at a fifth of its time.
const LARGE_QUALITY: i32 = 5;

/// `plain` as one Brotli stream: quality by size (above), the smallest
/// window that covers it, so that a reader's ring buffer is no larger
/// than the section needs.
pub fn compress(plain: &[u8]) -> Vec<u8> {
    let params = BrotliEncoderParams {
        quality: if plain.len() <= BEST_QUALITY_UP_TO {
            11
        } else {
            LARGE_QUALITY
        },
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
    fn round_trips_at_both_qualities_with_the_smallest_window() {
        let small: Vec<u8> = b"Married-civ-spouse\nNever-married\nDivorced\n".repeat(10);
        let large: Vec<u8> = (0..200_000u32)
            .flat_map(|i| format!("{};", i.wrapping_mul(2_654_435_761) % 1000).into_bytes())
            .collect();
        for plain in [Vec::new(), b"x".to_vec(), small, large] {
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
