//! Where the variation between binaries went (issue 49): the differential profile. Each
//! randomised binary ran once more under cachegrind, and each function's own events of the
//! explained metric were counted in every binary (`m_f(b)`; the shared libraries' functions
//! included). A deterministic metric is exactly the sum of its functions' events, `M(b) =
//! Σ_f m_f(b)`, so the variance of the binaries' totals splits exactly over the functions:
//! `var(M) = Σ_f cov(m_f, M)`, and `cov(m_f, M) / var(M)` is the share of the between-binary
//! variance that function `f`'s own events carry (the variance decomposition of an
//! additive total; e.g. Lindeman, Merenda & Gold 1980 ch. 4 on covariance shares). The
//! functions with the largest shares are where a layout's cost lands — the *movers* — before
//! any question of why. Why comes next: two movers crowding each other out of the cache is
//! tested as a pair, by the number of cache sets their lines share in each binary against
//! the totals (a permutation test of Pearson's r, Benjamini–Hochberg over the pairs), since a
//! per-function feature cannot see a pair (issue 49: bzip2's mainSort and mainGtU, gzip's
//! deflate and longest_match).
//!
//! Numbers and enums only; the sentences are `crate::report::words::explain`'s.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::analysis::vocabulary::Thresholds;
use crate::layout::binary::Function;
use crate::layout::features::{sets_of, ICache};
use crate::seeded::SeededRng;
use crate::stats::error::StatsError;
use crate::stats::fdr::{benjamini_hochberg, permutation_correlation};
use crate::stats::sample::{mean, variance};

/// A function is a mover when its own events carry at least this share of the variance
/// between the binaries' totals.
pub(crate) const MOVER_SHARE: f64 = 0.02;
/// The share of the variance [`Differential::functions_for_most`] counts the functions of.
pub(crate) const MOST: f64 = 0.8;
/// The most movers listed (and paired: at most 28 pairs).
pub(crate) const MAX_MOVERS: usize = 8;

/// One function whose own events move between binaries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Mover {
    /// The function's symbol name (as valgrind names it, unmangled).
    pub(crate) function: String,
    /// `cov(m_f, M) / var(M)`: its share of the variance of the binaries' totals (the shares
    /// of every function sum to 1; a negative one moves against the total).
    pub(crate) share: f64,
    /// Its own events in the binary with the lowest total and in the one with the highest.
    pub(crate) in_lowest: f64,
    pub(crate) in_highest: f64,
    /// The smallest and largest of its own events over the binaries.
    pub(crate) range: (f64, f64),
    /// Whether it is the program's own function or one of the build's libraries it loads
    /// (relinked, so placed anew in each binary); else a shared library's, which the layout
    /// does not move but whose lines others can crowd.
    pub(crate) own: bool,
    /// The build's library it is in, when it is one's (relinked with the program).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) library: Option<String>,
}

/// Two movers tested for crowding each other out of the cache.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Crowding {
    /// The two functions (the one with the larger share first).
    pub(crate) first: String,
    pub(crate) second: String,
    /// The fewest and most cache sets their lines share over the binaries.
    pub(crate) shared_sets: (u64, u64),
    /// The cache's sets.
    pub(crate) sets: u64,
    /// Pearson's r between the sets they share and the binaries' totals.
    pub(crate) r: f64,
    /// Its permutation p-value and Benjamini–Hochberg q-value over the pairs tested.
    pub(crate) p: f64,
    pub(crate) q: f64,
    /// The totals' mean in the binaries where they share no set and where they share some
    /// (`None` when every binary is on one side).
    pub(crate) apart_mean: Option<f64>,
    pub(crate) together_mean: Option<f64>,
    /// `q ≤` the screening's false discovery rate.
    pub(crate) detected: bool,
}

