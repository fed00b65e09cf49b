//! The walk over a file's sections after its hierarchies, in the order
//! `spec/FORMAT.md` §3 fixes: checksums, then the QI classes of each row
//! group.

use super::*;

/// The most rows a row group may hold (`spec/FORMAT.md` §4): class sizes
/// and row indices are 32-bit. Checked before anything is decoded, so that
/// a forged row count cannot make a reader reserve more than the format
/// allows.
pub const MAX_GROUP_ROWS: u64 = u32::MAX as u64;

/// The row groups of a file, walked from its section table: each group's
/// sections, the sections' checksums, and the released QI columns decoded.
pub(super) struct RowGroups {
    pub(super) groups: Vec<Group>,
    pub(super) framed: bool,
    pub(super) private_section: Option<usize>,
    pub(super) arrow_schema: Option<SchemaRef>,
    pub(super) models: Option<ModelsClaim>,
    pub(super) column_checks: Option<ColumnChecksMeta>,
    pub(super) signature: Option<Embedded>,
    pub(super) table_wide: Option<FileClasses>,
}

impl RowGroups {
    // Long: walks the sections once in the order FORMAT.md §3 fixes; split by section kind it would
    // hide that order
    /// Walks the sections after the hierarchies (`spec/FORMAT.md` §3):
    /// section table errors first, then checksums, then the QI classes.
    pub(super) fn walk(
        path: &Path,
        bytes: &[u8],
        container: &Container,
        kinds: &[Option<SectionKind>],
        meta: &PublicMeta,
        deferred: &[(usize, &[u8])],
    ) -> Result<RowGroups> {
        let corrupt = corrupt_in(path);
        let entries = &container.entries;
        // The row groups third when there are several. Each row group: its
        // QI classes, then a column section per released non-QI column; then
        // at most one private section, last; unknown skippable sections
        // anywhere.
        let released_columns: Vec<usize> = (0..meta.columns.len())
            .filter(|&i| meta.columns[i].has_column_section())
            .collect();
        let known: Vec<usize> = (2..kinds.len()).filter(|&i| kinds[i].is_some()).collect();
        let mut walk = known.iter().copied().peekable();
        // An Arrow input's schema, third: its columns are META's.
        let arrow_schema = match walk.next_if(|&i| kinds[i] == Some(SectionKind::ArrowSchema)) {
            Some(i) => {
                let body = format::check_section(path, bytes, i, &entries[i], None)?;
                let label = || format::section_label(i, &entries[i], None);
                let schema = ArrowLayout::schema_from_bytes(body)
                    .map_err(|e| corrupt(label(), e.to_string()))?;
                let names = schema.fields().iter().map(|f| f.name());
                if !names.eq(meta.columns.iter().map(|c| &c.name)) {
                    return Err(corrupt(
                        label(),
                        "its fields are not the columns of the metadata".to_owned(),
                    )
                    .into());
                }
                Some(SchemaRef::new(schema))
            }
            None => None,
        };
        // The models beyond k the release claims, after the schema.
        let models = match walk.next_if(|&i| kinds[i] == Some(SectionKind::PrivacyModels)) {
            Some(i) => {
                let body = format::check_section(path, bytes, i, &entries[i], None)?;
                let label = || format::section_label(i, &entries[i], None);
                let claim = match container.major == crate::archive::compat::MAJOR {
                    true => crate::archive::compat::models_from_bytes(body, meta),
                    false => meta::from_bytes::<ModelsClaim>(body),
                }
                .map_err(|e| corrupt(label(), e))?;
                claim.validate(meta).map_err(|e| corrupt(label(), e))?;
                Some(claim)
            }
            None => None,
        };
        crate::archive::models::check_sensitive_hierarchies(meta, models.as_ref())
            .map_err(|e| corrupt(format::section_label(0, &entries[0], None), e))?;
        // The derived-column check, after the models.
        let column_checks = match walk.next_if(|&i| kinds[i] == Some(SectionKind::ColumnChecks)) {
            Some(i) => {
                let body = format::check_section(path, bytes, i, &entries[i], None)?;
                let label = || format::section_label(i, &entries[i], None);
                let checks: ColumnChecksMeta =
                    meta::from_bytes(body).map_err(|e| corrupt(label(), e))?;
                checks.validate(meta).map_err(|e| corrupt(label(), e))?;
                Some(checks)
            }
            None => None,
        };
        let framed = walk
            .peek()
            .is_some_and(|&i| kinds[i] == Some(SectionKind::RowGroups));
        let group_rows: Vec<u64> = match walk.peek() {
            Some(&i) if kinds[i] == Some(SectionKind::RowGroups) => {
                walk.next();
                let body = format::check_section(path, bytes, i, &entries[i], None)?;
                let label = || format::section_label(i, &entries[i], None);
                let rows: Vec<u64> = meta::from_bytes(body).map_err(|e| corrupt(label(), e))?;
                if rows.is_empty()
                    || rows.contains(&0)
                    || rows.iter().try_fold(0u64, |a, &r| a.checked_add(r)) != Some(meta.rows)
                {
                    return Err(corrupt(
                        label(),
                        format!(
                            "row groups {rows:?} do not split the {} rows into non-empty groups",
                            meta.rows
                        ),
                    )
                    .into());
                }
                rows
            }
            _ => vec![meta.rows],
        };
        if let Some((g, &rows)) = group_rows
            .iter()
            .enumerate()
            .find(|&(_, &r)| r > MAX_GROUP_ROWS)
        {
            let (i, what) = match framed {
                true => (
                    known[usize::from(arrow_schema.is_some())
                        + usize::from(models.is_some())
                        + usize::from(column_checks.is_some())],
                    format!("row group {g} holds"),
                ),
                false => (0, "META.rows is".to_owned()),
            };
            return Err(corrupt(
                format::section_label(i, &entries[i], None),
                format!("{what} {rows} rows, above the limit of {MAX_GROUP_ROWS} rows a row group"),
            )
            .into());
        }
        // The file's class table, after the row groups: each group
        // then opens with its rows' classes instead of its own classes.
        let class_table = match framed {
            true => walk.next_if(|&i| kinds[i] == Some(SectionKind::ClassTable)),
            false => None,
        };
        let group_head = match class_table {
            Some(_) => SectionKind::RowClasses,
            None => SectionKind::QiClasses,
        };
        let mut groups = Vec::with_capacity(group_rows.len());
        for (g, &rows) in group_rows.iter().enumerate() {
            let classes_section = match walk.next() {
                Some(i) if kinds[i] == Some(group_head) => i,
                found => {
                    return Err(corrupt(
                        "section table".to_owned(),
                        format!(
                            "expected the {} section{}, found {}",
                            group_head.name(),
                            if group_rows.len() == 1 {
                                " third".to_owned()
                            } else {
                                format!(" of row group {g}")
                            },
                            found.map_or("the end".to_owned(), |i| format::section_label(
                                i,
                                &entries[i],
                                None
                            ))
                        ),
                    )
                    .into());
                }
            };
            let mut column_section = vec![None; meta.columns.len()];
            for (n, &col) in released_columns.iter().enumerate() {
                match walk.next() {
                    Some(i) if kinds[i] == Some(SectionKind::Column) => {
                        column_section[col] = Some(i);
                    }
                    _ => {
                        return Err(corrupt(
                            "section table".to_owned(),
                            format!(
                                "expected {} column sections in row group {g}, found {n}",
                                released_columns.len()
                            ),
                        )
                        .into());
                    }
                }
            }
            groups.push(Group {
                rows: rows as usize,
                classes_section,
                column_section,
                classes_bytes: None,
                class_table: Vec::new(),
                class_sizes: Vec::new(),
                class_rows: std::sync::OnceLock::new(),
            });
        }
        // The signature after the public sections, before the private one.
        let signature_section = walk.next_if(|&i| kinds[i] == Some(SectionKind::Signature));
        let private_section = match walk.next() {
            Some(i) if kinds[i].is_some_and(SectionKind::is_private) => Some(i),
            None => None,
            Some(i) => {
                return Err(corrupt(
                    format::section_label(i, &entries[i], None),
                    format!(
                        "unexpected after the {} row group(s){}",
                        groups.len(),
                        if kinds[i] == Some(SectionKind::Column) {
                            ": more column sections than the released columns"
                        } else {
                            ""
                        }
                    ),
                )
                .into());
            }
        };
        if let Some(i) = walk.next() {
            return Err(corrupt(
                format::section_label(i, &entries[i], None),
                "a section after the private part".to_owned(),
            )
            .into());
        }
        for (i, e) in entries.iter().enumerate().skip(2) {
            let column = groups
                .iter()
                .find_map(|g| g.column_section.iter().position(|&s| s == Some(i)))
                .map(|c| meta.columns[c].name.as_str());
            format::check_section(path, bytes, i, e, column)?;
        }
        let signature = signature_section
            .map(|i| {
                signature::parse_section(i, &bytes[entries[i].range()])
                    .map_err(|e| corrupt(format::section_label(i, &entries[i], None), e))
            })
            .transpose()?;

        let in_table =
            |i: usize, e: String| corrupt(format::section_label(i, &entries[i], None), e);
        let mut table_wide = class_table
            .map(|i| {
                let body = &bytes[entries[i].range()];
                codec::decode_class_table(body, meta.qis.len(), meta.rows as usize)
                    .map(|(table, bytes)| TableWide::new(table, bytes, i))
                    .map_err(|e| in_table(i, e.to_string()))
            })
            .transpose()?;
        // The groups' rows' classes of a class table decode alone (each
        // states the classes opened before it): on two threads, their
        // errors then taken in group order.
        let mut decoded = match &table_wide {
            Some(wide) => {
                let classes = wide.table.classes();
                let decode = |g: usize| {
                    let (i, rows) = (groups[g].classes_section, groups[g].rows);
                    let blob =
                        row_count::checked(&bytes[entries[i].range()], rows, container.major)?;
                    codec::decode_row_classes(blob, classes, rows).map_err(|e| e.to_string())
                };
                crate::jobs::on_two_threads(groups.len(), true, decode)
            }
            None => Vec::new(),
        }
        .into_iter();
        for group in &mut groups {
            let i = group.classes_section;
            let in_classes = |e: String| corrupt(format::section_label(i, &entries[i], None), e);
            let blob = row_count::checked(&bytes[entries[i].range()], group.rows, container.major)
                .map_err(in_classes)?;
            // Each row's class (empty for a group of one class, whose rows
            // take no bits), and the group's classes' sizes when it has its
            // own (a class table counts them over the file).
            let (rows, sizes) = match &mut table_wide {
                Some(wide) => {
                    let read = decoded.next().expect("one per group").map_err(in_classes)?;
                    let rows = wide.group(read, group.rows).map_err(in_classes)?;
                    let bytes = codec::ClassesBytes {
                        columns: vec![0; meta.qis.len()],
                        rows: blob.len() as u64,
                    };
                    group.classes_bytes = Some(bytes);
                    (rows, Vec::new())
                }
                None => {
                    let (classes, bytes) =
                        codec::decode_classes_lazily(blob, meta.qis.len(), group.rows)
                            .map_err(|e| in_classes(e.to_string()))?;
                    group.classes_bytes = Some(bytes);
                    group.class_table = classes.table_columns();
                    match classes.rows.is_empty() && group.rows > 0 {
                        true => (Vec::new(), vec![group.rows as u32]),
                        false => {
                            let sizes = classes.sizes();
                            (classes.rows, sizes)
                        }
                    }
                }
            };
            // Every released column's blob decodes to the group's rows (FORMAT
            // §9, step 6): a count its bytes do not back is refused here, not
            // met later by an export of made-up rows. It also confirms the
            // count of a group of one class, whose rows take no bits.
            for (c, i) in
                (group.column_section.iter().enumerate()).filter_map(|(c, s)| Some((c, (*s)?)))
            {
                let in_column = |e: String| column_corrupt_in(path, entries, group, meta, c, e);
                let blob =
                    row_count::checked(&bytes[entries[i].range()], group.rows, container.major)
                        .map_err(in_column)?;
                // A blob decoded ahead (a file of one row group) is checked
                // by that decoding (`ahead::first_error`) once the walk is
                // done.
                let ahead = deferred
                    .iter()
                    .any(|&(d, b)| d == c && std::ptr::eq(b, blob));
                if !ahead {
                    codec::decode_plain(blob, &meta.columns[c].name, group.rows)
                        .map_err(|e| in_column(e.to_string()))?;
                }
            }
            group.class_sizes = sizes;
            if !rows.is_empty() || group.rows == 0 {
                group.class_rows = rows.into();
            }
        }
        let table_wide = table_wide
            .map(|wide| {
                let section = wide.section;
                wide.finish().map_err(|e| in_table(section, e))
            })
            .transpose()?;
        Ok(RowGroups {
            groups,
            framed,
            private_section,
            arrow_schema,
            models,
            column_checks,
            signature,
            table_wide,
        })
    }
}

