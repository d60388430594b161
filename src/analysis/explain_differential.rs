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
    /// Whether it is the program's own function (relinked, so placed anew in each binary);
    /// else a shared library's, which the layout does not move but whose lines others can
    /// crowd.
    pub(crate) own: bool,
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
}