/// The differential profile of the randomised binaries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Differential {
    /// Binaries profiled.
    pub(crate) binaries: usize,
    /// The variance of the binaries' totals (the metric summed over functions), in the
    /// metric's unit squared; 0 when every binary gave the same total.
    pub(crate) variance: f64,
    /// Pearson's r between the profile's totals and the store's means of the same binaries:
    /// near 1 for a deterministic metric (else the profile and the run measured differently,
    /// and the words say so); `None` when either does not vary.
    pub(crate) agreement: Option<f64>,
    /// The movers, largest share first.
    pub(crate) movers: Vec<Mover>,
    /// Their shares' sum.
    pub(crate) movers_share: f64,
    /// The fewest functions whose shares sum to [`MOST`] of the variance (largest first):
    /// a few when the layout's cost lands on a few functions, many when it is collective
    /// (every handler of an interpreter a little); `None` when nothing varies.
    pub(crate) functions_for_most: Option<usize>,
    /// The pairs of the program's own movers tested for crowding, strongest first.
    pub(crate) crowding: Vec<Crowding>,
    /// The lowest and the highest of the binaries' totals (0 in answers written before
    /// they were kept).
    #[serde(default)]
    pub(crate) lowest_total: f64,
    #[serde(default)]
    pub(crate) highest_total: f64,
    /// The mean of the binaries' totals (0 in answers written before it was kept).
    #[serde(default)]
    pub(crate) mean_total: f64,
    /// The binaries' totals, in the order of the store's binaries (empty in answers
    /// written before they were kept).
    #[serde(default)]
    pub(crate) totals: Vec<f64>,
}

impl Differential {
    /// The standard deviation of the binaries' totals over their mean: how much the
    /// layout moves the metric, as the report's "± x % per layout" says it (`None` when
    /// the mean is not positive).
    pub(crate) fn per_layout(&self) -> Option<f64> {
        (self.mean_total > 0.0).then(|| self.variance.sqrt() / self.mean_total)
    }

    /// How far the highest total lies above the lowest, as a share of the lowest (`None`
    /// when the lowest is 0 and the highest is not: any share).
    pub(crate) fn spread(&self) -> Option<f64> {
        if self.highest_total <= self.lowest_total {
            return Some(0.0);
        }
        (self.lowest_total > 0.0).then(|| self.highest_total / self.lowest_total - 1.0)
    }
}

/// Whether the layout moves the metric by a relevant amount, judged on the interval of its
/// spread per layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Relevance {
    /// The whole interval lies at or above the threshold.
    Relevant,
    /// The whole interval lies below it (or nothing varies).
    Negligible,
    /// The interval straddles it: more binaries would tell.
    CannotTell,
}

/// explain's findings read from the differential profile (issue 49): where the layout's
/// cost lands (the movers, grouped by what the screens found of why), when it is relevant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Leads {
    /// The relevance threshold (`--negligible`) the spread per layout was held against.
    pub(crate) negligible: f64,
    /// The spread per layout ([`Differential::per_layout`]) and its interval at
    /// `confidence` (Bonett 2006's interval of a standard deviation, over the totals' mean);
    /// `None` when the totals' mean is not positive or too few binaries were profiled.
    pub(crate) per_layout: Option<f64>,
    pub(crate) interval: Option<(f64, f64)>,
    pub(crate) confidence: f64,
    /// The interval against `negligible`; findings only when relevant.
    pub(crate) relevance: Relevance,
    /// The findings, the largest share first.
    pub(crate) leads: Vec<Lead>,
}

/// One finding of the differential profile: one mover, or a group of movers tied by what
/// the screens found (a detected crowding pair, one placement finding naming both), and
/// what was found of why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Lead {
    /// The movers it names, the largest share first.
    pub(crate) functions: Vec<String>,
    /// Their shares of the variance between the binaries, summed.
    pub(crate) share: f64,
    /// The detected crowding pairs among them (indices into `crowding`).
    pub(crate) crowding: Vec<usize>,
    /// The placement screen's findings that name one of them (indices into `findings`).
    pub(crate) placement: Vec<usize>,
    /// Whether every function named is a shared library's (whose address the relinks do
    /// not move: other functions' lines crowd it).
    pub(crate) shared_library: bool,
}

