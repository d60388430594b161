//! The live processes of the machine, for tests that check that nothing a command started
//! outlived it.

/// Pids of the live processes (zombies awaiting their reaper count as gone) whose command
/// line, its arguments joined by spaces, satisfies `matches`; the test's own process aside.
pub fn live_processes(matches: impl Fn(&str) -> bool) -> Vec<i32> {
    let me = std::process::id() as i32;
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| {
        let pid: i32 = e.ok()?.file_name().to_str()?.parse().ok()?;
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        let zombie = stat.rsplit_once(')')?.1.trim_start().starts_with('Z');
        let text = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        (pid != me && matches(&text) && !zombie).then_some(pid)
    })
    .collect()
}

/// Starts `cmd` as the interrupt tests do: no input, its output discarded, its error output
/// kept for the messages the test checks.
pub fn start_for_interrupt(cmd: &mut std::process::Command) -> std::process::Child {
    cmd.stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}
