//! Re-checking a release's privacy claim on its released columns, and
//! its re-identification risk (`spec/FORMAT.md` §9).

use super::*;

impl Archive {
    /// Recomputes the privacy claim from the released QI columns: on the
    /// equivalence classes the file codes, unless l-diversity or a model
    /// beyond k is claimed, which needs every row's sensitive values.
    pub fn check_claim(&self) -> Result<ClaimReport> {
        let claim = &self.meta.claim;
        let by_class = claim.l_diversity.is_none() && self.models.is_none();
        // The sensitive columns before the QIs' rows (as in
        // `release_columns`): the models', then distinct l's if another.
        let mut wanted: Vec<u32> = self
            .models
            .iter()
            .flat_map(|m| m.sensitive.clone())
            .collect();
        if let Some((col, _)) = claim.l_diversity.filter(|(c, _)| !wanted.contains(c)) {
            wanted.push(col);
        }
        let sensitive: Vec<Column> = wanted
            .iter()
            .map(|&c| self.plain_column(c as usize))
            .collect::<Result<_>>()?;
        let column_of = |c: u32| &sensitive[wanted.iter().position(|&w| w == c).expect("read")];
        let labels: Vec<Column> = (0..self.meta.qis.len())
            .map(|q| {
                if by_class {
                    self.class_labels(q)
                } else {
                    self.qi_labels(q)
                }
            })
            .collect::<Result<_>>()?;
        let refs: Vec<&Column> = labels.iter().collect();
        let constraints: Vec<Constraint> = (claim.constraints.iter())
            .map(|c| Constraint {
                qis: c.qis.iter().map(|&q| q as usize).collect(),
                k: c.k as usize,
            })
            .collect();
        if by_class {
            let sizes = self.class_sizes();
            return Ok(verify_weighted(&refs, &sizes, &constraints, claim.policy));
        }
        let attribute = |c: u32| self.sensitive(c as usize, column_of(c));
        let l = claim
            .l_diversity
            .map(|(c, l)| Ok::<_, crate::Error>((attribute(c)?, l as usize)))
            .transpose()?;
        let mut report = verify_columns(
            &refs,
            &constraints,
            claim.policy,
            l.as_ref().map(|(s, l)| (s, *l)),
        );
        if let Some(m) = &self.measured_models() {
            let exempt = claim.policy == SuppressionPolicy::Mask && report.suppressed_rows > 0;
            let columns: Vec<Sensitive> = m
                .sensitive
                .iter()
                .map(|&c| attribute(c))
                .collect::<Result<_>>()?;
            report.models = Some(models::measure_columns(
                &refs,
                exempt,
                &columns,
                &m.models(),
            ));
        }
        Ok(report)
    }

    /// The models the claim is measured by: `PRIVACY_MODELS`, or distinct
    /// l alone (META's claim without that section), reported as the models
    /// report it so that it has one key.
    fn measured_models(&self) -> Option<ModelsClaim> {
        self.models.clone().or_else(|| {
            self.meta.claim.l_diversity.map(|(c, l)| {
                let l = Models {
                    l: Some(l as usize),
                    ..Models::default()
                };
                ModelsClaim::new(&[c as usize], &l, &[self.declared_distance(c as usize)])
            })
        })
    }

    /// t-closeness's distance on column `column`, as `META` declares it.
    pub(super) fn declared_distance(&self, column: usize) -> Distance {
        let m = &self.meta.columns[column];
        Distance::declared(m.value_type, m.hierarchy.is_some())
    }

    /// Released sensitive column `column` (its cells `values`) as the
    /// models read it: its declared type and hierarchy, `META`'s missing
    /// tokens.
    pub fn sensitive<'c>(&self, column: usize, values: &'c Column) -> Result<Sensitive<'c>> {
        let m = &self.meta.columns[column];
        let declared = match self.sensitive_trees.get(column).and_then(Option::as_ref) {
            Some(h) => Declared::Hierarchy(h),
            None if m.value_type.is_numeric() => Declared::Numeric(
                m.value_type,
                NumberFormat::for_delimiter(self.meta.dialect.delimiter),
            ),
            None => Declared::Categorical,
        };
        Ok(Sensitive::new(values, &self.meta.missing, declared)?)
    }

    /// The release's re-identification risk (ARX's prosecutor, journalist
    /// and marketer risk; pyCANON's average and maximum RIR) over the
    /// classes of every QI, the exempt suppressed rows left out: the
    /// models' report's when the claim was re-checked with models, else
    /// from the classes the file codes (`None`: no class).
    pub fn risk(&self) -> Result<Option<Risk>> {
        if let Some(m) = self.claim_report.as_ref().and_then(|r| r.models.as_ref()) {
            return Ok(m.risk.clone());
        }
        let labels: Vec<Column> = (0..self.meta.qis.len())
            .map(|q| self.class_labels(q))
            .collect::<Result<_>>()?;
        let refs: Vec<&Column> = labels.iter().collect();
        let weights = self.class_sizes();
        let claim = &self.meta.claim;
        let every_qi = Constraint {
            qis: (0..refs.len()).collect(),
            k: claim
                .constraints
                .iter()
                .map(|c| c.k as usize)
                .max()
                .unwrap_or(1),
        };
        let report = verify_weighted(&refs, &weights, &[every_qi], claim.policy);
        let sizes = report.constraints[0]
            .histogram
            .iter()
            .flat_map(|&(size, n)| std::iter::repeat_n(size, n as usize))
            .collect();
        Ok(risk::risk(&Partition {
            class_of: Vec::new(),
            sizes,
        }))
    }
}
