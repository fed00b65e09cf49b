//! The private part: unsealing, its parts, and restoring the original
//! byte for byte (`spec/FORMAT.md` §7), on one or two threads.

use super::*;

impl Archive {
    /// Whether the file has a private part, and whether it is sealed.
    pub fn private_kind(&self) -> Option<SectionKind> {
        self.private_section
            .and_then(|i| self.container.entries[i].kind())
    }

    pub(super) fn private_label(&self) -> String {
        let i = self.private_section.unwrap_or(0);
        format::section_label(i, &self.container.entries[i], None)
    }

    /// The private part's plaintext (unsealed with `key` when sealed).
    pub fn private_plaintext(&self, key: Option<&Key>) -> Result<Vec<u8>> {
        let Some(i) = self.private_section else {
            return Err(ArchiveError::NoPrivatePart {
                path: self.path.clone(),
            }
            .into());
        };
        let body = &self.bytes[self.container.entries[i].range()];
        match (self.private_kind(), key) {
            (Some(SectionKind::PrivatePlain), _) => Ok(body.to_vec()),
            (_, Some(key)) => Ok(seal::unseal(&self.path, body, key)?),
            (_, None) => Err(ArchiveError::Key {
                path: self.path.clone(),
                message: "the private part is sealed: give --identity, --passphrase (asked on the terminal), --passphrase-file or --passphrase-env"
                    .to_owned(),
            }
            .into()),
        }
    }

    /// The decoded private part: one [`PrivatePart`] per row group, then
    /// (several groups) the whole file's checksum (`spec/FORMAT.md` §7.4).
    pub fn private_parts(&self, key: Option<&Key>) -> Result<PrivateParts> {
        self.private_parts_of(self.private_plaintext(key)?)
    }

    // Long: reads the private part's parts in their stored order, the public digest checked first
    // before anything is decoded against it
    /// The decoded private part of its plaintext `plain`. The plaintext
    /// ends with the public part's digest, which must be this file's
    /// (checked first: a changed public part is refused before anything is
    /// decoded against it).
    pub(super) fn private_parts_of(&self, mut plain: Vec<u8>) -> Result<PrivateParts> {
        let corrupt = corrupt_in(&self.path);
        let label = self.private_label();
        let Some(at) = plain.len().checked_sub(32) else {
            return Err(corrupt(
                label,
                format!(
                    "{} bytes, shorter than the public part's digest (32)",
                    plain.len()
                ),
            )
            .into());
        };
        let public_digest: [u8; 32] = plain[at..].try_into().expect("32 bytes");
        plain.truncate(at);
        let found = self.public_digest();
        if public_digest != found {
            return Err(ArchiveError::PublicPartChanged {
                path: self.path.clone(),
                expected: hex(&public_digest),
                found: hex(&found),
            }
            .into());
        }
        // An Arrow input's plaintext ends with its `ArrowExtras` (§7.6),
        // after the part (one row group) or the trailer (several).
        let arrow = self.arrow_schema.is_some();
        let part = |bytes: &[u8]| meta::from_bytes::<PrivatePart>(bytes);
        let extras = |rest: &[u8], what: &str| -> Result<Option<Vec<ColumnExtras>>> {
            if !arrow {
                return Ok(None);
            }
            let extras = meta::arrow_extras_from_bytes(rest)
                .map_err(|e| corrupt(format!("{label} (Arrow extras)"), e))?;
            if extras.len() != self.meta.columns.len() {
                return Err(corrupt(
                    format!("{label} (Arrow extras)"),
                    format!(
                        "{} columns after the {what}, META has {}",
                        extras.len(),
                        self.meta.columns.len()
                    ),
                )
                .into());
            }
            Ok(Some(extras))
        };
        let check_layout = |part: &PrivatePart, g: usize| {
            // Every row of the original but the last ends with at least a
            // byte: checked before the rows are decoded.
            let rows = self.groups[g].rows as u64;
            if rows > part.original_len.saturating_add(1) {
                return Err(corrupt(
                    format!("{label} (row group {g})"),
                    format!("{rows} rows in an original of {} bytes", part.original_len),
                ));
            }
            part.layout
                .validate(self.meta.columns.len(), self.groups[g].rows)
                .map_err(|e| corrupt(format!("{label} (layout of row group {g})"), e))
        };
        // A 2.0 file's part or trailer is followed by its `SealedMeta`
        // (§7.1), then the Arrow extras, if any, and nothing else.
        let v1 = self.container.major == crate::archive::compat::MAJOR;
        let tail = |rest: &[u8], what: &str| -> Result<(Option<SealedMeta>, _)> {
            let (sealed, rest) = match v1 {
                true => (None, rest),
                false => meta::split_from_bytes::<SealedMeta>(rest)
                    .map(|(s, r)| (Some(s), r))
                    .map_err(|e| corrupt(format!("{label} (sealed metadata)"), e))?,
            };
            if !arrow && !rest.is_empty() {
                let detail = format!("{} bytes left after the structure", rest.len());
                return Err(corrupt(format!("{label} ({what})"), detail).into());
            }
            Ok((sealed, extras(rest, what)?))
        };
        if !self.framed {
            let (part, rest) = meta::split_from_bytes::<PrivatePart>(&plain)
                .map_err(|e| corrupt(label.clone(), e))?;
            check_layout(&part, 0)?;
            let (sealed, arrow) = tail(rest, "private part")?;
            return Ok(PrivateParts {
                digest: part.digest,
                original_len: part.original_len,
                groups: vec![part],
                public_digest,
                arrow,
                sealed,
            });
        }
        let mut rest = &plain[..];
        let mut groups = Vec::with_capacity(self.groups.len());
        for g in 0..self.groups.len() {
            let frame = meta::take_frame(&mut rest)
                .map_err(|e| corrupt(format!("{label} (row group {g})"), e))?;
            let part = part(frame).map_err(|e| corrupt(format!("{label} (row group {g})"), e))?;
            check_layout(&part, g)?;
            groups.push(part);
        }
        let (trailer, rest) = meta::split_from_bytes::<PrivateTrailer>(rest)
            .map_err(|e| corrupt(format!("{label} (trailer)"), e))?;
        let (sealed, arrow) = tail(rest, "trailer")?;
        Ok(PrivateParts {
            digest: trailer.digest,
            original_len: trailer.original_len,
            groups,
            public_digest,
            arrow,
            sealed,
        })
    }

