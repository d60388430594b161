//! callgrind's output format (valgrind's `callgrind_format` documentation), read two ways:
//! per instruction its `Ir` (the profile `explain` finds hot code in), and per function the
//! inclusive counts of its calls (what `cachegrind:criterion` takes from a process).
//! Names and objects are compressed (`fn=(12) name` once, then `fn=(12)`); positions may be
//! relative (`+4`, `-6`) or repeated (`*`); a cost line after `calls=` holds the call's
//! inclusive cost, and trailing zero costs are left out.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{bail, Context, Result};

/// Per instruction `(object, address)`, the instructions executed (`Ir`) in one callgrind
/// output file written with `--dump-instr=yes`: self cost only (the inclusive cost line
/// after a `calls=` line is skipped), the first position column read as the instruction's
/// address (absolute `0x…`, relative `+N`/`-N`, or `*` for the same), names given once
/// with their `(id)` and then by it alone. callgrind writes addresses as in the object's
/// own file, so they are symbol-table addresses for the program and its libraries alike.
pub(crate) fn parse_callgrind_instructions(text: &str) -> Result<BTreeMap<(String, u64), f64>> {
    let mut ir_column: Option<usize> = None;
    let mut positions = 1;
    let mut objects: BTreeMap<String, String> = BTreeMap::new();
    let mut object = String::new();
    let mut last = 0u64;
    let mut after_call = false;
    let mut counts: BTreeMap<(String, u64), f64> = BTreeMap::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("events:") {
            let at = rest.split_whitespace().position(|e| e == "Ir");
            ir_column = Some(at.context("the callgrind output lacks Ir")?);
        } else if let Some(rest) = line.strip_prefix("positions:") {
            positions = rest.split_whitespace().count().max(1);
        } else if let Some(rest) = line
            .strip_prefix("ob=")
            .or_else(|| line.strip_prefix("cob="))
        {
            let named = compressed_name(rest, &mut objects)?;
            if line.starts_with("ob=") {
                object = named;
            }
        } else if line.starts_with("calls=") {
            after_call = true;
        } else if line.starts_with(|c: char| c.is_ascii_digit() || "+-*".contains(c)) {
            let mut tokens = line.split_whitespace();
            let first = tokens.next().unwrap_or_default();
            last = position(first, last).with_context(|| format!("a cost line: {line:?}"))?;
            if std::mem::take(&mut after_call) {
                continue;
            }
            let Some(ir_at) = ir_column else { continue };
            let ir = match tokens.nth(positions - 1 + ir_at) {
                Some(t) => t
                    .parse::<f64>()
                    .with_context(|| format!("a cost line is not numeric: {line:?}"))?,
                None => 0.0,
            };
            if ir > 0.0 {
                *counts.entry((object.clone(), last)).or_default() += ir;
            }
        }
    }
    if ir_column.is_none() {
        bail!("not a callgrind output file (no events: line)");
    }
    Ok(counts)
}

/// A compressed name `(id) name` (defines `id`) or `(id)` (refers to it); a plain name.
fn compressed_name(rest: &str, names: &mut BTreeMap<String, String>) -> Result<String> {
    let Some(tail) = rest.strip_prefix('(') else {
        return Ok(rest.to_string());
    };
    let (id, name) = tail
        .split_once(')')
        .with_context(|| format!("a malformed compressed name: {rest:?}"))?;
    let name = name.trim_start();
    if name.is_empty() {
        names
            .get(id)
            .cloned()
            .with_context(|| format!("the compressed name ({id}) is used before it is defined"))
    } else {
        names.insert(id.to_string(), name.to_string());
        Ok(name.to_string())
    }
}

/// An instruction position of a cost line, given the previous one.
fn position(token: &str, last: u64) -> Result<u64> {
    let number = |t: &str| match t.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => t.parse::<u64>(),
    };
    Ok(if token == "*" {
        last
    } else if let Some(d) = token.strip_prefix('+') {
        last.checked_add(number(d)?)
            .context("an address overflows")?
    } else if let Some(d) = token.strip_prefix('-') {
        last.checked_sub(number(d)?).context("an address below 0")?
    } else {
        number(token)?
    })
}

/// The inclusive counts, per event, of every call to a function `is_target` accepts from
/// a function it does not (a target called inside another is in that call's count already),
/// summed over the callgrind files in `dir` (`callgrind.out.PID`, one per process), with
/// the number of such calls: the `events:` names and one sum per event.
pub(crate) fn inclusive_totals(
    dir: &Path,
    is_target: impl Fn(&str) -> bool,
) -> Result<(Vec<(String, f64)>, u64)> {
    let mut calls = 0;
    let totals = super::metric::summed_outputs(dir, "callgrind", |text| {
        let (events, sums, n) = parse_inclusive(text, &is_target)?;
        calls += n;
        Ok((events, sums))
    })?;
    Ok((totals, calls))
}

