//! Numbers as a careful statistician writes them: a sensible number of significant digits,
//! units scaled to a readable size, estimates rounded to the precision their interval
//! supports, p-values that never read "0".

/// `x` with `digits` significant digits, without an exponent for ordinary magnitudes.
pub fn sig(x: f64, digits: usize) -> String {
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
    if !(-4..=9).contains(&magnitude) {
        return format!("{:.*e}", digits.saturating_sub(1), x);
    }
    let decimals = (digits as i32 - 1 - magnitude).max(0) as usize;
    format!("{x:.decimals$}")
}

/// `x` with `digits` significant digits, in exponent form (`2.29e9`) when it is large or
/// small enough that plain digits would be hard to read (variances in ns², say).
pub fn compact(x: f64, digits: usize) -> String {
    let a = x.abs();
    if x != 0.0 && a.is_finite() && !(1e-3..1e6).contains(&a) {
        format!("{:.*e}", digits.saturating_sub(1), x)
    } else {
        sig(x, digits)
    }
}

/// Number of decimals that shows `x` to `digits` significant digits (0 for large `x`).
fn decimals_for(x: f64, digits: usize) -> usize {
    if x == 0.0 || !x.is_finite() {
        return 0;
    }
    let magnitude = x.abs().log10().floor() as i32;
    (digits as i32 - 1 - magnitude).max(0) as usize
}

/// A time in nanoseconds (or another unit) scaled to a readable unit: returns the factor to
/// divide by and the unit's name. Non-time units are left as they are.
pub fn scale_for(unit: &str, typical: f64) -> (f64, String) {
    // A plain count (cachegrind misses) needs no unit after the number.
    if unit == "count" {
        return (1.0, String::new());
    }
    let Some(ns_per) = crate::units::seconds_per(unit).map(|s| s * 1e9) else {
        return (1.0, unit.to_string());
    };
    let ns = typical.abs() * ns_per;
    let (factor, name) = if ns >= 1e9 {
        (1e9, "s")
    } else if ns >= 1e6 {
        (1e6, "ms")
    } else if ns >= 1e3 {
        (1e3, "µs")
    } else {
        (1.0, "ns")
    };
    (factor / ns_per, name.to_string())
}

/// `value` in `unit`, scaled and with 4 significant digits, e.g. `12.35 ms` or `8794334 count`.
pub fn quantity(value: f64, unit: &str) -> String {
    quantity_digits(value, unit, 4)
}

/// [`quantity`] with `digits` significant digits.
fn quantity_digits(value: f64, unit: &str, digits: usize) -> String {
    let (f, u) = scale_for(unit, value);
    let v = value / f;
    let text = if v.abs() >= 1e4 && v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        sig(v, digits)
    };
    if u.is_empty() {
        text
    } else {
        format!("{text} {u}")
    }
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
    let mut d = digits;
    loop {
        let (a, b) = (format(lower, d), format(upper, d));
        if a != b || lower == upper || d >= digits + MAX_EXTRA_DIGITS {
            return (a, b);
        }
        d += 1;
    }
}

/// The bounds of an interval of a quantity, as [`quantity`] writes them, with enough
/// significant digits that they print differently.
pub fn quantity_bounds(lower: f64, upper: f64, unit: &str) -> (String, String) {
    distinct(lower, upper, 4, |x, d| quantity_digits(x, unit, d))
}

/// An estimate with its confidence interval, rounded to the interval's precision (two
/// significant digits of the half-width), e.g. `12.34 ms (95 % CI 12.10 to 12.58 ms)`.
pub fn estimate(mean: f64, lower: f64, upper: f64, unit: &str, confidence: f64) -> String {
    let (f, u) = scale_for(unit, mean);
    let half = ((upper - lower) / 2.0 / f).abs();
    let decimals = if half > 0.0 {
        decimals_for(half, 2)
    } else {
        decimals_for(mean / f, 6)
    };
    let unit_suffix = if u.is_empty() {
        String::new()
    } else {
        format!(" {u}")
    };
    format!(
        "{:.d$}{unit_suffix} ({} CI {:.d$} to {:.d$}{unit_suffix})",
        mean / f,
        level(confidence),
        lower / f,
        upper / f,
        d = decimals
    )
}