    /// The digest of this file's public part (`spec/FORMAT.md` §7.5): every
    /// section but the private one, as the file holds it.
    pub fn public_digest(&self) -> [u8; 32] {
        *self
            .public_digest
            .get_or_init(|| public_digest_of(&self.container, &self.bytes))
    }

    /// The bytes to reserve for an original of `original_len` bytes, as
    /// the (unchecked, perhaps forged) private part says: at most 1,024
    /// times this file's bytes (16 MiB at least). A restore past it grows
    /// its buffer as it goes.
    pub(super) fn reservation(&self, original_len: u64) -> usize {
        let cap = (self.bytes.len() as u64).saturating_mul(1024).max(16 << 20);
        original_len.min(cap) as usize
    }

    /// Restores the original file's bytes, checked against its digest
    /// (and, in a file of several row groups, each group's).
    pub fn restore(&self, key: Option<&Key>) -> Result<Vec<u8>> {
        self.restore_from(self.private_parts(key)?)
    }

    /// [`Archive::restore`] of the decoded private part.
    pub(super) fn restore_from(&self, parts: PrivateParts) -> Result<Vec<u8>> {
        let mut out = Vec::with_capacity(self.reservation(parts.original_len));
        self.restore_parts(&parts, &mut |bytes| {
            out.extend_from_slice(bytes);
            Ok(())
        })?;
        Ok(out)
    }

    /// Restores the original as [`Archive::restore`] does, but hands its
    /// bytes to `sink` as they are rendered (a small row group whole, a
    /// large one in pieces of about a MiB), so that the output is never
    /// whole in memory. A row group rendered whole is checked before
    /// `sink` sees it, one rendered in pieces after its last piece, the
    /// whole file at the end: on an error, what `sink` received must be
    /// thrown away (write it to a temporary file, as `karc restore` does).
    /// Returns the length.
    pub fn restore_into(
        &self,
        key: Option<&Key>,
        sink: &mut dyn FnMut(&[u8]) -> Result<()>,
    ) -> Result<u64> {
        self.restore_parts(&self.private_parts(key)?, sink)
    }

