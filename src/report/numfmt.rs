//! Numbers as a careful statistician writes them, and the one place in the project where a
//! number becomes text for a reader (text, Markdown, HTML; JSON and CSV keep raw numbers):
//! a sensible number of significant digits, digits grouped by threes with a comma
//! (`106,456,002`), no exponent (`1.26e12`), units scaled to a readable size and shared by a
//! heading and the values under it, estimates rounded to the precision their interval
//! supports, p-values in one style (`p = 0.0022`, `p < 0.0001`), percentages in one style
//! (`10.7 %`), interval bounds that print differently when they differ.

/// Magnitudes (powers of ten) written in plain digits; beyond them (never a measured
/// quantity: an overflow or a degenerate statistic) an exponent is the honest form.
const PLAIN_MAGNITUDES: std::ops::RangeInclusive<i32> = -12..=18;

/// `n` and a noun in the singular or the plural (defined with the units, below every stage
/// that counts, the interruption messages among them).
pub(crate) use crate::units::counted;

/// `x` with `digits` significant digits in plain, grouped digits (`12,346`, `0.0031`): every
/// digit before the decimal point is shown, so a large number is never rounded to zeros.
pub(crate) fn sig(x: f64, digits: usize) -> String {
    if !x.is_finite() {
        return if x.is_nan() {
            "n/a".into()
        } else if x > 0.0 {
            "∞".into()
        } else {
            "−∞".into()
        };
    }
    if x == 0.0 {
        return "0".into();
    }
    let magnitude = x.abs().log10().floor() as i32;
    if !PLAIN_MAGNITUDES.contains(&magnitude) {
        return format!("{:.*e}", digits.saturating_sub(1), x);
    }
    fixed(x, decimals_for(x, digits))
}

/// `x` with exactly `decimals` decimals, its integer part grouped by threes with commas.
pub(crate) fn fixed(x: f64, decimals: usize) -> String {
    group_digits(&format!("{x:.decimals$}"))
}

/// Commas between groups of three digits of the integer part of a plain decimal number
/// (`-106456002.25` → `-106,456,002.25`); the sign and the fraction are kept as they are.
fn group_digits(text: &str) -> String {
    let (sign, rest) = match text.strip_prefix('-') {
        Some(r) => ("-", r),
        None => ("", text),
    };
    let (int, frac) = rest.split_at(rest.find('.').unwrap_or(rest.len()));
    if !int.bytes().all(|b| b.is_ascii_digit()) {
        return text.to_string();
    }
    let mut grouped = String::with_capacity(int.len() + int.len() / 3);
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(c);
    }
    format!("{sign}{grouped}{frac}")
}

/// `x` rounded to `digits` significant digits, also left of the decimal point (a variance
/// of a count is known to 3 digits, not to its 13: `1,260,000,000,000`).
fn round_sig(x: f64, digits: usize) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let magnitude = x.abs().log10().floor() as i32;
    let unit = 10f64.powi(magnitude + 1 - digits as i32);
    (x / unit).round() * unit
}

/// A ratio of two means (new/base), to four decimals (a hundredth of a percent of change)
/// so that every ratio and bound lines up and reads against 1.
pub(crate) fn ratio(x: f64) -> String {
    fixed(x, 4)
}

/// The bounds of a ratio's interval as [`ratio`] writes them, with more decimals when
/// needed for them to print differently (`0.99994 to 0.99996`, never `0.9999 to 0.9999`).
pub(crate) fn ratio_bounds(lower: f64, upper: f64) -> (String, String) {
    distinct(lower, upper, 4, fixed)
}

/// A test statistic (F, t, W) to three significant digits, grouped: `21.6`, `13,800`,
/// `12,900,000` (an F of 12904450.3 is not known to its last digits).
pub(crate) fn statistic(x: f64) -> String {
    sig(round_sig(x, 3), 3)
}

/// Number of decimals that shows `x` to `digits` significant digits (0 for large `x`).
fn decimals_for(x: f64, digits: usize) -> usize {
    if x == 0.0 || !x.is_finite() {
        return 0;
    }
    let magnitude = x.abs().log10().floor() as i32;
    (digits as i32 - 1 - magnitude).max(0) as usize
}

/// Number of decimals that shows `x` to at most `digits` significant digits without trailing
/// zeros: `2036.0` → 0, `2036.5` → 1, `1.234567` (6 digits) → 5.
fn natural_decimals(x: f64, digits: usize) -> usize {
    let decimals = decimals_for(x, digits);
    let text = format!("{x:.decimals$}");
    let zeros = text.len() - text.trim_end_matches('0').len();
    decimals - zeros.min(decimals)
}

