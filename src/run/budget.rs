//! `--budget` durations: `90s`, `10m`, `1h30m`, `2h`, or plain seconds.

use std::time::Duration;

use anyhow::{bail, Result};

/// Parses a duration made of `<number><unit>` pieces with units `h`, `m`, `s` (a bare number
/// is seconds).
pub fn parse_duration(text: &str) -> Result<Duration> {
    let t = text.trim();
    if t.is_empty() {
        bail!("empty duration");
    }
    if let Ok(secs) = t.parse::<f64>() {
        if secs.is_finite() && secs >= 0.0 {
            return Ok(Duration::from_secs_f64(secs));
        }
        bail!("duration {text:?} must be a non-negative number of seconds");
    }
    let mut total = 0.0f64;
    let mut number = String::new();
    for c in t.chars() {
        if c.is_ascii_digit() || c == '.' {
            number.push(c);
            continue;
        }
        let factor = match c {
            'h' => 3600.0,
            'm' => 60.0,
            's' => 1.0,
            _ => bail!("duration {text:?}: unknown unit {c:?} (use h, m, s, e.g. 10m or 1h30m)"),
        };
        let n: f64 = number
            .parse()
            .map_err(|_| anyhow::anyhow!("duration {text:?}: a unit without a number"))?;
        total += n * factor;
        number.clear();
    }
    if !number.is_empty() {
        bail!("duration {text:?}: trailing number without a unit");
    }
    Ok(Duration::from_secs_f64(total))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("90s").unwrap(), Duration::from_secs(90));
        assert_eq!(parse_duration("10m").unwrap(), Duration::from_secs(600));
        assert_eq!(parse_duration("1h30m").unwrap(), Duration::from_secs(5400));
        assert_eq!(parse_duration("2.5").unwrap(), Duration::from_millis(2500));
        assert!(parse_duration("10x").is_err());
        assert!(parse_duration("m").is_err());
        assert!(parse_duration("5m3").is_err());
    }
}
