//! When undo refuses, and what it leaves: a file changed after the fix, a log at the summary
//! level, a log edited or cut short, a file gone; the dry run; and `undouble undo` run as the
//! built binary, with its output and exit codes.

mod audit_support;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use undouble::audit::{self, AuditError, AuditLevel, Record, Restored};
use undouble::engine::{Input, Written};
use undouble::mojibake::Strictness;
use undouble::{FixOutcome, Target};

use audit_support::{
    audited_fixer, fix_all, rechain, records, roots_of, scanner, unlinked, write_files,
};

const GARBLED: [&str; 3] = [
    "CafÃ© crÃ¨me\nnaÃ¯ve\n",
    "plain ASCII\nand donâ€™t stop\n",
    "ÃƒÂ©tÃƒÂ© Ã  Paris\n",
];

/// Three garbled files fixed in place through a full audit log in a fresh directory.
struct Fixed {
    dir: tempfile::TempDir,
    paths: Vec<PathBuf>,
    log: PathBuf,
}

fn fixed(level: AuditLevel) -> Fixed {
    let dir = tempfile::tempdir().unwrap();
    let contents: Vec<Vec<u8>> = GARBLED.iter().map(|s| s.as_bytes().to_vec()).collect();
    let paths = write_files(dir.path(), &contents);
    let log = dir.path().join("audit.jsonl");
    let rewritten = fix_all(&scanner(Strictness::Balanced), &paths, &log, level);
    assert_eq!(rewritten, [true, true, true]);
    Fixed { dir, paths, log }
}

fn read(path: &Path) -> String {
    String::from_utf8(fs::read(path).unwrap()).unwrap()
}

/// The log's lines, one of them passed through `edit`, written back.
fn edit_log(log: &Path, edit: impl Fn(&str) -> String) {
    let edited: String = read(log).lines().map(|line| edit(line) + "\n").collect();
    fs::write(log, edited).unwrap();
}

#[test]
fn a_file_changed_after_the_fix_is_refused_and_the_others_restored() {
    let fixed = fixed(AuditLevel::Full);
    let changed = &fixed.paths[1];
    let edited = read(changed).replace("plain", "PLAIN");
    fs::write(changed, &edited).unwrap();

    let report = audit::undo(&fixed.log, &roots_of(&fixed.log)).unwrap();
    assert!(!report.all_restored());
    for file in &report.files {
        if file.path.ends_with("1.txt") {
            let Err(error @ AuditError::Modified(_)) = &file.result else {
                panic!("{:?}", file.result);
            };
            let message = error.to_string();
            assert!(message.contains("1.txt"), "{message}");
            assert!(message.contains("changed since the fix"), "{message}");
        } else {
            assert!(file.result.is_ok(), "{:?}", file.result);
        }
    }
    assert_eq!(read(changed), edited, "a refused file is left as it is");
    assert_eq!(read(&fixed.paths[0]), GARBLED[0]);
    assert_eq!(read(&fixed.paths[2]), GARBLED[2]);
}

#[test]
fn a_summary_log_cannot_undo() {
    let fixed = fixed(AuditLevel::Summary);
    let before: Vec<String> = fixed.paths.iter().map(|p| read(p)).collect();
    assert!(
        records(&fixed.log)
            .iter()
            .any(|r| matches!(r, Record::Sequence(_)))
    );
    let error = audit::undo(&fixed.log, &roots_of(&fixed.log)).unwrap_err();
    assert!(matches!(error, AuditError::SummaryOnly { .. }));
    assert!(error.to_string().contains("summary"), "{error}");
    let after: Vec<String> = fixed.paths.iter().map(|p| read(p)).collect();
    assert_eq!(before, after);
}

#[test]
fn the_dry_run_changes_nothing() {
    let fixed = fixed(AuditLevel::Full);
    let before: Vec<String> = fixed.paths.iter().map(|p| read(p)).collect();
    let report = audit::check_undo(&fixed.log, &roots_of(&fixed.log)).unwrap();
    assert!(report.all_restored());
    assert_eq!(report.files.len(), 3);
    let after: Vec<String> = fixed.paths.iter().map(|p| read(p)).collect();
    assert_eq!(before, after);
    assert!(
        audit::undo(&fixed.log, &roots_of(&fixed.log))
            .unwrap()
            .all_restored()
    );
}

#[test]
fn a_log_that_contradicts_the_file_is_refused() {
    let fixed = fixed(AuditLevel::Full);
    // The fix wrote `é` (c3 a9); the edited log, its chain written anew, claims it wrote `è`.
    edit_log(&fixed.log, |line| {
        line.replacen(
            "\"replacement_hex\":\"c3a9\"",
            "\"replacement_hex\":\"c3a8\"",
            1,
        )
    });
    fs::write(&fixed.log, rechain(&read(&fixed.log))).unwrap();
    let before = read(&fixed.paths[0]);
    let report = audit::undo(&fixed.log, &roots_of(&fixed.log)).unwrap();
    let first = report
        .files
        .iter()
        .find(|f| f.path.ends_with("0.txt"))
        .unwrap();
    assert!(
        matches!(first.result, Err(AuditError::Mismatch { .. })),
        "{:?}",
        first.result
    );
    assert_eq!(read(&fixed.paths[0]), before);
}