    /// The row groups of the decoded private part, in order, through `sink`;
    /// returns the length. A file of one row group (not framed) is checked
    /// by its group's digest alone, which is the file's.
    pub(super) fn restore_parts(
        &self,
        parts: &PrivateParts,
        sink: &mut dyn FnMut(&[u8]) -> Result<()>,
    ) -> Result<u64> {
        let whole = self.whole_hierarchies(parts)?;
        if !self.framed {
            return self.restore_group(0, &parts.groups[0], &whole, sink, None);
        }
        self.restore_groups(parts, &whole, sink)
    }

    /// The whole hierarchies the originals are coded against: a 2.0 file's
    /// from its private part (which must hold the trees its public ones
    /// were pruned from), a 1.0 file's its public ones.
    pub(super) fn whole_hierarchies(&self, parts: &PrivateParts) -> Result<Whole<'_>> {
        let Some(sealed) = &parts.sealed else {
            return Ok(Whole::same(&self.whole_v1));
        };
        Whole::sealed(&sealed.hierarchies, &self.hierarchies, &self.path).map_err(|e| {
            corrupt_in(&self.path)(format!("{} (hierarchies)", self.private_label()), e).into()
        })
    }

    /// The row groups of a framed private part, in order, through `sink`;
    /// then the whole file's CRC-32 and length checked.
    ///
    /// The groups are decoded and rendered on a second thread (itself
    /// helped by a third for a large group) while this one hands their
    /// pieces to `sink`: group i + 1 is decoded while group i is written.
    /// A few pieces wait between the two ([`PIECES_AHEAD`]), so memory holds
    /// about one group.
    pub(super) fn restore_groups(
        &self,
        parts: &PrivateParts,
        whole: &Whole<'_>,
        sink: &mut dyn FnMut(&[u8]) -> Result<()>,
    ) -> Result<u64> {
        let mut hasher = crc32fast::Hasher::new();
        let mut len = 0u64;
        let (to_writer, pieces) = std::sync::mpsc::sync_channel::<Result<Vec<u8>>>(PIECES_AHEAD);
        let written = std::thread::scope(|scope| {
            let producer = scope.spawn(move || {
                let mut pool = self.symbol_pool();
                for (g, part) in parts.groups.iter().enumerate() {
                    let send = &mut |bytes: &[u8]| {
                        // The writer stopped (its error is the one told).
                        to_writer.send(Ok(bytes.to_vec())).map_err(|_| stopped())
                    };
                    let sent = self.restore_group(g, part, whole, send, pool.as_mut());
                    if let Err(e) = sent {
                        let _ = to_writer.send(Err(e));
                        return;
                    }
                }
            });
            let mut written = Ok(());
            for piece in &pieces {
                let piece = match piece {
                    Ok(piece) => piece,
                    Err(e) => {
                        written = Err(e);
                        break;
                    }
                };
                hasher.update(&piece);
                len += piece.len() as u64;
                if let Err(e) = sink(&piece) {
                    written = Err(e);
                    break;
                }
            }
            // A producer blocked on a full channel is let go.
            drop(pieces);
            producer.join().expect("restoring a group does not panic");
            written
        });
        written?;
        self.check_restored(len, hasher.finalize(), parts.digest, parts.original_len)?;
        Ok(len)
    }

    pub(super) fn check_restored(
        &self,
        found_len: u64,
        crc: u32,
        expected: u32,
        len: u64,
    ) -> Result<()> {
        if crc != expected || found_len != len {
            return Err(ArchiveError::RestoreChecksum {
                path: self.path.clone(),
                expected: crc32_hex(expected),
                found: crc32_hex(crc),
                expected_len: len,
                found_len,
            }
            .into());
        }
        Ok(())
    }

    /// Restores row group `g`'s bytes of the original from its private
    /// part through `sink` (in pieces when rendered on two threads), checked
    /// against the group's digest; returns their length.
    pub(super) fn restore_group(
        &self,
        g: usize,
        part: &PrivatePart,
        whole: &Whole<'_>,
        sink: &mut dyn FnMut(&[u8]) -> Result<()>,
        mut pool: Option<&mut SymbolPool>,
    ) -> Result<u64> {
        let one_class = match &self.table_wide {
            Some(wide) => wide.sizes.len() == 1,
            None => self.groups[g].class_sizes.len() == 1,
        };
        if one_class {
            // One class, whose rows take no bits: the columns of the
            // private part confirm their number before they are made.
            self.other_columns(g, part)?;
        }
        // A group of a file's class table: its own classes, which its
        // private part was coded against, their symbols lent by the pool
        // (copied without one).
        let Some(own) = self.own_classes(g) else {
            return self.restore_group_with(g, part, whole, sink, None);
        };
        let symbols = match pool.as_deref_mut() {
            Some(pool) => pool.take(&own),
            None => self.own_symbols(&own),
        };
        let restored = self.restore_group_with(g, part, whole, sink, Some((&own, &symbols)));
        if let Some(pool) = pool {
            pool.give_back(&own, symbols);
        }
        restored
    }

    /// [`Archive::restore_group`] once the group's own classes and their
    /// symbols are known (`None`: the group's `QI_CLASSES` gave them).
    fn restore_group_with(
        &self,
        g: usize,
        part: &PrivatePart,
        whole: &Whole<'_>,
        sink: &mut dyn FnMut(&[u8]) -> Result<()>,
        own: Option<(&codec::OwnClasses, &Vec<Vec<ReleasedSymbol>>)>,
    ) -> Result<u64> {
        let schemas: Vec<QiSchema<'_>> = self
            .meta
            .qis
            .iter()
            .map(|&c| {
                let c = c as usize;
                QiSchema {
                    name: &self.meta.columns[c].name,
                    value_type: self.meta.columns[c].value_type,
                    hierarchy: (self.meta.columns[c].hierarchy)
                        .map(|h| &whole.hierarchies[h as usize]),
                }
            })
            .collect();
        // The released nodes as the whole hierarchies number them.
        let table: Vec<&[ReleasedSymbol]> = match own {
            Some((_, symbols)) => symbols.iter().map(Vec::as_slice).collect(),
            None => (self.groups[g].class_table.iter())
                .map(|t| t.symbols.as_slice())
                .collect(),
        };
        let symbols: Vec<_> = (self.meta.qis.iter())
            .zip(table)
            .map(|(&c, table)| {
                let h = self.meta.columns[c as usize].hierarchy.map(|h| h as usize);
                whole.symbols(h, table)
            })
            .collect();
        let mut released = match own {
            Some((own, _)) => (own.table.iter())
                .map(|t| ReleasedRows {
                    symbols: &[],
                    rows: &own.rows,
                    class_symbols: Some(t),
                })
                .collect(),
            None => self.group_rows(g),
        };
        for (rows, symbols) in released.iter_mut().zip(&symbols) {
            rows.symbols = symbols;
        }
        let decoding = codec::OriginalsDecoding::new(&part.originals, &schemas, &released)
            .map_err(|e| self.originals_corrupt(g, e))?;
        let expected_len = self.reservation(part.original_len);
        if decoding.threads() > 1 && Layout::renders_on_two_threads(expected_len) {
            let (len, crc) = self.restore_on_two_threads(g, part, &decoding, expected_len, sink)?;
            self.check_restored(len, crc, part.digest, part.original_len)?;
            return Ok(len);
        }
        decoding.work();
        let originals = decoding
            .columns()
            .map_err(|e| self.originals_corrupt(g, e))?;
        let others = self.other_columns(g, part)?;
        let texts = self.restore_texts(g, &others, &originals)?;
        let (out, crc) = part.layout.render_hashed(&texts, expected_len);
        self.check_restored(out.len() as u64, crc, part.digest, part.original_len)?;
        sink(&out)?;
        Ok(out.len() as u64)
    }

    // Long: one scope holds the second thread's whole life (decoding, then
    // rendering pieces), so that no thread is started between the two
    /// [`Archive::restore_group`] with one second thread. Both threads
    /// decode the QIs' sections, then take the columns as jobs: decode
    /// one (a QI's is taken decoded) and render its values. Then both
    /// render the records in pieces, which this one hands to `sink` in
    /// order ([`Handoff`]; no thread is started between decoding and
    /// rendering: on a machine where the second core had gone idle, the
    /// start took up to 65 us). Returns the length and CRC-32 handed on.
    pub(super) fn restore_on_two_threads(
        &self,
        g: usize,
        part: &PrivatePart,
        decoding: &codec::OriginalsDecoding<'_>,
        expected_len: usize,
        sink: &mut dyn FnMut(&[u8]) -> Result<()>,
    ) -> Result<(u64, u32)> {
        // The columns that are not QIs first, then the QIs (whose jobs
        // wait for every section); an error in listing the columns comes
        // after the QIs' errors.
        let (others, others_error) = match self.other_jobs(g, part) {
            Ok(jobs) => (jobs, None),
            Err(e) => (Vec::new(), Some(e)),
        };
        // The longest blobs first, so that no long one starts last.
        let mut order: Vec<usize> = (0..others.len()).collect();
        order.sort_by_key(|&j| std::cmp::Reverse(codec::decode_cost(others[j].1)));
        let columns = self.meta.columns.len();
        let jobs = &Jobs::new(others.len() + self.meta.qis.len());
        let column_job = &|j: usize| -> Result<(Column, RenderedColumn)> {
            let (c, column) = match order.get(j).map(|&j| others[j]) {
                Some((c, bytes)) => (c, self.decode_other(g, c, bytes)?),
                None => {
                    let q = j - others.len();
                    let column = decoding
                        .column(q)
                        .map_err(|e| self.originals_corrupt(g, e))?;
                    (self.meta.qis[q] as usize, column)
                }
            };
            // Its texts are rendered: the dictionary is not read again.
            Ok(part.layout.render_column_owned(c, columns, column))
        };
        // What the second thread renders from, set by this one.
        let decoded = std::sync::OnceLock::new();
        let texts = std::sync::OnceLock::new();
        let handoff = std::sync::OnceLock::new();
        let (pieces_to, pieces) = handoff::channel();
        std::thread::scope(|scope| {
            let (go, ready) = std::sync::mpsc::sync_channel(1);
            let (done, helper_done) = std::sync::mpsc::sync_channel(1);
            let helper = scope.spawn(move || {
                decoding.work();
                jobs.work(column_job);
                // Both `work`s catch their panics: this always gets sent.
                let _ = done.send(());
                // Told to render, or (an error here) not.
                if let Ok(handoff) = ready.recv() {
                    Handoff::<'_, RestoreTexts<'_>>::help(handoff, pieces_to);
                }
            });
            decoding.work();
            jobs.work(column_job);
            let prepared = (|| -> Result<&Handoff<'_, RestoreTexts<'_>>> {
                helper_done
                    .recv()
                    .expect("the helper reports its jobs done");
                let mut results = jobs.results();
                let qis = results.split_off(others.len());
                let originals = qis.into_iter().collect::<Result<Vec<_>>>()?;
                if let Some(e) = others_error {
                    return Err(e);
                }
                // Errors in column order.
                let mut in_order: Vec<Option<Result<(Column, RenderedColumn)>>> =
                    (0..others.len()).map(|_| None).collect();
                for (&j, result) in order.iter().zip(results) {
                    in_order[j] = Some(result);
                }
                let mut rendered: Vec<Option<RenderedColumn>> =
                    (0..columns).map(|_| None).collect();
                let mut by_column: Vec<Option<Column>> = (0..columns).map(|_| None).collect();
                for (&(c, _), result) in others.iter().zip(in_order) {
                    let (column, values) = result.expect("every job done")?;
                    by_column[c] = Some(column);
                    rendered[c] = Some(values);
                }
                let mut qi_columns = Vec::with_capacity(originals.len());
                for (&c, (column, values)) in self.meta.qis.iter().zip(originals) {
                    rendered[c as usize] = Some(values);
                    qi_columns.push(column);
                }
                let (others, originals) = decoded.get_or_init(|| (by_column, qi_columns));
                let prepared = self.restore_texts(g, others, originals)?;
                let texts = texts.get_or_init(|| prepared);
                let rendered = rendered
                    .into_iter()
                    .map(|r| r.expect("every column rendered"))
                    .collect();
                let pieces = part.layout.pieces_of(texts, rendered, expected_len);
                Ok(handoff.get_or_init(|| Handoff::new(pieces)))
            })();
            match prepared {
                Err(e) => {
                    drop(go);
                    helper.join().expect("decoding does not panic");
                    Err(e)
                }
                Ok(handoff) => {
                    go.send(handoff).expect("the helper waits for the pieces");
                    let written = handoff.write(&pieces, sink);
                    // A stopped writer lets a helper waiting to send go.
                    drop(pieces);
                    helper.join().expect("rendering does not panic");
                    written
                }
            }
        })
    }

    pub(super) fn originals_corrupt(&self, g: usize, e: codec::CodecError) -> crate::Error {
        self.group_corrupt(g, format!("quasi-identifier originals: {e}"))
            .into()
    }

    /// An error in row group `g`'s private part.
    pub(super) fn group_corrupt(&self, g: usize, detail: String) -> ArchiveError {
        ArchiveError::Corrupt {
            path: self.path.clone(),
            section: if self.groups.len() == 1 {
                self.private_label()
            } else {
                format!("{} (row group {g})", self.private_label())
            },
            detail,
        }
    }

    /// Row group `g`'s columns that are not QIs, as jobs for
    /// [`Archive::decode_other`]: each one's column and bytes (identifiers
    /// from the private part, the others from the release).
    pub(super) fn other_jobs<'p>(
        &'p self,
        g: usize,
        part: &'p PrivatePart,
    ) -> Result<Vec<(usize, &'p [u8])>> {
        let corrupt = |detail: String| self.group_corrupt(g, detail);
        let mut identifiers = part.identifiers.iter();
        let mut jobs = Vec::with_capacity(self.meta.columns.len());
        for (i, c) in self.meta.columns.iter().enumerate() {
            match c.role {
                Role::Quasi => {}
                Role::Identifier => {
                    let id = identifiers
                        .next()
                        .filter(|id| id.column as usize == i)
                        .ok_or_else(|| {
                            corrupt(format!("identifier column {:?} is missing", c.name))
                        })?;
                    jobs.push((i, &id.bytes[..]));
                }
                _ => jobs.push((i, self.column_blob(g, i))),
            }
        }
        if identifiers.next().is_some() {
            return Err(
                corrupt("more identifier columns than the metadata lists".to_owned()).into(),
            );
        }
        Ok(jobs)
    }

    /// Column `column` of row group `g`, not a QI, decoded from `bytes` to
    /// be rendered (or taken as it was decoded while the file was checked).
    pub(super) fn decode_other(&self, g: usize, column: usize, bytes: &[u8]) -> Result<Column> {
        let c = &self.meta.columns[column];
        // An identifier comes from the private part: what was decoded
        // ahead for its column is its released pseudonyms.
        let ahead = (c.role != Role::Identifier)
            .then(|| self.decoded_ahead(g, column))
            .flatten();
        let decoded = match ahead {
            Some(column) => Ok(column),
            None => {
                codec::decode_plain_for(bytes, &c.name, self.groups[g].rows, Purpose::Rendering)
            }
        };
        match c.role {
            Role::Identifier => decoded.map_err(|e| {
                self.group_corrupt(g, format!("identifier column {:?}: {e}", c.name))
                    .into()
            }),
            _ => decoded.map_err(|e| self.column_corrupt(g, column, e.to_string()).into()),
        }
    }

    /// Column `column` of row group `g` as it was decoded while the file
    /// was checked, taken (a restore or an export renders it once); `None`
    /// when it was not kept. (Its decoding did not fail: the file would
    /// not have opened.)
    pub(super) fn decoded_ahead(&self, g: usize, column: usize) -> Option<Column> {
        let slot = self.ahead.get(column).filter(|_| g == 0)?;
        match slot.lock().unwrap_or_else(|p| p.into_inner()).take() {
            Some(Ok(column)) => column,
            _ => None,
        }
    }

    /// Decoded `jobs` ([`Archive::other_jobs`]) by column (`None` for the
    /// QIs); the first error in column order.
    pub(super) fn by_column(
        &self,
        jobs: &[(usize, &[u8])],
        decoded: Vec<Result<Column>>,
    ) -> Result<Vec<Option<Column>>> {
        let mut columns: Vec<Option<Column>> = (0..self.meta.columns.len()).map(|_| None).collect();
        for (&(c, _), column) in jobs.iter().zip(decoded) {
            columns[c] = Some(column?);
        }
        Ok(columns)
    }

    /// Row group `g`'s columns that are not QIs, by column (`None` for the
    /// QIs), decoded on this thread.
    pub(super) fn other_columns(
        &self,
        g: usize,
        part: &PrivatePart,
    ) -> Result<Vec<Option<Column>>> {
        let jobs = self.other_jobs(g, part)?;
        let decoded = jobs
            .iter()
            .map(|&(c, bytes)| self.decode_other(g, c, bytes))
            .collect();
        self.by_column(&jobs, decoded)
    }

    /// The texts of row group `g`'s restore: `others` by column, the QIs'
    /// from `originals` (claim order); every column must have the group's
    /// rows.
    fn restore_texts<'a>(
        &'a self,
        g: usize,
        others: &'a [Option<Column>],
        originals: &'a [Column],
    ) -> Result<RestoreTexts<'a>> {
        let rows = self.groups[g].rows;
        let columns: Vec<&Column> = others
            .iter()
            .enumerate()
            .map(|(i, c)| match c {
                Some(c) => c,
                None => {
                    let q = self
                        .meta
                        .qis
                        .iter()
                        .position(|&x| x as usize == i)
                        .expect("QI");
                    &originals[q]
                }
            })
            .collect();
        if let Some((c, col)) = columns
            .iter()
            .enumerate()
            .find(|(_, c)| c.codes.len() != rows)
        {
            return Err(self
                .group_corrupt(
                    g,
                    format!(
                        "column {:?} has {} rows, expected {rows}",
                        self.meta.columns[c].name,
                        col.codes.len(),
                    ),
                )
                .into());
        }
        Ok(RestoreTexts {
            names: self.meta.columns.iter().map(|c| c.name.as_str()).collect(),
            columns,
            rows,
        })
    }
}