/// A file's table-wide class table (`CLASS_TABLE`) as the walk reads
/// its row groups' rows' classes: what the claim check needs (the table
/// and each class's rows over every group), and each group's own classes
/// made from it (what the group's private part was coded against).
pub(super) struct TableWide {
    /// The table, its rows empty.
    pub(super) table: codec::ReleasedClasses,
    /// Each class's rows, summed over the groups read so far.
    pub(super) sizes: Vec<u32>,
    /// Where the table's bytes go, per QI (for `karc inspect`).
    pub(super) bytes: codec::ClassesBytes,
    /// Table-entry index of the `CLASS_TABLE` section.
    pub(super) section: usize,
    /// The classes opened by the groups read so far.
    opened: u32,
}

impl TableWide {
    fn new(table: codec::ReleasedClasses, bytes: codec::ClassesBytes, section: usize) -> Self {
        TableWide {
            sizes: vec![0; table.classes()],
            table,
            bytes,
            section,
            opened: 0,
        }
    }

    /// Takes the next group's rows' classes (of `rows` rows), read from
    /// its `ROW_CLASSES` blob: they must start where the groups before left
    /// off; their classes' sizes are counted. Returns each row's class in
    /// the table (empty for a table of one class).
    fn group(
        &mut self,
        read: codec::GroupClasses,
        rows: usize,
    ) -> std::result::Result<Vec<u32>, String> {
        if read.opened_before != self.opened {
            return Err(format!(
                "classes opened before the row group: expected {}, found {}",
                self.opened, read.opened_before
            ));
        }
        self.opened = read.opened_after;
        match self.sizes.len() {
            1 => self.sizes[0] = self.sizes[0].saturating_add(rows as u32),
            _ => {
                for &c in &read.rows {
                    self.sizes[c as usize] += 1;
                }
            }
        }
        Ok(read.rows)
    }

    /// The table once every group is read; refused when a class is in
    /// no row group.
    fn finish(self) -> std::result::Result<FileClasses, String> {
        if self.opened as usize != self.table.classes() {
            return Err(format!(
                "class {} of {} is in no row group",
                self.opened,
                self.table.classes()
            ));
        }
        let codec::ReleasedClasses { symbols, table, .. } = self.table;
        Ok(FileClasses {
            columns: (symbols.into_iter().zip(table))
                .map(|(symbols, rows)| ReleasedColumn { symbols, rows })
                .collect(),
            sizes: self.sizes,
            bytes: self.bytes,
        })
    }
}

/// A file's table-wide classes, read: the classes' released QI tuples
/// (one column per QI, one entry per class), their sizes in rows over
/// every group, and where the `CLASS_TABLE` section's bytes go.
pub(super) struct FileClasses {
    pub(super) columns: Vec<ReleasedColumn>,
    pub(super) sizes: Vec<u32>,
    pub(super) bytes: codec::ClassesBytes,
}
