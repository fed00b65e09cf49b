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

/// Refuses, without `--force`, to replace an existing regular file (or a
/// link to one), as `init` and `keygen` refuse: a restore's output may be
/// the original table itself, an export's or a published copy's a file
/// someone edited. Standard output, FIFOs and devices are written as ever.
pub fn refuse_existing(path: &Path, force: bool) -> Result<()> {
    if !force && !api::is_std(path) && std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return Err(api::Error::Options(format!(
            "{}: the file exists: give --force to replace it",
            path.display()
        ))
        .into());
    }
    Ok(())
}

/// Opens and checks the archive a command names (`-`: standard input).
pub fn open_archive(path: &Path, check: ClaimCheck) -> Result<Archive> {
    open_archive_sized(path, check).map(|(archive, _)| archive)
}

/// [`open_archive`] for one export: the release's columns decoded while
/// the file is checked are kept for it.
pub fn open_archive_to_export(path: &Path, check: ClaimCheck) -> Result<Archive> {
    let bytes = Input::open_arg(path)?.into_vec();
    Ok(api::open_to_export(&input_name(path), bytes, check)?)
}

/// [`open_archive`] and the file's size.
pub fn open_archive_sized(path: &Path, check: ClaimCheck) -> Result<(Archive, u64)> {
    let bytes = Input::open_arg(path)?.into_vec();
    let len = bytes.len() as u64;
    Ok((api::open(&input_name(path), bytes, check)?, len))
}