/// The findings of `d` at `thresholds`: the movers grouped by what ties them (a detected
/// crowding pair; the placement screen's finding `placement[i]`, the functions of its i-th
/// finding, naming both), each group with the pairs and placement findings that say why,
/// the largest share first. Findings only when the layout moves the metric relevantly:
/// the interval of the spread per layout (the standard deviation of the binaries' totals
/// over their mean, as the report judges layout sensitivity, not the extreme pair, which
/// grows with the number of binaries) lies at or above `thresholds.negligible`.
pub(crate) fn leads(d: &Differential, placement: &[Vec<String>], thresholds: Thresholds) -> Leads {
    let per_layout = d.per_layout();
    let interval = per_layout.and_then(|_| {
        crate::stats::sample::sd_interval_nonnormal(&d.totals, thresholds.confidence)
            .ok()
            .map(|(l, h)| (l / d.mean_total, h / d.mean_total))
    });
    let relevance = match interval {
        _ if d.variance <= 0.0 => Relevance::Negligible,
        Some((l, _)) if l >= thresholds.negligible => Relevance::Relevant,
        Some((_, h)) if h < thresholds.negligible => Relevance::Negligible,
        _ => Relevance::CannotTell,
    };
    let mut leads = Leads {
        negligible: thresholds.negligible,
        per_layout,
        interval,
        confidence: thresholds.confidence,
        relevance,
        leads: Vec::new(),
    };
    if relevance == Relevance::Relevant {
        leads.leads = grouped(d, placement);
    }
    leads
}

/// The movers of `d` grouped by the ties [`leads`] names, the largest share first.
fn grouped(d: &Differential, placement: &[Vec<String>]) -> Vec<Lead> {
    let index = |name: &str| d.movers.iter().position(|m| m.function == name);
    // Union–find over the movers: each tie joins two groups.
    let mut group: Vec<usize> = (0..d.movers.len()).collect();
    fn root(group: &mut [usize], mut i: usize) -> usize {
        while group[i] != i {
            group[i] = group[group[i]];
            i = group[i];
        }
        i
    }
    let join = |a: usize, b: usize, group: &mut Vec<usize>| {
        let (ra, rb) = (root(group, a), root(group, b));
        // The group's root is its largest mover (the lower index).
        group[ra.max(rb)] = ra.min(rb);
    };
    let detected: Vec<usize> = (0..d.crowding.len())
        .filter(|&i| d.crowding[i].detected)
        .collect();
    for &i in &detected {
        if let (Some(a), Some(b)) = (index(&d.crowding[i].first), index(&d.crowding[i].second)) {
            join(a, b, &mut group);
        }
    }
    for names in placement {
        let members: Vec<usize> = names.iter().filter_map(|n| index(n)).collect();
        for w in members.windows(2) {
            join(w[0], w[1], &mut group);
        }
    }
    let mut leads: Vec<Lead> = Vec::new();
    let mut roots: Vec<usize> = Vec::new();
    for i in 0..d.movers.len() {
        let r = root(&mut group, i);
        let members: Vec<&Mover> = (0..d.movers.len())
            .filter(|&k| root(&mut group, k) == r)
            .map(|k| &d.movers[k])
            .collect();
        if roots.contains(&r) {
            continue;
        }
        roots.push(r);
        let functions: Vec<String> = members.iter().map(|m| m.function.clone()).collect();
        let named = |n: &String| functions.contains(n);
        leads.push(Lead {
            share: members.iter().map(|m| m.share).sum(),
            shared_library: members.iter().all(|m| !m.own),
            crowding: detected
                .iter()
                .copied()
                .filter(|&k| named(&d.crowding[k].first) && named(&d.crowding[k].second))
                .collect(),
            placement: placement
                .iter()
                .enumerate()
                .filter(|(_, names)| names.iter().any(named))
                .map(|(k, _)| k)
                .collect(),
            functions,
        });
    }
    leads.sort_by(|a, b| b.share.total_cmp(&a.share));
    leads
}

