//! The released columns of a file of one row group, decoded on two
//! threads while the file is checked. Every opening decodes each released
//! non-QI column once to check that it codes the group's rows (`spec/
//! FORMAT.md` §9, step 6): the walk over the sections leaves that to the
//! jobs here, which the second thread starts on once it has unsealed the
//! private part (a restore) or built the hierarchies, and the first joins
//! once its own checks are done. A restore or an export keeps the decoded
//! columns to render them; a check keeps only whether each decoded.
//! Nothing decoded here is used unless the checks pass (the bytes are then
//! the ones checked), and a failed decoding is reported where the walk
//! would have reported it, so errors keep the file's order.

use std::sync::Mutex;

use super::format::{Container, SectionKind};
use super::meta::PublicMeta;
use super::row_count;
use crate::codec::{self, CodecError, Purpose};
use crate::jobs::Jobs;
use crate::table::Column;

/// A column's decoding: its texts for rendering (`None` when only its
/// check was wanted), or why it failed.
pub(crate) type Decoded = Result<Option<Column>, CodecError>;

/// What an opening keeps of the columns it decodes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Keep {
    /// Only whether each decodes (a check, an inspection): memory holds
    /// one column per thread at a time.
    Verdicts,
    /// The columns, for the restore or export that renders them.
    Columns,
}

/// The columns to decode ahead, shared by the two threads.
pub(crate) struct Ahead<'b> {
    /// Each job's column and section bytes.
    columns: Vec<(usize, &'b [u8])>,
    names: Vec<&'b str>,
    rows: usize,
    keep: Keep,
    jobs: Jobs<Decoded>,
}

impl<'b> Ahead<'b> {
    /// The released non-QI columns of a file of one row group, each with
    /// its section (the column sections in order, as the format lays them
    /// out); `None` for a file of several row groups or whose sections do
    /// not match its columns (the checks then say what is wrong).
    pub(crate) fn plan(
        container: &Container,
        bytes: &'b [u8],
        meta: &'b PublicMeta,
        keep: Keep,
    ) -> Option<Ahead<'b>> {
        let kinds: Vec<Option<SectionKind>> = container.entries.iter().map(|e| e.kind()).collect();
        // Above a row group's limit of rows (`reader::MAX_GROUP_ROWS`) the
        // checks refuse the file: nothing is decoded for it.
        if meta.rows > u64::from(u32::MAX) || kinds.contains(&Some(SectionKind::RowGroups)) {
            return None;
        }
        let released = meta
            .columns
            .iter()
            .enumerate()
            .filter(|(_, c)| c.has_column_section());
        let sections = (2..kinds.len()).filter(|&i| kinds[i] == Some(SectionKind::Column));
        if released.clone().count() != sections.clone().count() {
            return None;
        }
        let mut columns = Vec::new();
        let mut names = Vec::new();
        for ((c, column), i) in released.zip(sections) {
            let range = container.entries[i].range();
            columns.push((c, row_count::blob(bytes.get(range)?, container.major)));
            names.push(column.name.as_str());
        }
        // The longest decodings first, so that none starts last.
        let order = |&(_, blob): &(usize, &[u8])| std::cmp::Reverse(codec::decode_cost(blob));
        let mut jobs: Vec<usize> = (0..columns.len()).collect();
        jobs.sort_by_key(|&j| order(&columns[j]));
        let columns: Vec<_> = jobs.iter().map(|&j| columns[j]).collect();
        let names = jobs.iter().map(|&j| names[j]).collect();
        Some(Ahead {
            jobs: Jobs::new(columns.len()),
            columns,
            names,
            rows: meta.rows as usize,
            keep,
        })
    }

    /// Decodes columns no thread has taken until none is left.
    pub(crate) fn work(&self) {
        self.jobs.work(|j| {
            let column = codec::decode_plain_for(
                self.columns[j].1,
                self.names[j],
                self.rows,
                Purpose::Rendering,
            )?;
            Ok((self.keep == Keep::Columns).then_some(column))
        });
    }

    /// Each planned column and the blob it decodes: the walk over the
    /// file's sections leaves these blobs' decoding (its check that each
    /// codes the group's rows) to these jobs, whose errors
    /// [`first_error`] reports, so that each column is decoded once.
    pub(crate) fn blobs(&self) -> &[(usize, &'b [u8])] {
        &self.columns
    }

    /// Each column's decoding by column index (`None` for the others),
    /// once every thread that worked has returned from [`Ahead::work`].
    pub(crate) fn finish(self, columns: usize) -> Vec<Mutex<Option<Decoded>>> {
        let mut by_column: Vec<Mutex<Option<Decoded>>> =
            (0..columns).map(|_| Mutex::new(None)).collect();
        for (&(c, _), decoded) in self.columns.iter().zip(self.jobs.results()) {
            by_column[c] = Mutex::new(Some(decoded));
        }
        by_column
    }
}

/// The first of `decoded`'s columns (from [`Ahead::finish`]) whose
/// decoding failed, in column order, with its error; the decodings stay
/// for the restore.
pub(crate) fn first_error(decoded: &[Mutex<Option<Decoded>>]) -> Option<(usize, String)> {
    decoded.iter().enumerate().find_map(|(c, slot)| {
        match &*slot.lock().unwrap_or_else(|p| p.into_inner()) {
            Some(Err(e)) => Some((c, e.to_string())),
            _ => None,
        }
    })
}
