//! Time units and durations: the one table of metric time units (the report's scaling of
//! times, and the question "is this metric a time?"), the one duration parser of the project
//! (`--budget`, `--timeout`, `--costs`: the `humantime` crate's syntax, or plain seconds, with
//! one documented maximum); the one parser of byte counts (`build --pad`); the one percent
//! parser (`1%` and `0.01` mean the same everywhere) and the one `--costs` syntax.

use std::time::Duration;

use anyhow::{bail, Result};

/// Every time unit a metric is stored in, with its length in seconds (`ns` for wall/cpu
/// times, `us`/`ms`/`s` for program-reported times, `m` and `h` for long ones).
pub(crate) const TIME_UNITS: &[(&str, f64)] = &[
    ("ns", 1e-9),
    ("us", 1e-6),
    ("µs", 1e-6),
    ("ms", 1e-3),
    ("s", 1.0),
    ("m", 60.0),
    ("h", 3600.0),
];

/// Seconds per `unit`, when it is a time unit.
pub(crate) fn seconds_per(unit: &str) -> Option<f64> {
    TIME_UNITS
        .iter()
        .find(|(name, _)| *name == unit)
        .map(|(_, s)| *s)
}

/// Whether values in `unit` are times (so lower means faster).
pub(crate) fn is_time_unit(unit: &str) -> bool {
    seconds_per(unit).is_some()
}

/// Whether values in `unit` are rates: an amount per time (`MB/s`, `Mbyte/s`, `ops/ms`), so
/// higher means faster. A metric's direction is read from its unit only; a value without a
/// unit is taken as a cost (lower is better), as times and counts are.
pub(crate) fn is_rate_unit(unit: &str) -> bool {
    unit.rsplit_once('/')
        .is_some_and(|(amount, per)| !amount.trim().is_empty() && is_time_unit(per.trim()))
}

/// The longest duration any option or file accepts (`--timeout`, `--budget`, `--costs`,
/// `[run] timeout`): a year of 365.25 days (what `humantime` calls `1year`). Longer is a
/// typo, and bounding it keeps every deadline computed from it (`now + duration`)
/// representable.
pub(crate) const MAX_DURATION: Duration = Duration::from_secs(31_557_600);

/// [`MAX_DURATION`] as a reader writes it (`humantime` writes `1year`, without the space).
const MAX_DURATION_WORDS: &str = "1 year";

/// `n` and a noun in the singular or the plural as `n` asks: `counted(1, "binary",
/// "binaries")` is `1 binary`, `counted(3, "binary", "binaries")` is `3 binaries`.
pub(crate) fn counted<N>(n: N, one: &str, many: &str) -> String
where
    N: std::fmt::Display + PartialEq + From<u8>,
{
    let noun = if n == N::from(1) { one } else { many };
    format!("{n} {noun}")
}

/// Parses a positive duration of at most [`MAX_DURATION`]: a plain number of seconds
/// (`30`, `2.5`, as `--timeout` always took), or a human-readable duration read by the
/// `humantime` crate (`90s`, `10m`, `1h30m`, `1h 30min`, `20ms`, `0.5s`, `3µs`, `2days`).
/// The one duration parser of the project: `--budget`, `--timeout`, `--costs`.
pub(crate) fn parse_duration(text: &str) -> Result<Duration> {
    let t = text.trim();
    if t.is_empty() {
        bail!("empty duration");
    }
    let duration = if let Some(seconds) = decimal_seconds(t) {
        if !(seconds.is_finite() && seconds >= 0.0) {
            bail!("duration {text:?} must be a positive number of seconds");
        }
        if seconds > 0.0 && seconds < 1e-9 {
            // Positive, yet nothing a Duration of whole nanoseconds holds.
            bail!("duration {text:?} is shorter than the least accepted, 1 ns");
        }
        // Anything too large for a Duration is above the maximum anyway.
        Duration::try_from_secs_f64(seconds).unwrap_or(Duration::MAX)
    } else {
        humantime::parse_duration(t).map_err(|e| match e {
            // humantime reports a fraction with more digits than it keeps as an overflow too,
            // but those are read by `decimal_seconds` before it is asked.
            humantime::DurationError::NumberOverflow => anyhow::anyhow!(
                "duration {text:?} is longer than the most accepted, {MAX_DURATION_WORDS}"
            ),
            e => anyhow::anyhow!("duration {text:?}: {e} (e.g. 30, 2.5, 90s, 10m, 1h30m or 20ms)"),
        })?
    };
    if duration.is_zero() {
        bail!("duration {text:?} must be positive");
    }
    if duration > MAX_DURATION {
        bail!("duration {text:?} is longer than the most accepted, {MAX_DURATION_WORDS}");
    }
    Ok(duration)
}

