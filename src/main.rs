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
        layoutrand::wrap::run_as_shim_if_called_so(layoutrand::relink::live::after_link)
    {
        return exit_code(code);
    }
    let args = cli::Cli::parse();
    // Standard output goes through one writer that returns its errors
    // (layoutrand::files::output::write_stdout), so a full disk behind `>` is an error
    // here, not a panic; tests/safety/output.rs keeps print! out of the code.
    match cli::dispatch(args) {
        Ok(code) => exit_code(code),
        Err(err) => {
            layoutrand::diagnostic!("layoutrand: error: {err:#}");
            exit_code(layoutrand::exit::Exit::InputError.code())
        }
    }
}

/// Rust starts programs with SIGPIPE ignored, so a write to a closed pipe
/// (`layoutrand layout BIN | head`) returns EPIPE, which would be an error message. For every
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