/// The differential profile of `per_binary` (each binary's per-function value of the
/// metric), against `means` (the store's means of the same binaries, in order), with the
/// program's own function names `own` and each binary's functions `functions` (from its
/// ELF, for the pairs' cache sets), tested at false discovery rate `fdr` with
/// `permutations` per pair from `seed`.
pub(crate) fn differential(
    per_binary: &[BTreeMap<String, f64>],
    means: &[f64],
    own: &BTreeSet<String>,
    functions: &[&[Function]],
    cache: &ICache,
    (fdr, permutations, seed): (f64, usize, u64),
) -> Result<Differential, StatsError> {
    crate::stats::error::at_least("the differential profile", "binaries", 3, per_binary.len())?;
    let totals: Vec<f64> = per_binary.iter().map(|m| m.values().sum()).collect();
    let var_total = variance(&totals);
    let agreement = correlation(&totals, means);
    let mut movers = if var_total > 0.0 {
        movers_of(per_binary, &totals, var_total, own, f64::NEG_INFINITY)
    } else {
        Vec::new()
    };
    let functions_for_most = (var_total > 0.0).then(|| {
        let mut sum = 0.0;
        movers
            .iter()
            .take_while(|m| {
                let before = sum;
                sum += m.share;
                before < MOST
            })
            .count()
    });
    movers.retain(|m| m.share >= MOVER_SHARE);
    movers.truncate(MAX_MOVERS);
    let movers_share = movers.iter().map(|m| m.share).sum();
    let crowding = crowding_of(
        &movers,
        &totals,
        functions,
        cache,
        (fdr, permutations, seed),
    )?;
    Ok(Differential {
        binaries: per_binary.len(),
        variance: var_total,
        agreement,
        movers,
        movers_share,
        functions_for_most,
        crowding,
        lowest_total: totals.iter().copied().fold(f64::INFINITY, f64::min),
        highest_total: totals.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        mean_total: mean(&totals),
        totals,
    })
}

/// The functions whose share of `var_total` is at least `least`, largest first.
fn movers_of(
    per_binary: &[BTreeMap<String, f64>],
    totals: &[f64],
    var_total: f64,
    own: &BTreeSet<String>,
    least: f64,
) -> Vec<Mover> {
    let names: BTreeSet<&String> = per_binary.iter().flat_map(|m| m.keys()).collect();
    let lowest = index_of(totals, |a, b| a < b);
    let highest = index_of(totals, |a, b| a > b);
    let mut movers: Vec<Mover> = names
        .into_iter()
        .filter_map(|name| {
            let own_values: Vec<f64> = per_binary
                .iter()
                .map(|m| m.get(name).copied().unwrap_or(0.0))
                .collect();
            let share = covariance(&own_values, totals) / var_total;
            (share >= least && share.is_finite()).then(|| Mover {
                function: name.clone(),
                share,
                in_lowest: own_values[lowest],
                in_highest: own_values[highest],
                range: own_values
                    .iter()
                    .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| {
                        (l.min(*v), h.max(*v))
                    }),
                own: own.contains(name),
                library: None,
            })
        })
        .collect();
    movers.sort_by(|a, b| {
        b.share
            .total_cmp(&a.share)
            .then_with(|| a.function.cmp(&b.function))
    });
    movers
}