pub use crate::units::Scale;

// The unit's choice is `crate::units::Scale::for_values` (below the analysis, which scales
// its plot data by it); how a value is written in it is here.
impl Scale {
    /// ` ms`, or nothing for a count.
    fn suffix(&self) -> String {
        if self.name.is_empty() {
            String::new()
        } else {
            format!(" {}", self.name)
        }
    }

    /// `value` in this unit with `digits` significant digits (every integer digit of a
    /// whole number kept: `106,456,002`), e.g. `12.35 ms`.
    pub(crate) fn quantity_digits(&self, value: f64, digits: usize) -> String {
        let v = value / self.factor;
        let text = if v.abs() >= 1e4 && v.fract() == 0.0 && v.abs() < 1e15 {
            fixed(v, 0)
        } else {
            sig(v, digits)
        };
        format!("{text}{}", self.suffix())
    }

    /// `value` in this unit with 4 significant digits.
    pub fn quantity(&self, value: f64) -> String {
        self.quantity_digits(value, 4)
    }

    /// The bounds of an interval in this unit, with enough significant digits that they
    /// print differently.
    pub(crate) fn bounds(&self, lower: f64, upper: f64) -> (String, String) {
        distinct(lower, upper, 4, |x, d| self.quantity_digits(x, d))
    }

    /// A variance (in the stored unit squared) in the square of this unit, 3 significant
    /// digits, no exponent: `0.00436 s²`, `1,258,273,645,123` for a count. A value within
    /// `noise` of zero (rounding of a difference of large sums) is printed as 0, never as
    /// `-4.55e-13 KiB²`.
    pub(crate) fn variance(&self, v: f64, noise: f64) -> String {
        let v = if v.abs() <= noise { 0.0 } else { v };
        let unit2 = if self.name.is_empty() {
            String::new()
        } else {
            format!(" {}²", self.name)
        };
        format!(
            "{}{unit2}",
            sig(round_sig(v / (self.factor * self.factor), 3), 3)
        )
    }

    /// An estimate with its confidence interval, in this unit and rounded to the interval's
    /// precision (two significant digits of the half-width), e.g. `12.34 ms (95 % CI 12.10
    /// to 12.58 ms)`.
    pub fn estimate(&self, mean: f64, lower: f64, upper: f64, confidence: f64) -> String {
        let f = self.factor;
        let half = ((upper - lower) / 2.0 / f).abs();
        let mut decimals = if half > 0.0 {
            decimals_for(half, 2)
        } else if lower == mean {
            // A zero-width interval at the value (a max_rss that never varied) supports no
            // rounding: the value as it is, without decimals it does not have (`2,036`, not
            // `2,036.00`).
            natural_decimals(mean / f, 6)
        } else {
            decimals_for(mean / f, 6)
        };
        // Bounds that differ print differently.
        while lower != upper
            && fixed(lower / f, decimals) == fixed(upper / f, decimals)
            && decimals < 12
        {
            decimals += 1;
        }
        let u = self.suffix();
        format!(
            "{}{u} ({} CI {} to {}{u})",
            fixed(mean / f, decimals),
            level(confidence),
            fixed(lower / f, decimals),
            fixed(upper / f, decimals),
        )
    }
}

/// `value` in `unit`, scaled and with 4 significant digits, e.g. `12.35 ms` or `8,794,334`
/// (a count).
pub(crate) fn quantity(value: f64, unit: &str) -> String {
    Scale::for_values(unit, value).quantity(value)
}

/// The most digits [`distinct`] adds to tell two bounds apart.
const MAX_EXTRA_DIGITS: usize = 6;

/// Formats the two bounds of an interval with `format(bound, digits)` from `digits` on,
/// adding digits until they print differently (when they differ at all), so that an
/// interval never reads "3.4 % to 3.4 %".
fn distinct(
    lower: f64,
    upper: f64,
    digits: usize,
    format: impl Fn(f64, usize) -> String,
) -> (String, String) {
    let d = distinct_digits(lower, upper, digits, &format);
    (format(lower, d), format(upper, d))
}