/// A share as a percentage with about `digits` significant digits, e.g. `3.3 %`.
pub fn percent(share: f64, digits: usize) -> String {
    percent_extra(share, digits, 0)
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
    format!("{p:.d$} %")
}

/// Two shares as [`percent`] writes them, with more decimals when needed for them to print
/// differently (the bounds of an interval).
pub fn percent_bounds(lower: f64, upper: f64, digits: usize) -> (String, String) {
    distinct(lower, upper, 0, |x, extra| percent_extra(x, digits, extra))
}

/// The confidence level in words, e.g. `95 %`.
pub fn level(confidence: f64) -> String {
    let p = confidence * 100.0;
    if (p - p.round()).abs() < 1e-9 {
        format!("{p:.0} %")
    } else {
        format!("{} %", sig(p, 3))
    }
}

/// A p-value: two significant digits, `< 0.0001` below that.
pub fn p_value(p: f64) -> String {
    if p.is_nan() {
        "n/a".into()
    } else if p < 1e-4 {
        "p < 0.0001".into()
    } else {
        format!("p = {}", sig(p, 2))
    }
}

/// An estimate of a ratio-based change as in "5.5 % faster (95 % CI 3.0 % to 8.0 %)".
///
/// `ratio` is new/reference; `lower`/`upper` its interval. `better`/`worse` are the words for
/// a ratio below and above 1 (e.g. "faster"/"slower" for times).
pub fn change(
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
/// ("95 % CI: 3.0 % to 8.0 % faster"), for sentences that put words between them.
pub fn change_parts(
    ratio: f64,
    lower: f64,
    upper: f64,
    confidence: f64,
    better: &str,
    worse: &str,
) -> (String, String) {
    let word = |r: f64| if r <= 1.0 { better } else { worse };
    let (low_text, high_text) = distinct(lower, upper, 0, amount);
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
        format!("{} {}", amount(ratio, 0), word(ratio)),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn significant_digits() {
        assert_eq!(sig(1.23456, 3), "1.23");
        assert_eq!(sig(0.0031416, 2), "0.0031");
        assert_eq!(sig(12345.6, 3), "12346");
        assert_eq!(sig(f64::INFINITY, 3), "∞");
        assert_eq!(sig(0.0, 3), "0");
    }

    #[test]
    fn compact_uses_exponents_for_extremes() {
        assert_eq!(compact(2_286_534_738.0, 3), "2.29e9");
        assert_eq!(compact(-0.000_123, 2), "-1.2e-4");
        assert_eq!(compact(123.456, 3), "123");
    }

    #[test]
    fn times_are_scaled() {
        assert_eq!(quantity(12_345_678.0, "ns"), "12.35 ms");
        assert_eq!(quantity(1.5e9, "ns"), "1.500 s");
        assert_eq!(quantity(8_794_334.0, "count"), "8794334");
        assert_eq!(quantity(2048.0, "KiB"), "2048 KiB");
    }

    #[test]
    fn estimate_is_rounded_to_its_interval() {
        let s = estimate(12_345_678.0, 12_100_000.0, 12_590_000.0, "ns", 0.95);
        assert_eq!(s, "12.35 ms (95 % CI 12.10 to 12.59 ms)");
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
    fn interval_bounds_always_print_differently() {
        // Issue 21: "95 % CI: 3.4 % to 3.4 %".
        let s = change(0.966, 0.9658, 0.9662, 0.95, "faster", "slower");
        assert_eq!(s, "3.4 % faster (95 % CI: 3.38 % to 3.42 % faster)");
        let (a, b) = percent_bounds(0.03412, 0.03418, 2);
        assert_ne!(a, b);
        assert_eq!((a.as_str(), b.as_str()), ("3.41 %", "3.42 %"));
        let (a, b) = quantity_bounds(1.234_51e9, 1.234_53e9, "ns");
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
        assert!(change(0.5, -0.2, 1.2, 0.95, "faster", "slower").contains("not computable"));
    }
}
