//! The release as a reader gives it: columns, CSV export, Arrow batches
//! (`spec/FORMAT.md` §7.6).

use super::*;

impl Archive {
    /// Every released column (identifiers left out, but for those released
    /// as pseudonyms), in file order.
    pub fn release_columns(&self) -> Result<Vec<Column>> {
        let released =
            || (0..self.meta.columns.len()).filter(|&i| self.meta.columns[i].is_released());
        let qi = |i: usize| self.meta.qis.iter().position(|&c| c as usize == i);
        // The other columns first: their blobs hold (or count) every row, so
        // a forged row count fails there before a QI of one class is made
        // row by row.
        let mut columns = released()
            .map(|i| match qi(i) {
                Some(_) => Ok(None),
                None => self.plain_column(i).map(Some),
            })
            .collect::<Result<Vec<Option<Column>>>>()?;
        for (slot, i) in columns.iter_mut().zip(released()) {
            if let Some(q) = qi(i) {
                *slot = Some(self.qi_labels(q)?);
            }
        }
        Ok(columns.into_iter().flatten().collect())
    }

    /// Row group `g`'s released columns, as [`Archive::release_columns`]
    /// gives the whole table's.
    /// For rendering (`purpose`), a column decoded while the file was
    /// checked and kept for an export is taken as it is.
    fn group_release_columns(&self, g: usize, purpose: Purpose) -> Result<Vec<Column>> {
        let released =
            || (0..self.meta.columns.len()).filter(|&i| self.meta.columns[i].is_released());
        let qi = |i: usize| self.meta.qis.iter().position(|&c| c as usize == i);
        let mut columns = released()
            .map(|i| match qi(i) {
                Some(_) => Ok(None),
                None => self.group_plain_column(g, i, purpose).map(Some),
            })
            .collect::<Result<Vec<Option<Column>>>>()?;
        let rows = self.group_rows(g);
        for (slot, i) in columns.iter_mut().zip(released()) {
            if let Some(q) = qi(i) {
                *slot = Some(match self.table_wide_labels()? {
                    Some(labels) => group_labels(&labels[q], &rows[q]),
                    None => self.labels_of(q, &rows[q].to_column())?,
                });
            }
        }
        Ok(columns.into_iter().flatten().collect())
    }

    /// The label of each class of the file's class table, per QI, made
    /// once (`None` without a class table): each row group's labels are
    /// looked up in them instead of made again from every symbol of the
    /// table.
    fn table_wide_labels(&self) -> Result<Option<&[Column]>> {
        if self.table_wide.is_none() {
            return Ok(None);
        }
        if let Some(labels) = self.class_label_columns.get() {
            return Ok(Some(labels));
        }
        let labels = (0..self.meta.qis.len())
            .map(|q| self.class_labels(q))
            .collect::<Result<Vec<Column>>>()?;
        Ok(Some(self.class_label_columns.get_or_init(|| labels)))
    }

    /// Writes the release as CSV, byte-equal to `karc anonymize`'s output,
    /// a row group at a time (memory holds one group's columns).
    pub fn export_csv(&self, out: &mut dyn std::io::Write) -> Result<()> {
        let d = self.meta.dialect;
        let ending = if d.crlf {
            LineEnding::CrLf
        } else {
            LineEnding::Lf
        };
        for g in 0..self.groups.len() {
            let columns = self.group_release_columns(g, Purpose::Rendering)?;
            let header = d.header && g == 0;
            let rows = self.groups[g].rows;
            write_columns_csv(&columns, rows, d.delimiter, ending, header, out)
                .map_err(|e| crate::Error::io(&self.path, e))?;
        }
        Ok(())
    }

    /// The schema of an Arrow input (Parquet, IPC), from `ARROW_SCHEMA`.
    pub fn arrow_schema(&self) -> Option<&SchemaRef> {
        self.arrow_schema.as_ref()
    }

    /// The release as one Arrow record batch: an Arrow input's columns keep
    /// their types where the released texts still parse (the QIs are
    /// strings); a CSV input's are strings.
    pub fn release_batch(&self) -> Result<RecordBatch> {
        let columns = self.release_columns()?;
        let layout = self.arrow_schema.as_ref().map(|schema| {
            // The QIs' labels and the pseudonyms are texts whatever the
            // input's types.
            let texts: Vec<&str> = (self.meta.columns.iter())
                .filter(|c| c.role == Role::Quasi || c.pseudonym)
                .map(|c| c.name.as_str())
                .collect();
            ArrowLayout {
                schema: schema.clone(),
                extras: None,
            }
            .release(&texts)
        });
        crate::arrow::to_arrow(&columns, layout.as_ref())
    }

