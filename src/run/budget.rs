//! `--budget` durations: `90s`, `10m`, `1h30m`, `2h`, or plain seconds.
