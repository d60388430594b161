//! Progress of a long stage (`run`'s executions, `build`'s relinks): a bar on a terminal, and
//! lines in a log. A run whose stderr goes to a file (a CI job, `nohup`, a Slurm log) must
//! not be silent for minutes: there it prints a line at each tenth of the work and at least
//! every [`LINE_EVERY`], with what is done, the time spent and an estimate of what is left —
//! once the stage has run [`QUIET_START`]: a stage done in a moment needs no progress.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{channel, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How often a log gets a progress line at least.
pub(crate) const LINE_EVERY: Duration = Duration::from_secs(30);

/// How long a stage runs before its tenths are logged.
pub(crate) const QUIET_START: Duration = Duration::from_secs(3);

/// How progress is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ProgressDisplay {
    /// A bar redrawn in place (stderr is a terminal).
    Bar,
    /// Lines, each tenth of the work and every [`LINE_EVERY`] (stderr is a file or a pipe).
    Lines,
    /// Nothing (library callers, tests).
    #[default]
    Hidden,
}

impl ProgressDisplay {
    /// A bar on a terminal, lines otherwise.
    pub fn for_stderr() -> ProgressDisplay {
        if std::io::stderr().is_terminal() {
            ProgressDisplay::Bar
        } else {
            ProgressDisplay::Lines
        }
    }
}

/// What the lines count.
struct Counter {
    /// `executions`, `links`.
    unit: &'static str,
    total: u64,
    done: AtomicU64,
    /// Done before this invocation (a resumed run): not part of the rate.
    done_before: u64,
    started: Instant,
    /// The last tenth of the work a line was printed for.
    tenth: AtomicU64,
    /// When the last line was printed, in milliseconds after `started`: the clock's line
    /// waits [`LINE_EVERY`] after *any* line, so a tenth's line is not followed seconds later
    /// by the same count again ("15 of 36 … 1m 58s" then "15 of 36 … 2m").
    last_line_ms: AtomicU64,
}

impl Counter {
    /// `layoutrand: 120 of 840 executions (14 %), 3m 5s so far, about 15m 20s left`.
    fn line(&self) -> String {
        let done = self.done.load(Ordering::SeqCst).min(self.total);
        let elapsed = self.started.elapsed();
        let share = if self.total == 0 {
            1.0
        } else {
            done as f64 / self.total as f64
        };
        let mut line = format!(
            "layoutrand: {done} of {} {} ({:.0} %), {} so far",
            self.total,
            self.unit,
            100.0 * share,
            whole_seconds(elapsed)
        );
        let now = done.saturating_sub(self.done_before);
        if now > 0 && done < self.total {
            let left = elapsed.as_secs_f64() / now as f64 * (self.total - done) as f64;
            if left >= 1.0 {
                line.push_str(&format!(
                    ", about {} left",
                    whole_seconds(Duration::from_secs_f64(left.min(1e9)))
                ));
            }
        }
        line
    }

    /// Prints [`Counter::line`] and notes when.
    fn print_line(&self) {
        self.last_line_ms
            .store(self.started.elapsed().as_millis() as u64, Ordering::SeqCst);
        crate::diagnostic!("{}", self.line());
    }

    /// How long the clock waits from now for its next line: [`LINE_EVERY`] after the last
    /// line (or the start), zero when that moment has passed.
    fn until_next_tick(&self) -> Duration {
        let last = Duration::from_millis(self.last_line_ms.load(Ordering::SeqCst));
        (last + LINE_EVERY).saturating_sub(self.started.elapsed())
    }
}

fn whole_seconds(d: Duration) -> humantime::FormattedDuration {
    humantime::format_duration(Duration::from_secs(d.as_secs()))
}

/// The lines' clock: prints every [`LINE_EVERY`] until dropped.
struct Ticker {
    stop: Sender<()>,
    thread: Option<JoinHandle<()>>,
}

