//! Text that came from a file, made safe to reach a terminal.
//!
//! An experiment directory is data (docs/run.md, "Trust and safety"): the CPU model of a
//! store's header, a program's or a variant's name, the run's command or a failure's text
//! may hold escape sequences (`ESC [ 2 J` clears the screen; an OSC sequence can set the
//! window title or, on some terminals, write a file) or a carriage return that hides what
//! precedes it on the line. Every text renderer passes what it prints through
//! [`for_terminal`], and so does every diagnostic (`crate::diagnostic!`).

use std::borrow::Cow;

/// `text` with every control character but newline and tab (C0, DEL, C1) written out
/// visibly as `\xHH` (`\r` as `\r`), and the Unicode bidirectional overrides and isolates
/// (which reorder what a reader sees, "Trojan Source") as `\u{HHHH}`. Text without them is
/// returned as it is (borrowed), so ordinary output stays byte-identical.
///
/// Not for JSON: JSON escapes its own control characters, and `\x` is not a JSON escape.
pub fn for_terminal(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_escape) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\r' => out.push_str("\\r"),
            c if c.is_control() && needs_escape(c) => {
                out.push_str(&format!("\\x{:02x}", u32::from(c)));
            }
            c if needs_escape(c) => out.push_str(&format!("\\u{{{:04x}}}", u32::from(c))),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Whether `c` must not reach a terminal raw: a control character other than newline and
/// tab, or a bidirectional formatting character (U+202A–U+202E, U+2066–U+2069).
fn needs_escape(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || ('\u{202a}'..='\u{202e}').contains(&c)
        || ('\u{2066}'..='\u{2069}').contains(&c)
}

/// Whether `text` holds a character [`for_terminal`] would escape, or a newline or a tab:
/// what a name (of a program, a binary or a variant) must not hold, as it is printed in
/// table cells and CSV fields of one line each.
pub(crate) fn has_control(text: &str) -> bool {
    text.chars()
        .any(|c| c == '\n' || c == '\t' || needs_escape(c))
}

/// How many characters of a string from a file or a program's output a message quotes.
pub(crate) const QUOTED_CHARS: usize = 80;

/// `text` quoted (`{:?}`) for a message, its first [`QUOTED_CHARS`] characters only, with
/// its length in bytes when it was longer: no message echoes unbounded input.
pub(crate) fn quoted_start(text: &str) -> String {
    match text.char_indices().nth(QUOTED_CHARS) {
        None => format!("{text:?}"),
        Some((end, _)) => format!("{:?}… ({} bytes)", &text[..end], text.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_are_visible_and_plain_text_is_untouched() {
        assert!(matches!(
            for_terminal("Intel(R) Xeon\tx\n"),
            Cow::Borrowed(_)
        ));
        assert_eq!(
            for_terminal("a\u{1b}[2Jb\rc\u{9b}d\u{7f}"),
            "a\\x1b[2Jb\\rc\\x9bd\\x7f"
        );
        assert_eq!(for_terminal("x\u{202e}y"), "x\\u{202e}y");
        assert_eq!(for_terminal("grüße ✓"), "grüße ✓");
        assert!(has_control("a\nb") && has_control("a\u{1b}") && !has_control("a b"));
        assert_eq!(quoted_start("12x"), "\"12x\"");
        let long = "7".repeat(1000);
        assert_eq!(
            quoted_start(&long),
            format!("{:?}… (1000 bytes)", "7".repeat(QUOTED_CHARS))
        );
    }
}
