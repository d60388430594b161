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

/// Issue 54, attack 7: `-o /dev/stdout >> f` appends to f, as the shell asked, and `>` still
/// leaves only the answer. `/dev/stdout` leads through `/proc/self/fd/1` to f itself: judged
/// by where every link ends, it was taken for f and f replaced, losing what `>>` kept.
#[test]
fn output_to_dev_stdout_appends_where_the_shell_appends() {
    let d = tempfile::tempdir().unwrap();
    crate::store::measured(d.path());
    let f = d.path().join("f");
    // The answer, as printed to a pipe.
    let answer = std::process::Command::new(env!("CARGO_BIN_EXE_layoutrand"))
        .arg("report")
        .arg(d.path())
        .args(["--format", "summary"])
        .output()
        .unwrap();
    assert!(answer.status.success());
    let answer = String::from_utf8(answer.stdout).unwrap();
    assert!(!answer.is_empty());
    for (append, kept) in [(true, true), (false, false)] {
        std::fs::write(&f, "kept line\n").unwrap();
        let out = std::fs::OpenOptions::new()
            .append(append)
            .write(true)
            .truncate(!append)
            .open(&f)
            .unwrap();
        let status = std::process::Command::new(env!("CARGO_BIN_EXE_layoutrand"))
            .arg("report")
            .arg(d.path())
            .args(["--format", "summary", "-o", "/dev/stdout"])
            .stdout(out)
            .status()
            .unwrap();
        assert!(status.success());
        let text = std::fs::read_to_string(&f).unwrap();
        let before = if kept { "kept line\n" } else { "" };
        assert_eq!(text, format!("{before}{answer}"));
    }
}