/// The digits [`distinct`] settles on: from `digits` on, the first at which the two bounds
/// print differently (or the most it tries).
fn distinct_digits(
    lower: f64,
    upper: f64,
    digits: usize,
    format: &impl Fn(f64, usize) -> String,
) -> usize {
    let mut d = digits;
    loop {
        if format(lower, d) != format(upper, d) || lower == upper || d >= digits + MAX_EXTRA_DIGITS
        {
            return d;
        }
        d += 1;
    }
}

/// An estimate with its confidence interval, rounded to the interval's precision (two
/// significant digits of the half-width), e.g. `12.34 ms (95 % CI 12.10 to 12.58 ms)`.
pub(crate) fn estimate(mean: f64, lower: f64, upper: f64, unit: &str, confidence: f64) -> String {
    Scale::for_values(unit, mean).estimate(mean, lower, upper, confidence)
}

/// A share as a percentage with about `digits` significant digits, e.g. `3.3 %`.
pub fn percent(share: f64, digits: usize) -> String {
    percent_extra(share, digits, 0)
}

/// A share with its sign, `+1.2 %`, `−0.31 %` (a true minus sign); a share too small to print
/// (`< 0.0001 %`) gets no sign.
pub(crate) fn signed_percent(share: f64) -> String {
    signed_percent_extra(share, 0)
}

/// [`signed_percent`] with `extra` more decimals.
fn signed_percent_extra(share: f64, extra: usize) -> String {
    let magnitude = percent_extra(share.abs(), 2, extra);
    if magnitude.starts_with('<') {
        magnitude
    } else if share < 0.0 {
        format!("−{magnitude}")
    } else {
        format!("+{magnitude}")
    }
}

/// An estimate and its two bounds as [`signed_percent`] writes them, all with the decimals
/// the bounds need to print differently (one number is never shorter than its interval).
pub(crate) fn signed_percents([estimate, lower, upper]: [f64; 3]) -> [String; 3] {
    let extra = distinct_digits(lower, upper, 0, &signed_percent_extra);
    [estimate, lower, upper].map(|x| signed_percent_extra(x, extra))
}

/// [`percent`] with `extra` more decimals than it would show.
fn percent_extra(share: f64, digits: usize, extra: usize) -> String {
    if !share.is_finite() {
        return sig(share, digits);
    }
    let p = share * 100.0;
    if p != 0.0 && p.abs() < 1e-4 && extra == 0 {
        return format!("{}0.0001 %", if p < 0.0 { "> −" } else { "< " });
    }
    let d = if p.abs() >= 10.0 {
        1
    } else {
        decimals_for(p, digits).clamp(1, 4)
    } + extra;
    format!("{} %", fixed(p, d))
}

/// Two shares as [`percent`] writes them, with more decimals when needed for them to print
/// differently (the bounds of an interval).
pub(crate) fn percent_bounds(lower: f64, upper: f64, digits: usize) -> (String, String) {
    distinct(lower, upper, 0, |x, extra| percent_extra(x, digits, extra))
}

/// The confidence level in words, e.g. `95 %`.
pub(crate) fn level(confidence: f64) -> String {
    let p = confidence * 100.0;
    if (p - p.round()).abs() < 1e-9 {
        format!("{p:.0} %")
    } else {
        format!("{} %", sig(p, 3))
    }
}

/// A p-value, the one way every command writes it: two significant digits of the value
/// rounded to them (`p = 0.031`, and 0.9996 is `p = 1.0` as 1 is, never `p = 1.00`),
/// `p < 0.0001` below that.
pub(crate) fn p_value(p: f64) -> String {
    probability("p", p)
}

/// A q-value (a p-value adjusted for the false discovery rate), written as [`p_value`]
/// writes p: `q = 0.21`, `q < 0.0001`.
pub(crate) fn q_value(q: f64) -> String {
    probability("q", q)
}

fn probability(name: &str, p: f64) -> String {
    if p.is_nan() {
        format!("{name} n/a")
    } else if p < 1e-4 {
        format!("{name} < 0.0001")
    } else {
        format!("{name} = {}", two_digits(p))
    }
}

/// `x` (positive, below 10) to two significant digits, counted after rounding: when the
/// rounding carries into the next power of ten (0.9996 → `1.00`), one decimal fewer
/// (`1.0`).
fn two_digits(x: f64) -> String {
    let decimals = decimals_for(x, 2);
    let text = format!("{x:.decimals$}");
    let digits = text.replace('.', "").trim_start_matches('0').len();
    if digits > 2 && decimals > 0 {
        format!("{x:.*}", decimals - 1)
    } else {
        text
    }
}

