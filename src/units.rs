//! Time units and durations: the one table of time units and the one duration parser of the
//! project (run `--budget`, dimension `--costs`, the report's scaling of times, and the
//! question "is this metric a time?"); and the one parser of byte counts (`build --pad`).

use std::time::Duration;

use anyhow::{bail, Result};

/// Every time unit the project reads or writes, with its length in seconds. Metric units
/// (`ns` for wall/cpu times, `us`/`ms`/`s` for program-reported times) and duration
/// suffixes (`h`, `m`) come from this one table.
pub const TIME_UNITS: &[(&str, f64)] = &[
    ("ns", 1e-9),
    ("us", 1e-6),
    ("µs", 1e-6),
    ("ms", 1e-3),
    ("s", 1.0),
    ("m", 60.0),
    ("h", 3600.0),
];

/// Seconds per `unit`, when it is a time unit.
pub fn seconds_per(unit: &str) -> Option<f64> {
    TIME_UNITS
        .iter()
        .find(|(name, _)| *name == unit)
        .map(|(_, s)| *s)
}

/// Whether values in `unit` are times (so lower means faster).
pub fn is_time_unit(unit: &str) -> bool {
    seconds_per(unit).is_some()
}

/// Parses a duration made of `<number><unit>` pieces with the units of [`TIME_UNITS`]
/// (`90s`, `10m`, `1h30m`, `20ms`, `0.5s`); a bare number is seconds.
pub fn parse_duration(text: &str) -> Result<Duration> {
    let t = text.trim();
    if t.is_empty() {
        bail!("empty duration");
    }
    let mut total = 0.0f64;
    let mut rest = t;
    if let Ok(secs) = rest.parse::<f64>() {
        total = secs;
        rest = "";
    }
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        if digits == 0 {
            bail!("duration {text:?}: a unit without a number");
        }
        let number: f64 = rest[..digits].parse().map_err(|_| {
            anyhow::anyhow!("duration {text:?}: {:?} is not a number", &rest[..digits])
        })?;
        rest = &rest[digits..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        if unit_len == 0 {
            bail!("duration {text:?}: trailing number without a unit");
        }
        let unit = rest[..unit_len].trim();
        let Some(factor) = seconds_per(unit) else {
            bail!("duration {text:?}: unknown unit {unit:?} (use h, m, s, ms, us, ns, e.g. 10m or 1h30m)");
        };
        total += number * factor;
        rest = &rest[unit_len..];
    }
    if !(total.is_finite() && total >= 0.0) {
        bail!("duration {text:?} must be a non-negative number of seconds");
    }
    Ok(Duration::from_secs_f64(total))
}

/// Parses a byte count: a non-negative integer, optionally followed by `B` or `KiB`
/// (`256`, `256B`, `4KiB`).
pub fn parse_bytes(text: &str) -> Result<u64> {
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

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(parse_duration("10x").is_err());
        assert!(parse_duration("m").is_err());
        assert!(parse_duration("5m3").is_err());
        assert!(parse_duration("-1").is_err());
    }

    #[test]
    fn time_units() {
        assert_eq!(seconds_per("ms"), Some(1e-3));
        assert!(is_time_unit("ns") && !is_time_unit("count"));
    }
}
