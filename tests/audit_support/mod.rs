//! What the audit tests share: fixing files in place through an audit log, and reading it back.

use std::fs;
use std::path::{Path, PathBuf};

use undouble::audit::{AuditLevel, AuditLog, Record};
use undouble::engine::{Input, Written};
use undouble::mojibake::{Readings, Scanner, Strictness};

pub fn scanner(strictness: Strictness) -> Scanner {
    Scanner::new(Readings::western(), strictness)
}

/// Fixes every file in place through one audit log at `log`; returns which were rewritten.
pub fn fix_all(scanner: &Scanner, paths: &[PathBuf], log: &Path, level: AuditLevel) -> Vec<bool> {
    let mut audit = AuditLog::create(log, scanner, level, ["undouble-test".to_owned()]).unwrap();
    let rewritten = paths
        .iter()
        .map(|path| {
            let (_, written) = audit.fix_to_path(&Input::File(path.clone()), path).unwrap();
            written == Written::Replaced
        })
        .collect();
    audit.finish().unwrap();
    rewritten
}

/// Every record of the log at `log`.
pub fn records(log: &Path) -> Vec<Record> {
    fs::read_to_string(log)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// Writes `contents` to files `0.txt`, `1.txt`, ... in `dir`.
pub fn write_files(dir: &Path, contents: &[Vec<u8>]) -> Vec<PathBuf> {
    contents
        .iter()
        .enumerate()
        .map(|(i, content)| {
            let path = dir.join(format!("{i}.txt"));
            fs::write(&path, content).unwrap();
            path
        })
        .collect()
}