/// One file's events, the inclusive sums of the calls [`inclusive_totals`] takes, and
/// their number.
fn parse_inclusive(
    text: &str,
    is_target: &impl Fn(&str) -> bool,
) -> Result<(Vec<String>, Vec<f64>, u64)> {
    let mut events: Option<Vec<String>> = None;
    let mut positions = 1;
    let mut names: BTreeMap<String, String> = BTreeMap::new();
    let mut caller_is_target = false;
    let mut callee_is_target = false;
    let mut counted_call = false;
    let mut sums: Vec<f64> = Vec::new();
    let mut calls = 0;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("events:") {
            let names: Vec<String> = rest.split_whitespace().map(String::from).collect();
            sums = vec![0.0; names.len()];
            events = Some(names);
        } else if let Some(rest) = line.strip_prefix("positions:") {
            positions = rest.split_whitespace().count().max(1);
        } else if let Some(rest) = line.strip_prefix("fn=") {
            caller_is_target = is_target(&compressed_name(rest, &mut names)?);
        } else if let Some(rest) = line.strip_prefix("cfn=") {
            callee_is_target = is_target(&compressed_name(rest, &mut names)?);
        } else if line.starts_with("calls=") {
            counted_call = callee_is_target && !caller_is_target;
        } else if std::mem::take(&mut counted_call) {
            let costs = line.split_whitespace().skip(positions);
            if sums.is_empty() {
                bail!("a call's cost before the events: line");
            }
            for (sum, token) in sums.iter_mut().zip(costs) {
                *sum += token
                    .parse::<f64>()
                    .with_context(|| format!("a cost line is not numeric: {line:?}"))?;
            }
            calls += 1;
        }
    }
    match events {
        Some(events) => Ok((events, sums, calls)),
        None => bail!("no events: line"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// callgrind's format as `--dump-instr=yes --dump-line=no` writes it: names defined
    /// once with their id (also on a `cob=` line) and then used by it, positions absolute,
    /// relative and `*`, and the inclusive cost line after `calls=` left out (but its
    /// position still the base of the next relative one).
    #[test]
    fn callgrind_instructions_are_read_with_their_objects() {
        let text = "# callgrind format\nversion: 1\npositions: instr\nevents: Ir Dr\n\
                    ob=(1) /prog\nfl=(1) ???\nfn=(1) main\n0x1000 5 1\n+4 3\n\
                    cob=(2) /lib/libc.so.6\ncfn=(2) memcpy\ncalls=2 0x98930\n* 900 40\n\
                    +2 7\n-6 1\nob=(2)\nfn=(2)\n0x98930 450\ntotals: 466\n";
        let counts = parse_callgrind_instructions(text).unwrap();
        let at = |o: &str, a: u64| counts.get(&(o.to_string(), a)).copied();
        // 0x1000 twice (5 + 1, the second by -6 from 0x1006); 0x1004 3; 0x1006 7.
        assert_eq!(at("/prog", 0x1000), Some(6.0));
        assert_eq!(at("/prog", 0x1004), Some(3.0));
        assert_eq!(at("/prog", 0x1006), Some(7.0));
        assert_eq!(at("/lib/libc.so.6", 0x98930), Some(450.0));
        assert_eq!(counts.len(), 4, "{counts:?}");
        assert!(parse_callgrind_instructions("fn=(1) f\n0x1 2\n").is_err());
        assert!(parse_callgrind_instructions("events: Ir\nob=(9)\n").is_err());
    }

    /// A call's inclusive cost is the line after its `calls=`; a target called from a
    /// target is inside the outer call's cost and not counted again; names are compressed
    /// for `fn=` and `cfn=` alike, and trailing zero costs left out.
    #[test]
    fn calls_of_the_targets_are_summed_inclusively() {
        let text = "positions: line\nevents: Ir Dr I1mr\n\
                    fn=(1) main\n3 10 2\ncfn=(2) loop\ncalls=1 0\n4 500 40 7\n\
                    cfn=(3) other\ncalls=2 0\n5 90 1\n\
                    fn=(2)\n7 20 2 1\ncfn=(2)\ncalls=1 0\n8 100 10\n\
                    fn=(4) start\ncfn=(2)\ncalls=1 0\n9 300\n";
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("callgrind.out.5"), text).unwrap();
        let (totals, calls) = inclusive_totals(d.path(), |n| n == "loop").unwrap();
        assert_eq!(calls, 2);
        let want = [("Ir", 800.0), ("Dr", 40.0), ("I1mr", 7.0)];
        let want: Vec<(String, f64)> = want.iter().map(|(n, v)| (n.to_string(), *v)).collect();
        assert_eq!(totals, want);
        std::fs::write(d.path().join("callgrind.out.5"), "fn=(1) f\n").unwrap();
        assert!(inclusive_totals(d.path(), |_| true).is_err());
    }
}