/// Rendered pieces (about a MiB each) that may wait between the thread
/// that restores a file's row groups and the one that writes them.
const PIECES_AHEAD: usize = 8;

/// What a group's restore returns when the thread writing its pieces has
/// stopped (on its own error, which is the one reported).
fn stopped() -> crate::Error {
    crate::Error::Options("the restore's output stopped".to_owned())
}

/// The plaintext length of a binary age file, from its framing: the header
/// ends with the `---` MAC line, a 16-byte nonce follows, then chunks of up
/// to 64 KiB each with a 16-byte tag.
pub(super) fn age_plaintext_len(sealed: &[u8]) -> Option<u64> {
    let mac = sealed.windows(4).position(|w| w == b"\n---")?;
    let header_end = mac + 1 + sealed[mac + 1..].iter().position(|&b| b == b'\n')? + 1;
    let payload = sealed.len().checked_sub(header_end + 16)? as u64;
    const CHUNK: u64 = 64 * 1024 + 16;
    let chunks = payload.div_ceil(CHUNK).max(1);
    payload.checked_sub(16 * chunks)
}

/// The restore's view of the columns: names from the metadata.
struct RestoreTexts<'a> {
    names: Vec<&'a str>,
    columns: Vec<&'a Column>,
    rows: usize,
}

impl Texts for RestoreTexts<'_> {
    fn columns(&self) -> usize {
        self.columns.len()
    }
    fn rows(&self) -> usize {
        self.rows
    }
    fn name(&self, column: usize) -> &str {
        self.names[column]
    }
    fn column(&self, column: usize) -> &Column {
        self.columns[column]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn age_framing_gives_the_plaintext_length() {
        for len in [0usize, 1, 65_536, 65_537, 200_000] {
            let plain = vec![7u8; len];
            let id = age::x25519::Identity::generate();
            let sealed = seal::seal(&plain, &seal::Seal::Recipients(vec![id.to_public()]))
                .unwrap()
                .unwrap();
            assert_eq!(age_plaintext_len(&sealed), Some(len as u64), "{len}");
        }
    }
}
