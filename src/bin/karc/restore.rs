//! `karc restore`: the original CSV, byte for byte, its digest checked.

use std::process::ExitCode;

use anyhow::Result;
use karc::archive::reader::Archive;
use karc::io::write_atomically_with;

use crate::cli::RestoreArgs;
use crate::keys::{claim_check, key_from};

pub fn run(args: RestoreArgs) -> Result<ExitCode> {
    let key = key_from(&args.key)?;
    // A row group at a time (a streamed file is never whole in memory);
    // nothing reaches the output's name unless every check passed.
    let (_, len) = write_atomically_with(&args.output, |w| {
        Archive::open_and_restore(
            &args.input,
            claim_check(args.no_privacy_check),
            key.as_ref(),
            &mut |bytes| {
                w.write_all(bytes)
                    .map_err(|e| karc::Error::io(&args.output, e))
            },
        )
    })?;
    eprintln!(
        "{}: restored {len} bytes, public part (BLAKE3) and CRC-32 verified",
        args.output.display()
    );
    Ok(ExitCode::SUCCESS)
}