#[test]
fn a_log_cut_short_undoes_the_files_it_records_whole() {
    let fixed = fixed(AuditLevel::Full);
    let text = read(&fixed.log);
    // Cut in the middle of the last file's records: its file record is gone.
    let last_file_record = text.rfind("{\"type\":\"file\"").unwrap();
    fs::write(&fixed.log, &text[..last_file_record - 10]).unwrap();
    let report = audit::undo(&fixed.log, &roots_of(&fixed.log)).unwrap();
    assert_eq!(report.files.len(), 2);
    assert!(report.files.iter().all(|file| file.result.is_ok()));
    // ...but undo does not say all is restored: the log does not show the whole run.
    assert!(!report.all_restored());
    let Some(error @ AuditError::Unfinished { .. }) = &report.unfinished else {
        panic!("{report:?}");
    };
    assert!(error.to_string().contains("audit.jsonl:"), "{error}");
    assert_eq!(read(&fixed.paths[0]), GARBLED[0]);
    assert_eq!(read(&fixed.paths[1]), GARBLED[1]);
    assert_ne!(read(&fixed.paths[2]), GARBLED[2]);
}

#[test]
fn a_log_with_a_miscount_or_another_schema_is_rejected() {
    let fixed = fixed(AuditLevel::Full);
    let text = read(&fixed.log);
    let first_change = text.find("{\"type\":\"change\"").unwrap();
    let line_end = first_change + text[first_change..].find('\n').unwrap() + 1;
    fs::write(
        &fixed.log,
        format!("{}{}", &text[..first_change], &text[line_end..]),
    )
    .unwrap();
    let error = audit::undo(&fixed.log, &roots_of(&fixed.log)).unwrap_err();
    assert!(matches!(error, AuditError::BadLog { .. }), "{error}");
    assert!(error.to_string().contains("chain breaks"), "{error}");
    // Linked anew, the log still holds together no more: the file record counts its changes.
    fs::write(&fixed.log, rechain(&read(&fixed.log))).unwrap();
    let error = audit::undo(&fixed.log, &roots_of(&fixed.log)).unwrap_err();
    assert!(error.to_string().contains("change records"), "{error}");

    let schema = format!("\"schema\":{}", audit::SCHEMA);
    edit_log(&fixed.log, |line| line.replacen(&schema, "\"schema\":7", 1));
    let error = audit::undo(&fixed.log, &roots_of(&fixed.log)).unwrap_err();
    assert!(error.to_string().contains("schema 7"), "{error}");
    assert!(error.to_string().contains("audit.jsonl:1"), "{error}");
}

#[test]
fn a_log_of_schema_1_is_still_undone() {
    let fixed = fixed(AuditLevel::Full);
    // Schema 1 wrote the same records, without the kind of each change, and had no chain.
    let schema = format!("\"schema\":{}", audit::SCHEMA);
    edit_log(&fixed.log, |line| {
        unlinked(line)
            .replacen(&schema, "\"schema\":1", 1)
            .replacen("\"kind\":\"repair\",", "", 1)
    });
    let text = read(&fixed.log);
    let end = text.rfind("{\"type\":\"end\"").unwrap();
    fs::write(&fixed.log, &text[..end]).unwrap();
    assert!(!read(&fixed.log).contains("\"kind\""));
    assert!(!read(&fixed.log).contains("\"prev\""));
    let report = audit::undo(&fixed.log, &roots_of(&fixed.log)).unwrap();
    assert!(report.all_restored(), "{report:?}");
    for (path, original) in fixed.paths.iter().zip(GARBLED) {
        assert_eq!(read(path), original);
    }
}

#[test]
fn a_missing_file_is_refused_by_name() {
    let fixed = fixed(AuditLevel::Full);
    fs::remove_file(&fixed.paths[2]).unwrap();
    let report = audit::undo(&fixed.log, &roots_of(&fixed.log)).unwrap();
    let gone = report
        .files
        .iter()
        .find(|f| f.path.ends_with("2.txt"))
        .unwrap();
    let Err(error @ AuditError::File { .. }) = &gone.result else {
        panic!("{:?}", gone.result);
    };
    assert!(error.to_string().contains("2.txt"), "{error}");
    assert_eq!(report.files.iter().filter(|f| f.result.is_ok()).count(), 2);
    assert!(
        report
            .files
            .iter()
            .filter_map(|f| f.result.as_ref().ok())
            .all(|restored| matches!(restored, Restored::Replaced(_)))
    );
}

