//! The words of `layoutrand pin`'s answer ([`crate::analysis::pin::PinAnswer`]).

use crate::analysis::pin::{Freedom, PinAnswer};
use crate::files::pin::ProgramPin;
use crate::report::numfmt::{percent, quantity};
use crate::units::counted;

/// The text `layoutrand pin` prints: what was pinned, from which layout, what is left free,
/// how to use it, and what a pin does not fix.
pub fn render(answer: &PinAnswer) -> String {
    let mut lines = Vec::new();
    for program in &answer.pin.programs {
        lines.push(pinned(program));
        lines.push(format!(
            "Each starts at its offset modulo {} bytes, the period of the instruction cache's \
             sets ({} sets of {}-byte lines, {} ways).",
            program.period, answer.cache.sets, answer.cache.line, answer.cache.ways
        ));
    }
    if let Some(share) = answer.layout_share {
        lines.push(format!(
            "The random layouts' share of the metric's variance: {} (what a pin can remove is \
             at most that share).",
            percent(share, 2)
        ));
    }
    if !answer.left_free.is_empty() {
        let free: Vec<String> = answer
            .left_free
            .iter()
            .map(|f| format!("{} ({})", f.name, freedom(f.why)))
            .collect();
        lines.push(format!("Left free: {}.", free.join(", ")));
    }
    lines.push(format!(
        "Written to {}. Build with it: layoutrand build --pin {} --seeds N -- YOUR BUILD COMMAND",
        answer.written.display(),
        answer.written.display()
    ));
    lines.push(NOT_FIXED.to_string());
    lines.join("\n") + "\n"
}

/// What a pin leaves to chance, whatever the program.
const NOT_FIXED: &str = "A pin fixes each pinned function's offset in its cache lines, 32-byte \
    windows and page, and the sets its lines map to, in every seed. It does not fix the order of \
    the functions, so not their addresses (which pages the hot code shares, the sets of larger \
    caches), the functions left free or not hot, the data layout, nor another machine's caches. \
    Whether it steadies the program is measured, not assumed: build with it, run, and compare \
    the spread of the pinned seeds with this experiment's; the layout it copies was the fastest \
    of several, so its mean is an optimistic guess.";

/// The first line of a program's pin.
fn pinned(p: &ProgramPin) -> String {
    let s = &p.source;
    let slower = s.median / s.mean - 1.0;
    format!(
        "Pinned {} of {} ({} of its own instructions) where {} had them, the fastest of {} \
         random layouts ({} mean {}; the median layout {}, {} more).",
        counted(p.functions.len(), "hot function", "hot functions"),
        p.program,
        percent(s.ir_share, 3),
        s.binary,
        s.layouts,
        s.metric,
        quantity(s.mean, &s.unit),
        quantity(s.median, &s.unit),
        percent(slower, 2)
    )
}

/// Why a function is left free, in words.
fn freedom(why: Freedom) -> &'static str {
    match why {
        Freedom::NameNotUnique => "several functions have this name",
        Freedom::NotInBinary => "not in the binary copied",
    }
}
