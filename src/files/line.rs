//! How a store's lines are framed, for every reader of a store: one line at a time, never
//! longer than [`MAX_LINE_BYTES`], the header being the first. Its own module below both the
//! store and the trust check, since the bytes a header's MAC covers are the bytes a store
//! reader returns.

use std::io::BufRead;
use std::path::Path;

use anyhow::{bail, Context, Result};

/// The longest line a store may hold, in bytes (without its newline). No record layoutrand
/// writes comes near it (an execution's failure text is at most 4 KiB; the header names
/// every binary: a million names of 60 bytes, the most a schedule may plan, fit); a longer
/// line is refused before it is held whole, so a hostile store cannot make a reader hold
/// gigabytes for one line (issue 34, attack 11).
pub const MAX_LINE_BYTES: usize = 64 << 20;

/// What [`read_bounded_line`] found.
#[derive(Debug, PartialEq)]
pub(crate) enum BoundedLine {
    /// The end of the file: no line.
    End,
    /// A line, with its newline unless it is the file's torn last one.
    Read,
    /// A line longer than the limit: the reader stopped inside it.
    TooLong,
}

/// Reads the next line of `reader` into `line` (replacing what it held), unless its body
/// (without the newline) is longer than `limit` bytes: then stops there, having held at most
/// `limit` bytes and one buffer of the reader, so an endless line cannot exhaust memory.
pub(crate) fn read_bounded_line(
    reader: &mut impl BufRead,
    line: &mut Vec<u8>,
    limit: usize,
) -> std::io::Result<BoundedLine> {
    line.clear();
    loop {
        let available = filled(reader)?;
        if available.is_empty() {
            return Ok(if line.is_empty() {
                BoundedLine::End
            } else {
                BoundedLine::Read
            });
        }
        let newline = available.iter().position(|&b| b == b'\n');
        let take = newline.map_or(available.len(), |at| at + 1);
        let body = line.len() + take - usize::from(newline.is_some());
        if body > limit {
            return Ok(BoundedLine::TooLong);
        }
        line.extend_from_slice(&available[..take]);
        reader.consume(take);
        if newline.is_some() {
            return Ok(BoundedLine::Read);
        }
    }
}

/// Consumes `reader` up to and including the next newline without holding what it passes
/// (after [`read_bounded_line`] found a line too long): the bytes passed, newline excluded,
/// and whether a newline ended them.
pub(crate) fn skip_rest_of_line(reader: &mut impl BufRead) -> std::io::Result<(u64, bool)> {
    let mut passed = 0u64;
    loop {
        let available = filled(reader)?;
        if available.is_empty() {
            return Ok((passed, false));
        }
        let newline = available.iter().position(|&b| b == b'\n');
        let take = newline.map_or(available.len(), |at| at + 1);
        reader.consume(take);
        match newline {
            Some(at) => return Ok((passed + at as u64, true)),
            None => passed += take as u64,
        }
    }
}

/// The reader's buffer, filled when empty, a read interrupted by a signal retried.
fn filled(reader: &mut impl BufRead) -> std::io::Result<&[u8]> {
    loop {
        match reader.fill_buf() {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
            Ok(_) => break,
        }
    }
    // Filled now: this returns the buffer without reading (a borrow the loop cannot return).
    reader.fill_buf()
}

/// The next line of a store, as every reader of it takes it (numbered `lineno` for the
/// message when it is too long): its body without the newline, and whether it is complete (a
/// torn write has no final newline); `None` at the end of the file. `line` holds it.
pub(crate) fn next_line<'l>(
    reader: &mut impl BufRead,
    line: &'l mut Vec<u8>,
    path: &Path,
    lineno: usize,
    max_line: usize,
) -> Result<Option<(&'l [u8], bool)>> {
    let read = read_bounded_line(reader, line, max_line)
        .with_context(|| format!("cannot read {}", path.display()))?;
    match read {
        BoundedLine::End => Ok(None),
        BoundedLine::Read => {
            let complete = line.last() == Some(&b'\n');
            let body = if complete {
                &line[..line.len() - 1]
            } else {
                &line[..]
            };
            Ok(Some((body, complete)))
        }
        BoundedLine::TooLong => bail!(
            "{}:{lineno}: a line longer than {} is not a layoutrand result record (none \
             is that long); the store is left as it is: `layoutrand repair {}` keeps every \
             valid record in a new store and moves this file aside",
            path.display(),
            size_in_words(max_line),
            store_dir_of(path)
        ),
    }
}

/// The store's first line without its newline, read as the store reader (`files::store::file::scan`) reads it (the same function,
/// the same limit): the bytes its header's MAC covers ([`crate::files::trust`]), so the header
/// a reader returns is always the one the signature check looked at. Empty for an empty
/// store (created, its header not written yet). A blank first line is refused, as by every
/// reader: a header below it would otherwise be read without being checked.
pub(crate) fn read_header_line(mut reader: impl BufRead, path: &Path) -> Result<Vec<u8>> {
    let mut line = Vec::new();
    match next_line(&mut reader, &mut line, path, 1, MAX_LINE_BYTES)? {
        None => Ok(Vec::new()),
        Some((body, _)) if body.iter().all(u8::is_ascii_whitespace) => {
            bail!(blank_first_line(path))
        }
        Some((body, _)) => Ok(body.to_vec()),
    }
}

/// Why a store whose first line is blank is refused.
pub(crate) fn blank_first_line(path: &Path) -> String {
    format!(
        "{}:1: a blank first line: a store's header is its first line, so this store was \
         edited; `layoutrand repair {}` keeps every valid record in a new store and moves this \
         file aside",
        path.display(),
        store_dir_of(path)
    )
}

/// `bytes` as a message gives a limit: in MiB when whole ones, else in bytes.
pub(crate) fn size_in_words(bytes: usize) -> String {
    if bytes >= 1 << 20 && bytes % (1 << 20) == 0 {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{bytes} bytes")
    }
}

/// The directory of the store file `path`, for the repair hint in messages.
pub(crate) fn store_dir_of(path: &Path) -> String {
    match path.parent().filter(|p| !p.as_os_str().is_empty()) {
        Some(dir) => shell_words::quote(&dir.display().to_string()).into_owned(),
        None => ".".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::BufReader;

    #[test]
    fn a_line_is_read_whole_up_to_the_limit_and_refused_past_it() {
        // A reader of 4-byte buffers, so lines cross buffer boundaries.
        let text = b"abcdefgh\nabcdefghi\nxy";
        let mut reader = BufReader::with_capacity(4, &text[..]);
        let mut line = Vec::new();
        let limit = 8;
        assert_eq!(
            read_bounded_line(&mut reader, &mut line, limit).unwrap(),
            BoundedLine::Read
        );
        assert_eq!(line, b"abcdefgh\n", "a body of exactly the limit is read");
        assert_eq!(
            read_bounded_line(&mut reader, &mut line, limit).unwrap(),
            BoundedLine::TooLong
        );
        assert!(line.len() <= limit, "held {} bytes", line.len());
        // Untouched by the limit: a torn last line, then the end.
        let mut reader = BufReader::with_capacity(4, &b"ab\nxy"[..]);
        read_bounded_line(&mut reader, &mut line, limit).unwrap();
        assert_eq!(
            read_bounded_line(&mut reader, &mut line, limit).unwrap(),
            BoundedLine::Read
        );
        assert_eq!(line, b"xy");
        assert_eq!(
            read_bounded_line(&mut reader, &mut line, limit).unwrap(),
            BoundedLine::End
        );
    }
}
