//! "How was the experiment set up?" in words: the parts of the set-up line built from the
//! model's data ([`crate::analysis::answers::model::Setup`]).

use crate::analysis::answers::model::ProgramAchieved;

// The set-up's `achieved` on the wire: what each program's seeds could move.
super::said_as!(ProgramAchieved = achieved);

/// What one program's seeds could move: `NAME: words`, a library named as such (its code
/// moves too, inside the programs' processes).
pub(crate) fn achieved(p: &ProgramAchieved) -> String {
    if p.library {
        format!("library {}: {}", p.program, p.words)
    } else {
        format!("{}: {}", p.program, p.words)
    }
}
