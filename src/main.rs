//! The `layoutrand` command line: a thin layer over the library.
//!
//! The same executable is also the compiler/linker shim: called as `cc`, `gcc`, `ld`, ...
//! (through the links `layoutrand build` puts first on PATH) it records and forwards the
//! call instead of parsing a subcommand.

mod cli;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    restore_default_sigpipe();
    if let Some(code) =
        layoutrand::wrap::run_as_shim_if_called_so(layoutrand::build::live::after_link)
    {
        return exit_code(code);
    }
    let args = cli::Cli::parse();
    silence_output_failure_panics();
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| cli::dispatch(args)));
    match outcome {
        Ok(Ok(code)) => exit_code(code),
        Ok(Err(err)) => {
            layoutrand::diagnostic!("layoutrand: error: {err:#}");
            exit_code(layoutrand::exit::Exit::InputError.code())
        }
        Err(payload) => match output_failure(payload.as_ref()) {
            Some(message) => {
                layoutrand::diagnostic!("layoutrand: error: {message}");
                exit_code(layoutrand::exit::Exit::InputError.code())
            }
            None => std::panic::resume_unwind(payload),
        },
    }
}

/// The message of `println!`'s panic when standard output cannot be written (`>/dev/full`, a
/// full disk): not a bug of ours but an error of the environment, so it ends the command
/// with a plain message and status 2 instead of a backtrace. Whatever the command wrote to
/// its own files (a store, a manifest) was written atomically or record by record and stays
/// valid.
fn output_failure(payload: &(dyn std::any::Any + Send)) -> Option<String> {
    let text = payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())?;
    text.starts_with("failed printing to")
        .then(|| format!("{text}; the output was cut short"))
}

/// Keeps the default panic message and backtrace for real bugs, but not for the output
/// failures [`output_failure`] turns into an error message.
fn silence_output_failure_panics() {
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if output_failure(info.payload()).is_none() {
            default_hook(info);
        }
    }));
}

/// Rust starts programs with SIGPIPE ignored, so a write to a closed pipe
/// (`layoutrand layout BIN | head`) returns EPIPE and `println!` panics on it. For every
/// command at once, do what Unix tools do: die quietly of SIGPIPE when the reader has gone.
/// (Child processes get the default disposition back from std anyway.)
fn restore_default_sigpipe() {
    use nix::sys::signal::{signal, SigHandler, Signal};
    // SAFETY: SIG_DFL installs no handler code; nothing else has touched SIGPIPE yet.
    let _ = unsafe { signal(Signal::SIGPIPE, SigHandler::SigDfl) };
}

fn exit_code(code: i32) -> ExitCode {
    ExitCode::from(u8::try_from(code.clamp(0, 255)).unwrap_or(1))
}