/// A plain number of seconds (`2.5`), or one decimal number followed by one time unit of
/// [`TIME_UNITS`] or `min`/`sec` (`0.6355019997s`, `1.5ms`), in seconds. `humantime` keeps at
/// most nine decimals and calls a longer fraction an overflow, so a cost printed to full
/// precision (ten decimals) would be refused as "too long"; these forms are read here instead.
fn decimal_seconds(text: &str) -> Option<f64> {
    if let Ok(seconds) = text.parse::<f64>() {
        return Some(seconds);
    }
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .filter(|&i| i > 0)?;
    let (number, unit) = text.split_at(split);
    let factor = match unit.trim() {
        "min" => 60.0,
        "sec" => 1.0,
        unit => seconds_per(unit)?,
    };
    number.parse::<f64>().ok().map(|n| n * factor)
}

/// [`parse_duration`] as a clap value parser (`--timeout`, `--budget`).
#[cfg(feature = "cli")]
pub(crate) fn duration_arg(text: &str) -> std::result::Result<Duration, String> {
    parse_duration(text).map_err(|e| format!("{e:#}"))
}

/// A duration stored as seconds (`[run] timeout`, a store header's `timeout_seconds`),
/// checked as [`parse_duration`] checks what it reads: positive, finite, at most
/// [`MAX_DURATION`].
pub(crate) fn duration_from_seconds(seconds: f64) -> Result<Duration> {
    if !(seconds.is_finite() && seconds > 0.0) {
        bail!("{seconds} s: a duration must be a positive number of seconds");
    }
    match Duration::try_from_secs_f64(seconds) {
        Ok(d) if !d.is_zero() && d <= MAX_DURATION => Ok(d),
        Ok(d) if d.is_zero() => bail!("{seconds} s: shorter than the least accepted, 1 ns"),
        _ => bail!(
            "{seconds} s: a duration must be positive and at most {MAX_DURATION_WORDS} ({} s)",
            MAX_DURATION.as_secs()
        ),
    }
}

/// Parses a byte count: a non-negative integer, optionally followed by `B` or `KiB`
/// (`256`, `256B`, `4KiB`).
// Read by `--pad`'s value parser only (the `cli` feature).
#[cfg(any(feature = "cli", test))]
pub(crate) fn parse_bytes(text: &str) -> Result<u64> {
    let t = text.trim();
    let (number, factor) = if let Some(n) = t.strip_suffix("KiB") {
        (n, 1024)
    } else if let Some(n) = t.strip_suffix('B') {
        (n, 1)
    } else {
        (t, 1)
    };
    let Ok(n) = number.trim().parse::<u64>() else {
        bail!("{text:?} is not a number of bytes (a non-negative integer, e.g. 256 or 4KiB)");
    };
    n.checked_mul(factor)
        .ok_or_else(|| anyhow::anyhow!("{text:?} is too many bytes"))
}

