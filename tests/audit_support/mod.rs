//! What the audit tests share: fixing files in place through an audit log, and reading it back.
#![allow(dead_code)] // each test file uses its own part of these

use std::fs;
use std::path::{Path, PathBuf};

use undouble::audit::chain::line_hash;
use undouble::audit::{AuditLevel, Record, Roots};
use undouble::engine::{Input, Written};
use undouble::mojibake::{Readings, Scanner, Strictness};
use undouble::{FixOutcome, Fixer, Format, NotUtf8, Target};

pub fn scanner(strictness: Strictness) -> Scanner {
    Scanner::new(Readings::western(), strictness)
}

/// Fixes every file in place through one audit log at `log`; returns which were rewritten.
pub fn fix_all(scanner: &Scanner, paths: &[PathBuf], log: &Path, level: AuditLevel) -> Vec<bool> {
    let fixer = audited_fixer(scanner, log, level, ["undouble-test".to_owned()]);
    let rewritten = paths
        .iter()
        .map(|path| {
            let target = Target::Path { path, backup: None };
            match fixer.fix(&Input::File(path.clone()), target).unwrap() {
                FixOutcome::Repaired(repaired) => repaired.written == Written::Replaced,
                other => panic!("{}: not repaired: {other:?}", path.display()),
            }
        })
        .collect();
    fixer.finish().unwrap();
    rewritten
}

/// A fixer with `scanner`'s settings that logs to `log` and repairs every file as plain UTF-8
/// text, whatever it looks like (binary, another encoding, a dump): the tests choose their
/// bytes, and the log must take back whatever the repair did.
pub fn audited_fixer(
    scanner: &Scanner,
    log: &Path,
    level: AuditLevel,
    command_line: impl IntoIterator<Item = String>,
) -> Fixer {
    Fixer::builder()
        .readings(scanner.readings().clone())
        .strictness(scanner.strictness())
        .format(Format::Text)
        .binary(true)
        .not_utf8(NotUtf8::Repair)
        .stream_name("<stdout>")
        .audit(log, level, command_line)
        .build()
        .unwrap()
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

/// The roots of an undo of the log at `log`: the directory it is in, where the tests put the
/// files they fix.
pub fn roots_of(log: &Path) -> Roots {
    Roots::new([log.parent().unwrap()]).unwrap()
}

/// `text`, a log, with every record linked anew to the line before it, as its writer would have
/// linked it: what anyone who writes a whole log can do, so that a test can edit a log and
/// still have its chain hold.
pub fn rechain(text: &str) -> String {
    let mut out = String::new();
    let mut last: Option<String> = None;
    for line in text.lines() {
        let record = unlinked(line);
        let linked = match &last {
            None => format!("{record}\n"),
            Some(prev) => format!("{},\"prev\":\"{prev}\"}}\n", &record[..record.len() - 1]),
        };
        last = Some(line_hash(linked.as_bytes()).to_string());
        out.push_str(&linked);
    }
    out
}

/// `line` without its `prev` link.
pub fn unlinked(line: &str) -> String {
    match line.find(",\"prev\":\"") {
        Some(at) => format!("{}}}", &line[..at]),
        None => line.to_owned(),
    }
}
