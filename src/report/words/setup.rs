//! "How was the experiment set up?" in words: the parts of the set-up line built from the
//! model's data ([`crate::analysis::answers::model::Setup`]).

use crate::analysis::answers::model::ProgramAchieved;
use crate::files::manifest::{Achieved, Exclusion, Granularity, LeftOut, LtoCode};

// The set-up's `achieved` on the wire: what each program's seeds could move.
super::said_as!(ProgramAchieved = achieved);

/// What one program's seeds could move: `NAME: words`, a library named as such (its code
/// moves too, inside the programs' processes).
pub(crate) fn achieved(p: &ProgramAchieved) -> String {
    let words = match &p.left_out {
        None => moved(&p.achieved),
        Some(why) => left_out(why),
    };
    if p.library {
        format!("library {}: {words}", p.program)
    } else {
        format!("{}: {words}", p.program)
    }
}

/// A program left out of the seeds, in brief (the build's note says it in full).
fn left_out(why: &Exclusion) -> String {
    match why {
        Exclusion::Known(LeftOut::NothingToMove { .. }) => {
            "nothing moved (every seed's layout is the baseline's)".to_string()
        }
        Exclusion::Known(LeftOut::LinkFailedInEverySeed { .. }) => {
            "left out of the seeds (its link failed in every seed)".to_string()
        }
        Exclusion::Known(LeftOut::NotRelinked { .. }) => {
            "left out of the seeds (it could not be relinked)".to_string()
        }
        Exclusion::Recorded(words) => format!("left out of the seeds ({words})"),
    }
}

/// What a program's seeds move, from the manifest's figures: e.g. `objects moved; functions
/// moved within 7 of 8 modules`, `order kept; padding before the code of 3 of 4 modules`;
/// for an older manifest, the words it stored.
pub(crate) fn moved(a: &Achieved) -> String {
    let Some(granularity) = a.granularity else {
        return a
            .recorded_words
            .clone()
            .unwrap_or_else(|| "not recorded".into());
    };
    let objects = a.objects;
    let shuffled = a.modules_with_function_order;
    let words = match (objects >= 2, shuffled > 0) {
        _ if granularity == Granularity::None => format!(
            "order kept; padding before the code of {} of {objects} modules",
            a.modules_with_code.unwrap_or(0)
        ),
        (true, true) => format!(
            "objects moved; functions moved within {shuffled} of {objects} modules{}",
            if granularity == Granularity::Global {
                " and across modules"
            } else {
                ""
            }
        ),
        (true, false) => format!("objects moved ({objects}); functions not moved"),
        (false, true) => format!("functions moved within {shuffled} of {objects} modules"),
        (false, false) => "nothing to move".to_string(),
    };
    match a.lto {
        Some(LtoCode::Kept) => format!("the LTO link's own code, {words}"),
        Some(LtoCode::GeneratedAgain) => {
            format!("LTO code generated once more (-r, not internalised), {words}")
        }
        None => words,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The figures a manifest stores give the words; a manifest written before them keeps
    /// its own.
    #[test]
    fn what_moved_is_said_from_the_figures_or_an_older_manifests_words() {
        let read = |json: &str| -> Achieved { serde_json::from_str(json).unwrap() };
        let global = read(
            r#"{"objects": 8, "modules_with_function_order": 7, "modules_one_section": 0,
                "modules_with_code": 8, "granularity": "global", "lto": "kept"}"#,
        );
        assert_eq!(
            moved(&global),
            "the LTO link's own code, objects moved; functions moved within 7 of 8 modules \
             and across modules"
        );
        let older = read(
            r#"{"objects": 2, "modules_with_function_order": 0, "modules_one_section": 0,
                "words": "objects moved (2); functions not moved"}"#,
        );
        assert_eq!(moved(&older), "objects moved (2); functions not moved");
        assert!(!serde_json::to_string(&older).unwrap().contains("words"));
    }

    /// A program left out of the seeds is said to be, not credited with what its modules
    /// could move (nettle's nettle-lfib-stream: "functions moved within 1 of 1 modules" while
    /// every seed had the baseline's layout).
    #[test]
    fn a_program_left_out_of_the_seeds_is_not_said_to_move() {
        let achieved: Achieved = serde_json::from_str(
            r#"{"objects": 1, "modules_with_function_order": 1, "modules_one_section": 0,
                "granularity": "module"}"#,
        )
        .unwrap();
        let program = |left_out| ProgramAchieved {
            program: "p".into(),
            library: false,
            achieved: achieved.clone(),
            left_out,
        };
        assert_eq!(
            super::achieved(&program(None)),
            "p: functions moved within 1 of 1 modules"
        );
        let unmoved = Exclusion::Known(LeftOut::NothingToMove { built: 3, seeds: 3 });
        assert_eq!(
            super::achieved(&program(Some(unmoved))),
            "p: nothing moved (every seed's layout is the baseline's)"
        );
        let failed = Exclusion::Known(LeftOut::LinkFailedInEverySeed { first_error: None });
        assert_eq!(
            super::achieved(&program(Some(failed))),
            "p: left out of the seeds (its link failed in every seed)"
        );
    }
}