/// Every pair of the program's own movers, tested: the distinct cache sets their lines
/// share in each binary against the totals.
fn crowding_of(
    movers: &[Mover],
    totals: &[f64],
    functions: &[&[Function]],
    cache: &ICache,
    (fdr, permutations, seed): (f64, usize, u64),
) -> Result<Vec<Crowding>, StatsError> {
    let own: Vec<&Mover> = movers.iter().filter(|m| m.own).collect();
    let mut pairs = Vec::new();
    for (i, f) in own.iter().enumerate() {
        for g in &own[i + 1..] {
            let Some(shared) = shared_sets_per_binary(&f.function, &g.function, functions, cache)
            else {
                continue;
            };
            if !shared.iter().any(|s| *s != shared[0]) {
                continue;
            }
            let purpose = format!("explain-crowding:{}:{}", f.function, g.function);
            let mut rng = SeededRng::new(seed, &purpose);
            let t = permutation_correlation(&shared, totals, permutations, &mut rng)?;
            let side = |together: bool| {
                let v: Vec<f64> = shared
                    .iter()
                    .zip(totals)
                    .filter(|(s, _)| (**s > 0.0) == together)
                    .map(|(_, m)| *m)
                    .collect();
                (!v.is_empty()).then(|| mean(&v))
            };
            pairs.push(Crowding {
                first: f.function.clone(),
                second: g.function.clone(),
                shared_sets: (
                    shared.iter().copied().fold(f64::INFINITY, f64::min) as u64,
                    shared.iter().copied().fold(0.0, f64::max) as u64,
                ),
                sets: cache.sets,
                r: t.r,
                p: t.p,
                q: 1.0,
                apart_mean: side(false),
                together_mean: side(true),
                detected: false,
            });
        }
    }
    if !pairs.is_empty() {
        let p: Vec<f64> = pairs.iter().map(|c| c.p).collect();
        for (c, q) in pairs.iter_mut().zip(benjamini_hochberg(&p)?) {
            c.q = q;
            // Crowding raises the cost: only a positive association is the pair's doing.
            c.detected = q <= fdr && c.r > 0.0;
        }
    }
    pairs.sort_by(|a, b| {
        b.detected
            .cmp(&a.detected)
            .then(b.r.total_cmp(&a.r))
            .then_with(|| (&a.first, &a.second).cmp(&(&b.first, &b.second)))
    });
    Ok(pairs)
}

/// In each binary, how many distinct cache sets the lines of `f` and of `g` both occupy;
/// `None` when some binary lacks one of them (or names it twice).
fn shared_sets_per_binary(
    f: &str,
    g: &str,
    functions: &[&[Function]],
    cache: &ICache,
) -> Option<Vec<f64>> {
    functions
        .iter()
        .map(|fns| {
            let sets = |name: &str| -> Option<BTreeSet<u64>> {
                let mut found = fns.iter().filter(|x| x.name == name);
                let one = found.next()?;
                found
                    .next()
                    .is_none()
                    .then(|| sets_of(one.address, one.size, cache).into_iter().collect())
            };
            let (a, b) = (sets(f)?, sets(g)?);
            Some(a.intersection(&b).count() as f64)
        })
        .collect()
}

/// The sample covariance of `x` and `y` (n − 1).
fn covariance(x: &[f64], y: &[f64]) -> f64 {
    let (mx, my) = (mean(x), mean(y));
    let n = x.len() as f64;
    x.iter()
        .zip(y)
        .map(|(a, b)| (a - mx) * (b - my))
        .sum::<f64>()
        / (n - 1.0)
}

/// Pearson's r of `x` and `y`; `None` when either does not vary.
fn correlation(x: &[f64], y: &[f64]) -> Option<f64> {
    let (vx, vy) = (variance(x), variance(y));
    (vx > 0.0 && vy > 0.0 && x.len() == y.len())
        .then(|| covariance(x, y) / (vx * vy).sqrt())
        .filter(|r| r.is_finite())
}

