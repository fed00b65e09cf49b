//! What a command reads and writes: inputs (`-` is standard input) and
//! outputs, refused when an output is the same file as something the
//! command reads.

use std::path::{Path, PathBuf};

use anyhow::Result;
use karc::api::{self, Archive, ClaimCheck};
use karc::api::{Input, Output, input_name, refuse_same_files};

/// Refuses `outputs` (`None`s skipped) when one is the same file as one of
/// `inputs` or as another output.
pub fn refuse_overwriting(inputs: &[PathBuf], outputs: &[Option<&Output>]) -> Result<()> {
    let inputs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
    let outputs: Vec<&Output> = outputs.iter().flatten().copied().collect();
    Ok(refuse_same_files(&inputs, &outputs)?)
}

/// Opens and checks the archive a command names (`-`: standard input).
pub fn open_archive(path: &Path, check: ClaimCheck) -> Result<Archive> {
    open_archive_sized(path, check).map(|(archive, _)| archive)
}

/// [`open_archive`] and the file's size.
pub fn open_archive_sized(path: &Path, check: ClaimCheck) -> Result<(Archive, u64)> {
    let bytes = Input::open_arg(path)?.into_vec();
    let len = bytes.len() as u64;
    Ok((api::open(&input_name(path), bytes, check)?, len))
}
