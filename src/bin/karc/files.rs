//! What a command reads and writes: inputs (`-` is standard input) and
//! outputs, refused when an output is the same file as something the
//! command reads.

use std::path::{Path, PathBuf};

use anyhow::Result;
use karc::archive::reader::{Archive, ClaimCheck};
use karc::config::Config;
use karc::io::{Input, Output, input_name, refuse_same_files};

use crate::cli::{KeyArgs, SealArgs};

/// The files a config reads: itself and its hierarchies.
pub fn config_files(config: &Config) -> Vec<PathBuf> {
    std::iter::once(config.path.clone())
        .chain(
            config
                .columns
                .iter()
                .filter_map(|c| config.hierarchy_path(c)),
        )
        .collect()
}

/// The key files of the opening flags.
pub fn key_files(key: &KeyArgs) -> Vec<PathBuf> {
    key.identities
        .iter()
        .chain(&key.passphrase_file)
        .cloned()
        .collect()
}

/// The key files of the sealing flags.
pub fn seal_files(seal: &SealArgs) -> Vec<PathBuf> {
    seal.recipients_files
        .iter()
        .chain(&seal.passphrase_file)
        .cloned()
        .collect()
}

/// Refuses `outputs` (`None`s skipped) when one is the same file as one of
/// `inputs` or as another output.
pub fn refuse_overwriting(inputs: &[PathBuf], outputs: &[Option<&Output>]) -> Result<()> {
    let inputs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
    let outputs: Vec<&Output> = outputs.iter().flatten().copied().collect();
    Ok(refuse_same_files(&inputs, &outputs)?)
}

/// Opens and checks the archive a command names (`-`: standard input).
pub fn open_archive(path: &Path, check: ClaimCheck) -> Result<Archive> {
    let bytes = Input::open_arg(path)?.into_vec();
    Ok(Archive::from_bytes(&input_name(path), bytes, check)?)
}