    /// The release as Arrow record batches, a row group at a time (one
    /// group's columns in memory at a time): [`Archive::release_batch`]
    /// of a file of one group; a file of several has no `ARROW_SCHEMA`
    /// (`spec/FORMAT.md` §7.6), so every batch is of strings.
    pub fn release_batches(&self) -> Box<dyn Iterator<Item = Result<RecordBatch>> + '_> {
        if self.groups.len() == 1 || self.arrow_schema.is_some() {
            return Box::new(std::iter::once_with(|| self.release_batch()));
        }
        Box::new((0..self.groups.len()).map(|g| {
            let columns = self.group_release_columns(g, Purpose::Values)?;
            crate::arrow::to_arrow(&columns, None)
        }))
    }

    /// The restored original as one Arrow record batch: an Arrow input's
    /// table exactly (schema, types, nulls, values); a CSV input's columns
    /// as strings. `original` is the restored file (`extras` its private
    /// part's Arrow extras, `sealed` its schema with the input's metadata
    /// when the public one left it out).
    pub(super) fn original_batch(
        &self,
        original: &[u8],
        extras: Option<Vec<ColumnExtras>>,
        sealed: Option<SchemaRef>,
    ) -> Result<RecordBatch> {
        let d = self.meta.dialect;
        let options = CsvOptions {
            delimiter: Some(d.delimiter),
            header: d.header,
            trim: false,
        };
        let table = crate::table::Table::from_bytes(&self.path, original, &options)?;
        let layout = match (sealed.as_ref().or(self.arrow_schema.as_ref()), extras) {
            (Some(schema), Some(extras)) => Some(ArrowLayout {
                schema: schema.clone(),
                extras: Some(extras),
            }),
            _ => None,
        };
        crate::arrow::to_arrow(&table.columns, layout.as_ref())
    }

    /// The restored original as an Arrow record batch
    /// (`Archive::original_batch`) of a file already open.
    pub fn restore_batch(&self, key: Option<&Key>) -> Result<RecordBatch> {
        let mut parts = self.private_parts(key)?;
        let extras = parts.arrow.take();
        let sealed = self.sealed_schema(&parts)?;
        let original = self.restore_from(parts)?;
        self.original_batch(&original, extras, sealed)
    }

    /// [`Archive::from_bytes_and_restore`] to an Arrow record batch
    /// (`Archive::original_batch`): the original is restored and checked
    /// as for a CSV output first.
    pub fn from_bytes_and_restore_batch(
        path: &Path,
        bytes: Vec<u8>,
        check: ClaimCheck,
        key: Option<&Key>,
    ) -> Result<(Archive, RecordBatch)> {
        let (archive, plain) = Archive::unsealing(path, Input::from(bytes), check, key)?;
        let mut parts = archive.private_parts_of(plain?)?;
        let extras = parts.arrow.take();
        let sealed = archive.sealed_schema(&parts)?;
        let original = archive.restore_from(parts)?;
        let batch = archive.original_batch(&original, extras, sealed)?;
        Ok((archive, batch))
    }

    /// An Arrow input's schema with its custom metadata, from the private
    /// part (`None`: the public one is the whole schema).
    pub(super) fn sealed_schema(&self, parts: &PrivateParts) -> Result<Option<SchemaRef>> {
        let Some(bytes) = parts.sealed.as_ref().map(|s| &s.arrow_schema) else {
            return Ok(None);
        };
        if bytes.is_empty() {
            return Ok(None);
        }
        let schema = ArrowLayout::schema_from_bytes(bytes).map_err(|e| {
            corrupt_in(&self.path)(
                format!("{} (Arrow schema)", self.private_label()),
                e.to_string(),
            )
        })?;
        Ok(Some(SchemaRef::new(schema)))
    }
}

/// A row group's labels of one QI: each row's class (`rows`, in the file's
/// class table) looked up in the classes' labels, the group's dictionary
/// holding the labels its rows use.
fn group_labels(classes: &Column, rows: &ReleasedRows<'_>) -> Column {
    let mut local = vec![u32::MAX; classes.dict.len()];
    let mut dict = crate::dictionary::Dictionary::new();
    let codes = rows
        .rows
        .iter()
        .map(|&c| {
            let label = classes.codes[c as usize];
            let l = &mut local[label as usize];
            if *l == u32::MAX {
                *l = dict.intern(classes.dict.value(label));
            }
            *l
        })
        .collect();
    Column {
        name: classes.name.clone(),
        dict,
        codes,
    }
}
