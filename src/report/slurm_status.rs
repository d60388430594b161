//! `layoutrand status DIR` and the end of `run --slurm --wait` in words: one line per shard
//! of a Slurm run ([`ShardStatus`], gathered by [`crate::run::slurm::status`]) and the total.

use crate::run::slurm::status::ShardStatus;

/// The status as a table, one line per shard, then the total.
pub fn render_status(statuses: &[ShardStatus]) -> String {
    let mut rows = vec![["shard", "executions", "task", "state", "node"].map(String::from)];
    for st in statuses {
        let (task, state, node) = match (&st.task, &st.job) {
            (Some(t), _) => (
                format!("{}_{}", t.job, t.task),
                t.state.clone(),
                if t.node.is_empty() {
                    format!("({})", t.reason)
                } else {
                    t.node.clone()
                },
            ),
            (None, Some(j)) => (format!("{j}_{}", st.shard), "ended".into(), String::new()),
            (None, None) => ("-".into(), "not submitted".into(), String::new()),
        };
        let executions = format!("{}/{}", st.done, st.planned);
        rows.push([st.shard.to_string(), executions, task, state, node]);
    }
    // Each column as wide as its widest cell, so a long state or task keeps the rest in line.
    let mut widths = [0; 5];
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut s = String::new();
    for row in &rows {
        let line: Vec<String> = row
            .iter()
            .zip(widths)
            .map(|(cell, width)| format!("{cell:<width$}"))
            .collect();
        s.push_str(line.join("  ").trim_end());
        s.push('\n');
    }
    let done: usize = statuses.iter().map(|s| s.done).sum();
    let planned: u64 = statuses.iter().map(|s| u64::from(s.planned)).sum();
    let complete = statuses
        .iter()
        .filter(|s| s.done >= s.planned as usize)
        .count();
    s.push_str(&format!(
        "total  {done}/{planned} executions; {complete} of {} shards complete\n",
        statuses.len()
    ));
    s
}
