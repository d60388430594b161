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
    let (f, u) = scale_for(unit, value);
    let v = value / f;
    let text = if v.abs() >= 1e4 && v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        sig(v, 4)
    };
    if u.is_empty() {
        text
    } else {
        format!("{text} {u}")
    }
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
    if !share.is_finite() {
        return sig(share, digits);
    }
    let p = share * 100.0;
    if p != 0.0 && p.abs() < 1e-4 {
        return format!("{}0.0001 %", if p < 0.0 { "> −" } else { "< " });
    }
    let d = if p.abs() >= 10.0 {
        1
    } else {
        decimals_for(p, digits).clamp(1, 4)
    };
    format!("{p:.d$} %")
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
    let amount = |r: f64| percent((1.0 - r).abs(), 2);
    let bounds = if word(lower) == word(upper) {
        // Same direction at both ends: smaller change first.
        let (near, far) = if (1.0 - lower).abs() <= (1.0 - upper).abs() {
            (lower, upper)
        } else {
            (upper, lower)
        };
        format!("{} to {} {}", amount(near), amount(far), word(far))
    } else {
        format!(
            "from {} {} to {} {}",
            amount(lower),
            word(lower),
            amount(upper),
            word(upper)
        )
    };
    (
        format!("{} {}", amount(ratio), word(ratio)),
        format!("{} CI: {bounds}", level(confidence)),
    )
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
}
