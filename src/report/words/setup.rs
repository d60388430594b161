//! "How was the experiment set up?" in words: the parts of the set-up line built from the
//! model's data ([`crate::analysis::answers::model::Setup`]).

use crate::analysis::answers::model::{ProgramAchieved, Setup};

/// Writes the set-up's words: what each program's seeds could move.
pub(crate) fn fill(setup: &mut Setup) {
    setup.achieved = setup
        .achieved_by_program
        .as_ref()
        .map(|programs| programs.iter().map(achieved).collect());
}

/// What one program's seeds could move: `NAME: words`, a library named as such (its code
/// moves too, inside the programs' processes).
pub(crate) fn achieved(p: &ProgramAchieved) -> String {
    if p.library {
        format!("library {}: {}", p.program, p.words)
    } else {
        format!("{}: {}", p.program, p.words)
    }
}