/// A repair written elsewhere (`-o FILE`, standard output) leaves its input as it was: the log
/// records it, and there is nothing to undo.
#[test]
fn a_repaired_copy_is_logged_but_never_undone() {
    let dir = tempfile::tempdir().unwrap();
    let paths = write_files(dir.path(), &[GARBLED[0].as_bytes().to_vec()]);
    let input = Input::File(paths[0].clone());
    let copy = dir.path().join("copy.txt");
    let log = dir.path().join("audit.jsonl");
    let scanner = scanner(Strictness::Balanced);
    let fixer = audited_fixer(&scanner, &log, AuditLevel::Full, []);
    let target = Target::Path {
        path: &copy,
        backup: None,
    };
    let FixOutcome::Repaired(repaired) = fixer.fix(&input, target).unwrap() else {
        panic!("not repaired");
    };
    assert_eq!(repaired.written, Written::Replaced);
    assert_eq!(repaired.counts.double_encoded, 3);
    let mut stdout = Vec::new();
    fixer.fix(&input, Target::Stream(&mut stdout)).unwrap();
    fixer.finish().unwrap();
    assert_eq!(fs::read(&copy).unwrap(), stdout);
    assert_eq!(read(&paths[0]), GARBLED[0]);

    let files: Vec<_> = records(&log)
        .into_iter()
        .filter_map(|r| match r {
            Record::File(file) => Some(file),
            _ => None,
        })
        .collect();
    assert_eq!(files.len(), 2);
    assert!(files.iter().all(|f| !f.rewritten && f.change_records == 3));
    assert!(files[0].output.ends_with("copy.txt"));
    assert_eq!(files[1].output, "<stdout>");
    assert!(audit::undo(&log, &roots_of(&log)).unwrap().files.is_empty());
    assert_eq!(read(&copy), String::from_utf8(stdout).unwrap());
}

#[cfg(unix)]
#[test]
fn permissions_survive_fix_and_undo() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let paths = write_files(dir.path(), &[GARBLED[0].as_bytes().to_vec()]);
    fs::set_permissions(&paths[0], fs::Permissions::from_mode(0o640)).unwrap();
    let log = dir.path().join("audit.jsonl");
    fix_all(
        &scanner(Strictness::Balanced),
        &paths,
        &log,
        AuditLevel::Full,
    );
    assert!(audit::undo(&log, &roots_of(&log)).unwrap().all_restored());
    let mode = fs::metadata(&paths[0]).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o640);
}

fn undouble(args: &[&Path]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_undouble"))
        .args(args)
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn the_binary_restores_and_exits_0() {
    let fixed = fixed(AuditLevel::Full);
    let root = fixed.dir.path();
    let dry = undouble(&[
        Path::new("undo"),
        Path::new("--root"),
        root,
        &fixed.log,
        Path::new("--dry-run"),
    ]);
    assert_eq!(dry.status.code(), Some(0), "{}", text(&dry.stderr));
    assert_eq!(text(&dry.stdout).matches("would restore ").count(), 3);
    assert_ne!(read(&fixed.paths[0]), GARBLED[0]);

    let run = undouble(&[Path::new("undo"), Path::new("--root"), root, &fixed.log]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let stdout = text(&run.stdout);
    assert_eq!(stdout.matches("restored ").count(), 3, "{stdout}");
    assert!(
        stdout.contains(&*fixed.paths[0].to_string_lossy()),
        "{stdout}"
    );
    for (path, original) in fixed.paths.iter().zip(GARBLED) {
        assert_eq!(read(path), original);
    }
    // A second undo finds the files as they were before the fix, not as it left them.
    let again = undouble(&[Path::new("undo"), Path::new("--root"), root, &fixed.log]);
    assert_eq!(again.status.code(), Some(2));
    assert_eq!(text(&again.stderr).matches("refused").count(), 3);
    assert_eq!(
        text(&again.stderr)
            .matches("already as the fix found it")
            .count(),
        3
    );
}

#[test]
fn the_binary_names_a_refused_file_and_exits_2() {
    let fixed = fixed(AuditLevel::Full);
    fs::write(&fixed.paths[0], "changed\n").unwrap();
    let run = undouble(&[
        Path::new("undo"),
        Path::new("--root"),
        fixed.dir.path(),
        &fixed.log,
    ]);
    assert_eq!(run.status.code(), Some(2));
    let stderr = text(&run.stderr);
    assert!(
        stderr.contains(&*fixed.paths[0].to_string_lossy()),
        "{stderr}"
    );
    assert!(stderr.contains("changed since the fix"), "{stderr}");
    assert_eq!(text(&run.stdout).matches("restored ").count(), 2);
    assert_eq!(read(&fixed.paths[0]), "changed\n");
}

#[test]
fn the_binary_refuses_a_summary_log_and_exits_2() {
    let fixed = fixed(AuditLevel::Summary);
    let run = undouble(&[Path::new("undo"), &fixed.log]);
    assert_eq!(run.status.code(), Some(2));
    assert!(text(&run.stderr).contains("--audit-level summary"));
    let missing = fixed.dir.path().join("no-such-log.jsonl");
    let run = undouble(&[Path::new("undo"), &missing]);
    assert_eq!(run.status.code(), Some(2));
    assert!(text(&run.stderr).contains("no-such-log.jsonl"));
}