/// Parses repetition costs written `LEVEL=TIME,LEVEL=TIME…` (`binary=20s,execution=2s,
/// iteration=0.5s`; a time takes the units of [`parse_duration`], a bare
/// number is seconds): the one `--costs` syntax of `analyze` and `dimension`. Returns the
/// (level, seconds) pairs in the order given; each cost is positive and finite, each level
/// named once. Which level names are valid is the caller's to check.
pub fn parse_costs(text: &str) -> Result<Vec<(String, f64)>> {
    let mut costs: Vec<(String, f64)> = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let Some((name, value)) = part.split_once('=') else {
            bail!("--costs: `{part}` is not LEVEL=TIME (e.g. execution=2s)");
        };
        let name = name.trim();
        let seconds = parse_duration(value.trim())
            .map(|d| d.as_secs_f64())
            .map_err(|e| anyhow::anyhow!("--costs: `{part}`: {e:#}"))?;
        if costs.iter().any(|(n, _)| n == name) {
            bail!("--costs names the level `{name}` twice");
        }
        costs.push((name.to_string(), seconds));
    }
    Ok(costs)
}

/// Parses a share written as a percentage (`"1%"`, `"0.5 %"`) or as a fraction (`"0.01"`):
/// both give 0.01. The one percent parser of the project. The value must lie in `[0, 1)`
/// when `allow_zero`, else in `(0, 1)`.
pub(crate) fn parse_share(text: &str, allow_zero: bool) -> Result<f64> {
    let t = text.trim();
    let value = match t.strip_suffix('%') {
        Some(p) => p.trim().parse::<f64>().map(|v| v / 100.0),
        None => t.parse::<f64>(),
    }
    .map_err(|_| {
        anyhow::anyhow!(
            "{text:?} is not a percentage such as 1% or 0.5% (or a fraction such as 0.01)"
        )
    })?;
    let low_ok = if allow_zero {
        value >= 0.0
    } else {
        value > 0.0
    };
    if !(low_ok && value < 1.0) {
        let hint = if !t.ends_with('%') && (1.0..100.0).contains(&value) {
            format!(" (a bare number is a fraction: did you mean {t}%?)")
        } else if value < 0.0 {
            " (a share is never negative: give how large a change is meant, e.g. 5%)".to_string()
        } else {
            String::new()
        };
        bail!(
            "{text:?} must be {}{hint}",
            if allow_zero {
                "at least 0% and below 100%"
            } else {
                "strictly between 0% and 100%"
            }
        );
    }
    Ok(value)
}

/// Parses a strictly positive share (`--target`, precision goals).
pub fn parse_percent(text: &str) -> Result<f64> {
    parse_share(text, false)
}

/// The unit numbers are printed in, chosen once from a typical value (a series' mean) so
/// that a heading and every value under it agree: `wall (s)` over `7.23 s`, never over
/// `980 ms`. Variances are printed in its square.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Scale {
    /// Values in the stored unit are divided by it.
    pub(crate) factor: f64,
    /// The printed unit's name; empty for a plain count.
    pub(crate) name: String,
}

