//! The calls that ran but are not in the evidence yet. A phase runs its calls,
//! then hands them to the judge, and each call reaches `cases.jsonl` when it
//! is judged; a check stopped by a signal in the middle of a phase would lose
//! the calls that phase had run. Each finished call is kept here, by its case
//! label, until it is logged; what is left when the check stops is written
//! too, marked [`CaseRecord::not_judged`].

use std::sync::{Arc, Mutex};

use crate::verdict::check::case_record::CaseRecord;

/// The records of the calls that finished and are not logged yet, in the
/// order they finished, one per case label (a case re-run in a fresh process
/// keeps its last run). Clones share one journal: a [`crate::check::Target`]'s
/// copies for each era write to the one its check job reads.
#[derive(Debug, Clone, Default)]
pub struct Journal(Arc<Mutex<Vec<CaseRecord>>>);

impl Journal {
    /// Keeps `record`, the run of a call that just finished, in place of an
    /// earlier run of the same case.
    pub(crate) fn ran(&self, record: CaseRecord) {
        let mut records = self.lock();
        records.retain(|kept| kept.case != record.case);
        records.push(record);
    }

    /// Forgets the run of `case`: it is logged, judged.
    pub fn logged(&self, case: &str) {
        self.lock().retain(|kept| kept.case != case);
    }

    /// The runs not logged, in the order they finished, each marked
    /// [`CaseRecord::not_judged`]; the journal is left empty.
    pub fn take(&self) -> Vec<CaseRecord> {
        let mut records = std::mem::take(&mut *self.lock());
        for record in &mut records {
            record.not_judged = true;
        }
        records
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<CaseRecord>> {
        crate::lock::lock(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::oracle::property::Reading;

    fn record(case: &str, reply: i64) -> CaseRecord {
        CaseRecord {
            case: case.to_owned(),
            sent: Vec::new(),
            reading: Reading::plain(false),
            reply: json!(reply),
            violations: Vec::new(),
            wire: Vec::new(),
            http: Vec::new(),
            stray_stdout: Vec::new(),
            stderr: String::new(),
            not_judged: false,
        }
    }

    #[test]
    fn the_runs_left_are_the_last_of_each_case_not_logged_in_the_order_they_finished() {
        let journal = Journal::default();
        let shared = journal.clone();
        shared.ran(record("coverage 1", 1));
        shared.ran(record("coverage 2", 2));
        shared.ran(record("coverage 3", 3));
        // Re-run in a fresh process: the later run stands, in its place in time.
        shared.ran(record("coverage 1", 10));
        journal.logged("coverage 2");
        let left: Vec<(String, serde_json::Value, bool)> = journal
            .take()
            .into_iter()
            .map(|record| (record.case, record.reply, record.not_judged))
            .collect();
        assert_eq!(
            left,
            vec![
                ("coverage 3".to_owned(), json!(3), true),
                ("coverage 1".to_owned(), json!(10), true),
            ]
        );
        assert!(journal.take().is_empty(), "taken once");
    }
}
