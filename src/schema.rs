//! The schema number of layoutrand's JSON outputs: a leaf every stage that writes one can
//! name (`layout`'s JSON as well as the reports).

/// The `schema` at the top of every JSON output of layoutrand (`report`, `analyze`,
/// `compare`, `dimension`, `layout`, `doctor`, `export`): one number for one vocabulary
/// (docs/formats.md). 3: interval bounds are `lower`/`upper` everywhere, p-values `p_value`,
/// two degrees of freedom `df_numerator`/`df_denominator`, every `verdict` a word of
/// `analysis::vocabulary::VERDICT_WORDS`; 4: a pair's share of layouts named by its direction
/// (`share_below`), not by a speed it has only for times. The files layoutrand reads back (manifest, store,
/// plan) keep their own. Here, below every stage, because `layout` and `run`'s `export` write it too.
pub(crate) const OUTPUT_SCHEMA: u32 = 4;