/// An estimate of a ratio-based change as in "5.5 % faster (95 % CI 3.0 % to 8.0 %)".
///
/// `ratio` is new/reference; `lower`/`upper` its interval. `better`/`worse` are the words for
/// a ratio below and above 1 (e.g. "faster"/"slower" for times).
pub(crate) fn change(
    ratio: f64,
    lower: f64,
    upper: f64,
    confidence: f64,
    better: &str,
    worse: &str,
) -> String {
    let (headline, interval) = change_parts(ratio, lower, upper, confidence, better, worse);
    format!("{headline} ({interval})")
}

/// The two halves of [`change`]: the change itself ("5.5 % faster") and its interval
/// ("95 % CI: 3.0 % to 8.0 % faster"), for sentences that put words between them. An end
/// of the interval past every ratio (a lower end at or below zero, an upper end at
/// infinity) is said as such: "at least 10.0 % faster", "from any amount faster to 20.0 %
/// slower"; an end that is not a number makes the interval "not computable".
pub(crate) fn change_parts(
    ratio: f64,
    lower: f64,
    upper: f64,
    confidence: f64,
    better: &str,
    worse: &str,
) -> (String, String) {
    let bounded = |r: f64| r.is_finite() && r > 0.0;
    let bounds = match (bounded(lower), bounded(upper)) {
        _ if lower.is_nan() || upper.is_nan() || upper <= 0.0 => "not computable".to_string(),
        (true, true) => return bounded_change(ratio, [lower, upper], confidence, [better, worse]),
        (false, false) => "unbounded either way".to_string(),
        (false, true) if upper <= 1.0 => format!("at least {} {better}", amount(upper, 0)),
        (false, true) => format!("from any amount {better} to {} {worse}", amount(upper, 0)),
        (true, false) if lower > 1.0 => format!("at least {} {worse}", amount(lower, 0)),
        (true, false) => format!("from {} {better} to any amount {worse}", amount(lower, 0)),
    };
    let word = if ratio <= 1.0 { better } else { worse };
    (
        format!("{} {word}", amount(ratio, 0)),
        format!("{} CI: {bounds}", level(confidence)),
    )
}

/// [`change_parts`] of an interval whose two ends are finite ratios above zero.
fn bounded_change(
    ratio: f64,
    [lower, upper]: [f64; 2],
    confidence: f64,
    [better, worse]: [&str; 2],
) -> (String, String) {
    let word = |r: f64| if r <= 1.0 { better } else { worse };
    // Bounds on either side of "no change" read differently by their words already: more
    // digits would only make "from 17.2041745 % lower to 17.2041745 % higher". The change
    // itself takes the bounds' digits, so that one number is not "8.5 %" beside bounds of
    // "8.5018 % to 8.5019 %" (issue 55).
    let extra = if word(lower) == word(upper) {
        distinct_digits(lower, upper, 0, &amount)
    } else {
        0
    };
    let (low_text, high_text) = (amount(lower, extra), amount(upper, extra));
    let bounds = if word(lower) == word(upper) {
        // Same direction at both ends: smaller change first.
        let (near, far) = if (1.0 - lower).abs() <= (1.0 - upper).abs() {
            (low_text, high_text)
        } else {
            (high_text, low_text)
        };
        format!("{near} to {far} {}", word(lower))
    } else {
        format!(
            "from {low_text} {} to {high_text} {}",
            word(lower),
            word(upper)
        )
    };
    (
        format!("{} {}", amount(ratio, extra), word(ratio)),
        format!("{} CI: {bounds}", level(confidence)),
    )
}

/// A ratio's size as a change, without its direction: "5.5 %" of the reference for ratios
/// between 0.5 and 2, "2.1×" beyond (a time cut by more than half is "2.1× faster", never
/// "110 % faster"); `extra` decimals more than usual. A ratio of positive quantities is
/// positive: anything else is "not computable".
fn amount(ratio: f64, extra: usize) -> String {
    if !(ratio.is_finite() && ratio > 0.0) {
        "not computable".to_string()
    } else if ratio < 0.5 {
        format!("{}×", sig(1.0 / ratio, 2 + extra))
    } else if ratio > 2.0 {
        format!("{}×", sig(ratio, 2 + extra))
    } else {
        percent_extra((1.0 - ratio).abs(), 2, extra)
    }
}