impl Drop for Ticker {
    fn drop(&mut self) {
        let _ = self.stop.send(());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// A stage's progress; [`Progress::inc`] may be called from several threads.
pub(crate) struct Progress {
    bar: indicatif::ProgressBar,
    lines: Option<(Arc<Counter>, Ticker)>,
}

impl Progress {
    /// Progress of `total` things (`unit`: `executions`, `links`), `done` of them already.
    /// `template` is the bar's indicatif template.
    pub(crate) fn new(
        display: ProgressDisplay,
        unit: &'static str,
        total: u64,
        done: u64,
        template: &str,
    ) -> Progress {
        let bar = if display == ProgressDisplay::Bar {
            let bar = indicatif::ProgressBar::with_draw_target(
                Some(total),
                indicatif::ProgressDrawTarget::stderr(),
            );
            if let Ok(style) = indicatif::ProgressStyle::with_template(template) {
                bar.set_style(style);
            }
            bar.set_position(done);
            bar.reset_eta();
            bar
        } else {
            indicatif::ProgressBar::hidden()
        };
        let lines = (display == ProgressDisplay::Lines).then(|| {
            let counter = Arc::new(Counter {
                unit,
                total,
                done: AtomicU64::new(done),
                done_before: done,
                started: Instant::now(),
                tenth: AtomicU64::new(tenth(done, total)),
                last_line_ms: AtomicU64::new(0),
            });
            let (stop, stopped) = channel::<()>();
            let ticking = Arc::clone(&counter);
            let thread = std::thread::spawn(move || {
                while let Err(RecvTimeoutError::Timeout) =
                    stopped.recv_timeout(ticking.until_next_tick())
                {
                    if ticking.until_next_tick().is_zero() {
                        ticking.print_line();
                    }
                }
            });
            let ticker = Ticker {
                stop,
                thread: Some(thread),
            };
            (counter, ticker)
        });
        Progress { bar, lines }
    }

    /// One more thing done.
    pub(crate) fn inc(&self) {
        self.bar.inc(1);
        if let Some((counter, _)) = &self.lines {
            let done = counter.done.fetch_add(1, Ordering::SeqCst) + 1;
            let now = tenth(done, counter.total);
            if counter.tenth.fetch_max(now, Ordering::SeqCst) < now
                && counter.started.elapsed() >= QUIET_START
            {
                counter.print_line();
            }
        }
    }

    /// A line on stderr, above the bar when there is one.
    pub(crate) fn note(&self, text: &str) {
        self.bar.suspend(|| crate::diagnostic!("{text}"));
    }

    /// The stage ended: the bar is cleared (the caller says what was done).
    pub(crate) fn finish(self) {
        self.bar.finish_and_clear();
    }

    /// The stage stopped early: the bar stays as it was.
    pub(crate) fn abandon(self) {
        self.bar.abandon();
    }
}

/// Which tenth of the work `done` of `total` reaches.
fn tenth(done: u64, total: u64) -> u64 {
    (done.min(total) * 10).checked_div(total).unwrap_or(10)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_say_done_total_share_time_and_what_is_left() {
        let c = Counter {
            unit: "executions",
            total: 840,
            done: AtomicU64::new(120),
            done_before: 20,
            started: Instant::now() - Duration::from_secs(100),
            tenth: AtomicU64::new(1),
            last_line_ms: AtomicU64::new(0),
        };
        let line = c.line();
        // 100 executions in 100 s, 720 to go: about 12 minutes.
        assert!(
            line.starts_with("layoutrand: 120 of 840 executions (14 %), 1m 40s so far, about 12m"),
            "{line}"
        );
        c.done.store(840, Ordering::SeqCst);
        assert!(!c.line().contains("left"), "{}", c.line());
        assert_eq!(tenth(0, 840), 0);
        assert_eq!(tenth(84, 840), 1);
        assert_eq!(tenth(839, 840), 9);
        assert_eq!(tenth(900, 840), 10);
        assert_eq!(tenth(0, 0), 10);
    }

    /// Issue 36: a tenth's line at 1m 58s was followed by the clock's line at 2m with the
    /// same count. The clock now waits a whole [`LINE_EVERY`] after any line.
    #[test]
    fn the_clock_waits_after_any_line() {
        let c = Counter {
            unit: "executions",
            total: 36,
            done: AtomicU64::new(15),
            done_before: 0,
            started: Instant::now() - Duration::from_secs(118),
            tenth: AtomicU64::new(4),
            last_line_ms: AtomicU64::new(0),
        };
        // No line for 118 s: the clock is due.
        assert!(c.until_next_tick().is_zero());
        c.last_line_ms.store(118_000, Ordering::SeqCst);
        let wait = c.until_next_tick();
        assert!(
            wait > LINE_EVERY - Duration::from_secs(2) && wait <= LINE_EVERY,
            "{wait:?}"
        );
    }
}
