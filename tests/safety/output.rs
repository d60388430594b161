//! All output through one writer (issue 37): a command's answer goes to standard output
//! through `files::output::write_stdout` (or the `out!`/`outln!` macros), its diagnostics
//! through `diagnostic!`; neither panics when the stream cannot be written. `print!`,
//! `println!`, `eprint!` and `eprintln!` panic on a full disk behind `>` or `2>`, so none may
//! remain in the code (unit tests may print their figures).

use std::path::Path;

use super::writer::{code_of, sources};

#[test]
fn no_print_macro_outside_the_one_writer() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    sources(&root.join("src"), &mut files);
    sources(&root.join("stats/src"), &mut files);
    assert!(
        files.len() > 100,
        "the sources were not found: {}",
        files.len()
    );
    let mut found = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for (n, line) in code_of(&text).lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for banned in ["print!(", "println!(", "eprint!(", "eprintln!("] {
                let at = code.find(banned);
                // `eprintln!(` contains `println!(`: only a macro name that starts there.
                let starts_a_name = at.is_some_and(|i| {
                    i == 0
                        || !code.as_bytes()[i - 1].is_ascii_alphanumeric()
                            && code.as_bytes()[i - 1] != b'_'
                });
                if starts_a_name {
                    found.push(format!("{}:{}: {}", file.display(), n + 1, line.trim()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "print macros that panic when their stream cannot be written (use out!/outln! or \
         diagnostic!):\n{}",
        found.join("\n")
    );
}