/// `text` with its first letter in upper case (a sentence that starts with a verdict's
/// words, which are lower case where they stand inside a sentence).
pub fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// A duration in words: `850 ms`, `12.5 s`, `3.2 min`, `4.1 h`.
pub(crate) fn duration(seconds: f64) -> String {
    if seconds < 1.0 {
        quantity(seconds * 1e9, "ns")
    } else if seconds < 120.0 {
        format!("{} s", sig(seconds, 3))
    } else if seconds < 7200.0 {
        format!("{} min", sig(seconds / 60.0, 3))
    } else {
        format!("{} h", sig(seconds / 3600.0, 3))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn significant_digits() {
        assert_eq!(sig(1.23456, 3), "1.23");
        assert_eq!(sig(0.0031416, 2), "0.0031");
        assert_eq!(sig(12345.6, 3), "12,346");
        assert_eq!(sig(-106_456_002.0, 4), "-106,456,002");
        assert_eq!(sig(999.96, 3), "1,000");
        assert_eq!(sig(f64::INFINITY, 3), "∞");
        assert_eq!(sig(0.0, 3), "0");
    }

    #[test]
    fn no_exponent_for_any_measured_magnitude() {
        // Issue 24: "1.26e12" in a table of variances, "5.70e-4 s²".
        assert_eq!(sig(1.258_273_645_123e12, 3), "1,258,273,645,123");
        assert_eq!(sig(-0.000_123, 2), "-0.00012");
        assert_eq!(sig(5.7e-4, 3), "0.000570");
        assert_eq!(sig(1e-300, 2), "1.0e-300");
        assert_eq!(fixed(1234.5, 1), "1,234.5");
        assert_eq!(fixed(-999.0, 0), "-999");
        assert_eq!(fixed(-1000.0, 0), "-1,000");
    }

    #[test]
    fn variances_in_the_heading_unit_squared_and_noise_as_zero() {
        let s = Scale::for_values("ns", 7.2e9);
        assert_eq!(s.variance(4.36e15, 0.0), "0.00436 s²");
        assert_eq!(s.variance(-4.55e-13, 1e-9), "0 s²");
        let count = Scale::for_values("count", 1e8);
        assert_eq!(
            count.variance(1_256_866_835_066.0, 0.0),
            "1,260,000,000,000"
        );
        assert_eq!(count.variance(57_389_106_218.0, 0.0), "57,400,000,000");
        // The values under a heading in seconds stay in seconds.
        assert_eq!(s.quantity(9.8e8), "0.9800 s");
    }

    #[test]
    fn ratios_and_their_bounds() {
        assert_eq!(ratio(0.89854), "0.8985");
        assert_eq!(
            ratio_bounds(0.99992, 0.99994),
            ("0.99992".into(), "0.99994".into())
        );
        assert_eq!(statistic(13_800.59), "13,800");
        assert_eq!(statistic(12_904_450.3), "12,900,000");
        assert_eq!(statistic(0.85), "0.850");
    }

    #[test]
    fn times_are_scaled() {
        assert_eq!(quantity(12_345_678.0, "ns"), "12.35 ms");
        assert_eq!(quantity(1.5e9, "ns"), "1.500 s");
        assert_eq!(quantity(8_794_334.0, "count"), "8,794,334");
        assert_eq!(quantity(2048.0, "KiB"), "2,048 KiB");
        assert_eq!(
            estimate(2_091_470.4, 2_056_245.0, 2_126_695.0, "KiB", 0.95),
            "2,091,470 KiB (95 % CI 2,056,245 to 2,126,695 KiB)"
        );
    }

    #[test]
    fn estimate_is_rounded_to_its_interval() {
        let s = estimate(12_345_678.0, 12_100_000.0, 12_590_000.0, "ns", 0.95);
        assert_eq!(s, "12.35 ms (95 % CI 12.10 to 12.59 ms)");
    }

    #[test]
    fn a_zero_width_interval_prints_the_value_at_its_own_precision() {
        // A max_rss that never varied read "2,036.00 KiB (95 % CI 2,036.00 to 2,036.00 KiB)":
        // no interval asks for decimals the value does not have.
        assert_eq!(
            estimate(2036.0, 2036.0, 2036.0, "KiB", 0.95),
            "2,036 KiB (95 % CI 2,036 to 2,036 KiB)"
        );
        assert_eq!(
            estimate(2036.5, 2036.5, 2036.5, "KiB", 0.95),
            "2,036.5 KiB (95 % CI 2,036.5 to 2,036.5 KiB)"
        );
        assert_eq!(
            estimate(1_500_000.0, 1_500_000.0, 1_500_000.0, "ns", 0.95),
            "1.5 ms (95 % CI 1.5 to 1.5 ms)"
        );
        // At most six significant digits, as before.
        assert_eq!(
            estimate(1_234_567.0, 1_234_567.0, 1_234_567.0, "ns", 0.95),
            "1.23457 ms (95 % CI 1.23457 to 1.23457 ms)"
        );
    }

    #[test]
    fn change_in_words() {
        let s = change(0.945, 0.92, 0.97, 0.95, "faster", "slower");
        assert_eq!(s, "5.5 % faster (95 % CI: 3.0 % to 8.0 % faster)");
        let s = change(1.01, 0.99, 1.03, 0.95, "faster", "slower");
        assert_eq!(
            s,
            "1.0 % slower (95 % CI: from 1.0 % faster to 3.0 % slower)"
        );
        let s = change(1.05, 1.02, 1.08, 0.9, "lower", "higher");
        assert_eq!(s, "5.0 % higher (90 % CI: 2.0 % to 8.0 % higher)");
    }

    #[test]
    fn tiny_percentages_are_bounded_not_zero() {
        assert_eq!(percent(3e-7, 2), "< 0.0001 %");
        assert_eq!(percent(0.033, 2), "3.3 %");
        assert_eq!(percent(0.0, 2), "0.0 %");
    }

    #[test]
    fn p_values_never_read_zero() {
        assert_eq!(p_value(0.0), "p < 0.0001");
        assert_eq!(p_value(0.0312), "p = 0.031");
    }

    #[test]
    fn p_values_keep_two_digits_across_a_power_of_ten() {
        let written = [1.0, 0.9996, 0.5, 0.000_999_7, 0.001, f64::NAN].map(p_value);
        insta::assert_snapshot!(written.join("\n"));
    }
    #[test]
    fn bounds_of_opposite_directions_keep_their_precision() {
        // The same distance from 1 either way (a Fieller interval of a tie): the words tell
        // the bounds apart, the digits need not.
        let text = change(1.0, 0.828, 1.172, 0.95, "lower", "higher");
        assert!(
            text.ends_with("(95 % CI: from 17.2 % lower to 17.2 % higher)"),
            "{text}"
        );
    }

    #[test]
    fn interval_bounds_always_print_differently() {
        // Issue 21: "95 % CI: 3.4 % to 3.4 %".
        let s = change(0.966, 0.9658, 0.9662, 0.95, "faster", "slower");
        assert_eq!(s, "3.40 % faster (95 % CI: 3.38 % to 3.42 % faster)");
        let (a, b) = percent_bounds(0.03412, 0.03418, 2);
        assert_ne!(a, b);
        assert_eq!((a.as_str(), b.as_str()), ("3.41 %", "3.42 %"));
        let (a, b) = Scale::for_values("ns", 1.2345e9).bounds(1.234_51e9, 1.234_53e9);
        assert_eq!((a.as_str(), b.as_str()), ("1.23451 s", "1.23453 s"));
        // Equal bounds stay equal (a tie), at the usual digits.
        assert_eq!(percent_bounds(0.02, 0.02, 2).0, "2.0 %");
    }

    #[test]
    fn large_changes_are_factors_not_percentages_beyond_100() {
        // Issue 21: "from 276.5 % faster to 294.0 % slower" cannot be.
        let s = change(0.48, 0.4, 0.6, 0.95, "faster", "slower");
        assert_eq!(s, "2.1× faster (95 % CI: 40.0 % to 2.5× faster)");
        let s = change(3.0, 2.5, 3.5, 0.95, "faster", "slower");
        assert_eq!(s, "3.0× slower (95 % CI: 2.5× to 3.5× slower)");
        insta::assert_snapshot!(change(0.5, -0.2, 1.2, 0.95, "faster", "slower"));
    }

    #[test]
    fn an_open_end_of_an_interval_is_said_as_open_never_as_a_number() {
        let open = [
            change(0.8, 0.0, 0.9, 0.95, "faster", "slower"),
            change(1.3, 1.1, f64::INFINITY, 0.95, "faster", "slower"),
            change(1.1, 0.9, f64::INFINITY, 0.95, "lower", "higher"),
            change(1.0, -0.5, f64::INFINITY, 0.95, "faster", "slower"),
            change(1.0, f64::NAN, 1.2, 0.95, "faster", "slower"),
        ];
        insta::assert_snapshot!(open.join("\n"));
    }
}