/// The index of the value `better` prefers (the first of equals).
fn index_of(values: &[f64], better: impl Fn(f64, f64) -> bool) -> usize {
    values.iter().enumerate().fold(
        0,
        |best, (i, v)| if better(*v, values[best]) { i } else { best },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn function(name: &str, address: u64, size: u64) -> Function {
        Function::named(name, address, size)
    }

    /// Closed form: totals that are the sum of a steady function and two that move, one
    /// twice as much as the other, split 2/3 and 1/3 (the shares of every function sum to
    /// 1), and the steady one is no mover.
    #[test]
    fn the_shares_split_the_variance_of_the_totals() {
        let per_binary: Vec<BTreeMap<String, f64>> = [0.0, 1.0, 2.0, 3.0]
            .iter()
            .map(|x| {
                BTreeMap::from([
                    ("steady".to_string(), 100.0),
                    ("big".to_string(), 10.0 + 2.0 * x),
                    ("small".to_string(), 5.0 + x),
                ])
            })
            .collect();
        let totals: Vec<f64> = per_binary.iter().map(|m| m.values().sum()).collect();
        let own = BTreeSet::from(["big".to_string()]);
        let fns: Vec<Vec<Function>> = vec![Vec::new(); 4];
        let refs: Vec<&[Function]> = fns.iter().map(Vec::as_slice).collect();
        let cache = ICache {
            line: 64,
            sets: 32,
            ways: 2,
        };
        let d = differential(&per_binary, &totals, &own, &refs, &cache, (0.05, 99, 1)).unwrap();
        assert_eq!(d.movers.len(), 2);
        assert_eq!(d.movers[0].function, "big");
        assert!((d.movers[0].share - 2.0 / 3.0).abs() < 1e-12);
        assert!((d.movers[1].share - 1.0 / 3.0).abs() < 1e-12);
        assert!((d.movers_share - 1.0).abs() < 1e-12);
        // 2/3 alone is below 80 %: both are needed.
        assert_eq!(d.functions_for_most, Some(2));
        assert_eq!(
            (d.movers[0].in_lowest, d.movers[0].in_highest),
            (10.0, 16.0)
        );
        assert!(d.movers[0].own && !d.movers[1].own);
        assert!((d.agreement.unwrap() - 1.0).abs() < 1e-12);
        // Equal totals: nothing moves.
        let flat: Vec<BTreeMap<String, f64>> = vec![BTreeMap::from([("f".to_string(), 1.0)]); 3];
        let refs3: Vec<&[Function]> = refs[..3].to_vec();
        let d = differential(&flat, &[1.0; 3], &own, &refs3, &cache, (0.05, 99, 1)).unwrap();
        assert!(d.movers.is_empty() && d.variance == 0.0 && d.agreement.is_none());
        assert_eq!(d.functions_for_most, None);
    }

    /// Two functions that cost more exactly in the binaries where their lines share cache
    /// sets: the pair is found, and a third mover that never shares a set with them is not
    /// paired (no variation to test).
    #[test]
    fn two_movers_sharing_cache_sets_are_found_as_a_pair() {
        let cache = ICache {
            line: 64,
            sets: 32,
            ways: 1,
        };
        // 12 binaries: in the odd ones `b` lands on `a`'s sets (0 mod 2048), in the even
        // ones 1024 bytes further.
        let mut fns = Vec::new();
        let mut per_binary = Vec::new();
        for k in 0..12u64 {
            let together = k % 2 == 1;
            let a = 0x10000 + 4096 * k;
            let b = 0x20000 + if together { 0 } else { 1024 };
            fns.push(vec![
                function("a", a, 256),
                function("b", b, 256),
                function("c", 0x30000 + 512, 128),
            ]);
            let extra = if together { 50.0 } else { 0.0 };
            per_binary.push(BTreeMap::from([
                ("a".to_string(), 100.0 + extra + k as f64 * 0.01),
                ("b".to_string(), 80.0 + extra),
                ("c".to_string(), 10.0 + (k % 3) as f64),
            ]));
        }
        let totals: Vec<f64> = per_binary.iter().map(|m| m.values().sum()).collect();
        let own: BTreeSet<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
        let refs: Vec<&[Function]> = fns.iter().map(Vec::as_slice).collect();
        let d = differential(&per_binary, &totals, &own, &refs, &cache, (0.05, 999, 3)).unwrap();
        let top = &d.crowding[0];
        assert_eq!(
            (top.first.as_str(), top.second.as_str()),
            ("a", "b"),
            "{d:?}"
        );
        assert!(top.detected && top.r > 0.99 && top.q < 0.01, "{top:?}");
        assert_eq!(top.shared_sets, (0, 4));
        assert!(top.together_mean.unwrap() > top.apart_mean.unwrap());
        assert!(d.crowding.iter().all(|c| c.first != "c" && c.second != "c"));
    }

    /// The findings: the detected pair is one finding naming both (the larger share
    /// first, the shares summed), the third mover one of its own with the placement
    /// finding that names it; a shared library's mover says so; nothing is a finding when
    /// the spread of the totals is below the relevance threshold.
    #[test]
    fn the_findings_group_a_crowding_pair_and_are_held_to_relevance() {
        let cache = ICache {
            line: 64,
            sets: 32,
            ways: 1,
        };
        let mut fns = Vec::new();
        let mut per_binary = Vec::new();
        for k in 0..12u64 {
            let together = k % 2 == 1;
            fns.push(vec![
                function("a", 0x10000 + 4096 * k, 256),
                function("b", 0x20000 + if together { 0 } else { 1024 }, 256),
                function("c", 0x30000 + 512, 128),
            ]);
            let extra = if together { 50.0 } else { 0.0 };
            per_binary.push(BTreeMap::from([
                ("a".to_string(), 100.0 + extra),
                ("b".to_string(), 80.0 + extra * 0.5),
                (
                    "c".to_string(),
                    10.0 + 6.0 * (k % 2) as f64 + (k % 3) as f64,
                ),
                ("memcpy".to_string(), 5.0 + 3.0 * (k % 2) as f64),
            ]));
        }
        let totals: Vec<f64> = per_binary.iter().map(|m| m.values().sum()).collect();
        let own: BTreeSet<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
        let refs: Vec<&[Function]> = fns.iter().map(Vec::as_slice).collect();
        let d = differential(&per_binary, &totals, &own, &refs, &cache, (0.05, 999, 3)).unwrap();
        assert_eq!((d.lowest_total, d.highest_total), (195.0, 281.0));
        let placement = vec![vec!["z".to_string()], vec!["c".to_string()]];
        let at = |negligible: f64| Thresholds {
            confidence: 0.95,
            negligible,
        };
        let l = leads(&d, &placement, at(0.01));
        assert_eq!(l.relevance, Relevance::Relevant);
        let names: Vec<Vec<&str>> = l
            .leads
            .iter()
            .map(|x| x.functions.iter().map(String::as_str).collect())
            .collect();
        assert_eq!(names, [vec!["a", "b"], vec!["c"], vec!["memcpy"]], "{l:?}");
        let share = |f: &str| d.movers.iter().find(|m| m.function == f).unwrap().share;
        assert!((l.leads[0].share - share("a") - share("b")).abs() < 1e-12);
        assert_eq!(l.leads[0].crowding, [0]);
        assert!(l.leads[0].placement.is_empty() && !l.leads[0].shared_library);
        assert_eq!(l.leads[1].placement, [1]);
        assert!(l.leads[2].shared_library && l.leads[2].crowding.is_empty());
        // One placement finding naming c and the shared library's function joins them.
        let joined = leads(&d, &[vec!["memcpy".to_string(), "c".to_string()]], at(0.01));
        let names: Vec<Vec<&str>> = joined
            .leads
            .iter()
            .map(|x| x.functions.iter().map(String::as_str).collect())
            .collect();
        assert_eq!(names, [vec!["a", "b"], vec!["c", "memcpy"]]);
        assert!(!joined.leads[1].shared_library && joined.leads[1].placement == [0]);
        // The totals: 195 + k mod 3 in the even binaries, 279 + k mod 3 in the odd ones.
        let per_layout = variance(&totals).sqrt() / mean(&totals);
        assert!((d.per_layout().unwrap() - per_layout).abs() < 1e-12);
        // python3: statistics.stdev(t) / statistics.mean(t) of those 12 totals = 0.184352
        assert!((per_layout - 0.184352).abs() < 1e-6, "{per_layout}");
        let (low, high) = l.interval.unwrap();
        assert!(low < per_layout && per_layout < high, "{l:?}");
        // Held to the interval, not to the estimate: between its ends, cannot tell.
        let between = leads(&d, &placement, at((per_layout + high) / 2.0));
        assert_eq!(between.relevance, Relevance::CannotTell);
        assert!(between.leads.is_empty());
        assert_eq!(
            leads(&d, &placement, at(high * 1.01)).relevance,
            Relevance::Negligible
        );
        assert_eq!(
            leads(&d, &placement, at(low * 0.99)).relevance,
            Relevance::Relevant
        );
    }
}