impl Scale {
    /// The readable unit for values of about `typical` in `unit`: times scaled to ns, µs,
    /// ms or s; other units kept; plain counts unitless.
    pub fn for_values(unit: &str, typical: f64) -> Scale {
        // A plain count (cachegrind misses) needs no unit after the number.
        if unit == "count" {
            return Scale {
                factor: 1.0,
                name: String::new(),
            };
        }
        let Some(ns_per) = seconds_per(unit).map(|s| s * 1e9) else {
            return Scale {
                factor: 1.0,
                name: unit.to_string(),
            };
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
        Scale {
            factor: factor / ns_per,
            name: name.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A rate is an amount per time unit; times, counts and bare values are not.
    #[test]
    fn rates_are_amounts_per_time() {
        for rate in ["MB/s", "Mbyte/s", "ops/ms", "items / s", "GiB/us"] {
            assert!(is_rate_unit(rate), "{rate}");
        }
        for not_rate in ["", "ms", "s", "count", "/s", "MB/frame", "bytes"] {
            assert!(!is_rate_unit(not_rate), "{not_rate}");
        }
    }

    #[test]
    fn percent_and_fraction_agree() {
        assert_eq!(parse_percent("1%").unwrap(), 0.01);
        assert_eq!(parse_percent("0.01").unwrap(), 0.01);
        assert_eq!(parse_percent(" 0.5 % ").unwrap(), 0.005);
        assert_eq!(parse_percent("0.02").unwrap(), 0.02);
        assert!(parse_percent("150%").is_err());
        assert!(parse_percent("abc").is_err());
        assert!(parse_percent("0").is_err());
        assert_eq!(parse_share("0", true).unwrap(), 0.0);
        insta::assert_snapshot!(parse_percent("2").unwrap_err().to_string());
        insta::assert_snapshot!(parse_share("-5%", true).unwrap_err().to_string());
    }

    #[test]
    fn byte_counts() {
        assert_eq!(parse_bytes("256").unwrap(), 256);
        assert_eq!(parse_bytes("64B").unwrap(), 64);
        assert_eq!(parse_bytes("4KiB").unwrap(), 4096);
        for bad in [
            "-1",
            "abc",
            "",
            "1.5",
            "99999999999999999999",
            "18014398509481984KiB",
        ] {
            assert!(parse_bytes(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("90s").unwrap(), Duration::from_secs(90));
        assert_eq!(parse_duration("10m").unwrap(), Duration::from_secs(600));
        assert_eq!(parse_duration("1h30m").unwrap(), Duration::from_secs(5400));
        assert_eq!(parse_duration("2.5").unwrap(), Duration::from_millis(2500));
        assert_eq!(parse_duration("20ms").unwrap(), Duration::from_millis(20));
        assert_eq!(parse_duration("3µs").unwrap(), Duration::from_micros(3));
        assert_eq!(parse_duration("0.5s").unwrap(), Duration::from_millis(500));
        assert_eq!(
            parse_duration("1h 30min").unwrap(),
            Duration::from_secs(5400)
        );
        assert_eq!(parse_duration(" 30 ").unwrap(), Duration::from_secs(30));
        // Issue 36: a cost printed to ten decimals was refused as "longer than 1year".
        let precise = parse_duration("0.6355019997s").unwrap().as_secs_f64();
        assert!((precise - 0.6355019997).abs() < 1e-9, "{precise}");
        assert_eq!(
            parse_duration("1.5ms").unwrap(),
            Duration::from_micros(1500)
        );
        assert_eq!(parse_duration("2min").unwrap(), Duration::from_secs(120));
        assert_eq!(parse_duration("3 m").unwrap(), Duration::from_secs(180));
        assert!(parse_duration("10x").is_err());
        assert!(parse_duration("m").is_err());
        assert!(parse_duration("5m3").is_err());
        assert!(parse_duration("-1").is_err());
    }

    /// Issue 22: each of these panicked (`Duration::from_secs_f64`) or overflowed a deadline.
    #[test]
    fn durations_out_of_range_are_errors_not_panics() {
        let mut messages = String::new();
        for bad in [
            "1e30",
            "1e19",
            "99999999999999999999h",
            "99999999999999999999",
            "366days",
            "31557601",
            "inf",
            "NaN",
            "0",
            "0s",
            "",
            "1e-12",
        ] {
            let err = parse_duration(bad).expect_err(bad).to_string();
            messages.push_str(&format!("{bad:?}: {err}\n"));
        }
        insta::assert_snapshot!(messages);
        assert_eq!(parse_duration("365.25days").unwrap(), MAX_DURATION);
        assert_eq!(parse_duration("1year").unwrap(), MAX_DURATION);
        assert_eq!(parse_duration(MAX_DURATION_WORDS).unwrap(), MAX_DURATION);
        assert!(parse_duration("1year 1s").is_err());
        assert_eq!(
            duration_from_seconds(2.5).unwrap(),
            Duration::from_millis(2500)
        );
        for bad in [0.0, -1.0, 1e19, 1e30, f64::NAN, f64::INFINITY, 1e-12] {
            assert!(duration_from_seconds(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn time_units() {
        assert_eq!(seconds_per("ms"), Some(1e-3));
        assert!(is_time_unit("ns") && !is_time_unit("count"));
    }
}
