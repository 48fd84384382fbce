//! `fix --range --audit` and `merge --audit` through the binary: four ranges of a file of
//! several blocks (a text, a MySQL and a PostgreSQL dump), cut at arbitrary offsets inside
//! characters, values and `COPY` rows, each fixed with its own log; `merge --audit` joins the
//! parts over the file, which then equals the whole file's fix, and writes one log whose change
//! and file records are those an audited fix of the whole file writes; `undo` of that log
//! restores the file. Then what must be refused is: a part missing, given twice, changed, or
//! written to standard output; the file changed since; a part or a file outside the roots; a
//! log whose chain breaks, cut before its end, or at the summary level; a combined log that
//! exists already. Logs of whole files are carried over into the combined log, and undone with
//! the ranges' file.

#![cfg(unix)]

mod audit_support;
mod binary;
mod dumps;

use audit_support::rechain;
use binary::*;
use dumps::{big_mysql_dump, big_postgres_dump, inside};

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

/// About 20 MiB of text, more than two blocks, with a garbled line now and then (a full audit
/// log of densely garbled text is several times the file).
fn sparse_text() -> Vec<u8> {
    let mut text = String::new();
    let mut i = 0u64;
    while text.len() < 20 << 20 {
        i += 1;
        text += match i % 97 {
            0 => "CafÃ© crÃ¨me, naÃ¯ve â€” Ã¼ber\n",
            30 => "clean café crème 日本語\n",
            50 => "ÃƒÂ© twice Ã¢â‚¬â„¢ quoted\n",
            _ => "just ascii here, a line of plain words\n",
        };
    }
    text.into_bytes()
}

/// The values of a sparsely garbled dump: one in `every` garbled, one clean non-ASCII, the
/// others ASCII.
fn sparse_values<'a>(garbled: &'a str, clean: &'a str, every: usize) -> Vec<&'a str> {
    let mut values = vec!["plain words in a value"; every];
    values[0] = garbled;
    values[every / 2] = clean;
    values
}

/// A file to fix in `srv/`, its parts and their logs in `work/`.
struct Setup {
    dir: tempfile::TempDir,
    srv: PathBuf,
    work: PathBuf,
    file: PathBuf,
    original: Vec<u8>,
}

fn setup(name: &str, bytes: &[u8]) -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let srv = dir.path().join("srv");
    let work = dir.path().join("work");
    fs::create_dir(&srv).unwrap();
    fs::create_dir(&work).unwrap();
    let file = srv.join(name);
    fs::write(&file, bytes).unwrap();
    Setup {
        dir,
        srv,
        work,
        file,
        original: bytes.to_vec(),
    }
}

fn arg(path: &Path) -> &str {
    path.to_str().unwrap()
}

fn ok(args: &[&str]) -> Output {
    let output = run(args);
    assert!(
        output.status.code().is_some_and(|code| code < 2),
        "{args:?}: {}",
        stderr(&output)
    );
    output
}

impl Setup {
    /// Fixes the file in the ranges `cuts` make, each with its log; the logs' paths.
    fn fix_ranges(&self, fix_args: &[&str], cuts: &[usize]) -> Vec<String> {
        let mut logs = Vec::new();
        for (at, pair) in cuts.windows(2).enumerate() {
            let range = format!("{}-{}", pair[0], pair[1]);
            let log = self.work.join(format!("p{at}.log"));
            let part = self.work.join(format!("p{at}"));
            let mut args = vec!["fix", "--range", &range, "--audit", arg(&log)];
            args.extend(["-o", arg(&part)]);
            args.extend_from_slice(fix_args);
            args.push(arg(&self.file));
            ok(&args);
            logs.push(arg(&log).to_owned());
        }
        logs
    }

    /// `merge --audit` of `logs` into `combined` under `roots` (the file's and the parts'
    /// directories when empty).
    fn merge(&self, combined: &Path, roots: &[&Path], logs: &[String]) -> Output {
        let mut args = vec!["merge", "--audit", arg(combined)];
        let default = [self.srv.as_path(), self.work.as_path()];
        for root in if roots.is_empty() {
            &default[..]
        } else {
            roots
        } {
            args.extend(["--root", arg(root)]);
        }
        args.extend(logs.iter().map(String::as_str));
        run(&args)
    }

    fn combined(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn unchanged(&self) -> bool {
        fs::read(&self.file).unwrap() == self.original
    }
}

/// The records of a log.
fn records(log: &Path) -> Vec<Value> {
    fs::read_to_string(log)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// The change and file records of a log, without what differs between a fix to another file
/// and a merge in place: links, output, rewritten.
fn changes_and_files(log: &Path) -> Vec<Value> {
    records(log)
        .into_iter()
        .filter(|record| record["type"] == "change" || record["type"] == "file")
        .map(|mut record| {
            let object = record.as_object_mut().unwrap();
            for key in ["prev", "output", "rewritten"] {
                object.remove(key);
            }
            record
        })
        .collect()
}

/// Fixes the file whole with a log, and in the ranges `cuts` make with theirs; merges the logs
/// (in another order) over the file: it must be the whole fix, the combined log's records the
/// whole log's, and `undo` of it must restore the original.
fn check_audited_ranges(name: &str, bytes: &[u8], fix_args: &[&str], cuts: &[usize]) {
    let setup = setup(name, bytes);
    let whole_log = setup.dir.path().join("whole.log");
    let whole_out = setup.dir.path().join("whole.out");
    let mut args = vec!["fix", "--audit", arg(&whole_log), "-o", arg(&whole_out)];
    args.extend_from_slice(fix_args);
    args.push(arg(&setup.file));
    ok(&args);
    let mut logs = setup.fix_ranges(fix_args, cuts);
    let parts_with_changes = logs
        .iter()
        .filter(|log| {
            records(Path::new(log))
                .iter()
                .any(|record| record["type"] == "change")
        })
        .count();
    assert!(
        parts_with_changes >= 2,
        "{name}: the first range changed all"
    );
    logs.rotate_left(1);
    logs.swap(0, 2);
    let combined = setup.combined("combined.log");
    let merged = setup.merge(&combined, &[], &logs);
    assert_eq!(merged.status.code(), Some(0), "{name}: {}", stderr(&merged));
    assert!(
        fs::read(&setup.file).unwrap() == fs::read(&whole_out).unwrap(),
        "{name}: the joined parts are not the whole fix"
    );
    let file_records: Vec<Value> = records(&combined)
        .into_iter()
        .filter(|record| record["type"] == "file")
        .collect();
    assert_eq!(file_records.len(), 1);
    assert_eq!(file_records[0]["rewritten"], true);
    assert_eq!(file_records[0]["output"], arg(&setup.file));
    assert!(file_records[0].get("part_offset").is_none());
    assert_eq!(
        changes_and_files(&combined),
        changes_and_files(&whole_log),
        "{name}: the combined log is not the whole fix's"
    );
    let undone = run(&["undo", "--root", arg(&setup.srv), arg(&combined)]);
    assert_eq!(undone.status.code(), Some(0), "{}", stderr(&undone));
    assert!(setup.unchanged(), "{name}: undo did not restore the file");
}

#[test]
fn audited_ranges_of_a_text_join_to_its_fix_and_undo_restores_it() {
    let text = sparse_text();
    let first = text.windows(2).position(|w| w == "Ã".as_bytes()).unwrap() + 1;
    let cuts = [0, first + 5_000_000, 9_000_017, 16_777_217, text.len() + 10];
    check_audited_ranges("big.txt", &text, &[], &cuts);
}

#[test]
fn audited_ranges_of_a_mysql_dump_join_to_its_fix_and_undo_restores_it() {
    let dump = big_mysql_dump(&sparse_values("CafÃ© it\\'s naÃ¯ve", "clean café", 53));
    let cuts = [
        0,
        inside(&dump, 3_000_000, "Ã©", 1),
        inside(&dump, 9_000_000, "it\\'s", 3),
        inside(&dump, 15_000_000, "),(", 2),
        dump.len(),
    ];
    check_audited_ranges("dump.sql", &dump, &["--convert-charset", "utf8mb4"], &cuts);
}

#[test]
fn audited_ranges_of_a_postgres_copy_block_join_to_its_fix_and_undo_restores_it() {
    let dump = big_postgres_dump(&sparse_values("CafÃ© line\\nbreak Ã¢â‚¬â„¢", "\\N", 61));
    let cuts = [
        0,
        inside(&dump, 4_000_000, "CafÃ©", 2),
        inside(&dump, 9_500_000, "\\nbreak", 1),
        inside(&dump, 17_000_000, "Ã¢", 1),
        dump.len() + 1,
    ];
    check_audited_ranges("dump.sql", &dump, &[], &cuts);
}

/// `merge --audit` refused: exit 2, a message holding `says`, the file as it was.
fn refused(setup: &Setup, output: &Output, says: &str) {
    assert_eq!(output.status.code(), Some(2), "{}", stderr(output));
    assert!(
        stderr(output).contains(says),
        "expected {says:?} in: {}",
        stderr(output)
    );
    assert!(setup.unchanged(), "a refused merge changed the file");
}

#[test]
fn merges_of_audit_logs_that_do_not_hold_together_are_refused_and_change_nothing() {
    let text = sparse_text();
    let setup = setup("big.txt", &text);
    let cuts = [0, 5_000_000, 12_000_000, text.len()];
    let logs = setup.fix_ranges(&[], &cuts);
    let fresh = {
        let mut n = 0;
        move |setup: &Setup| {
            n += 1;
            setup.combined(&format!("c{n}.log"))
        }
    };
    let mut fresh = fresh;

    // A part missing, or given twice: the ranges do not tile the file.
    let missing = [logs[0].clone(), logs[2].clone()];
    refused(
        &setup,
        &setup.merge(&fresh(&setup), &[], &missing),
        "the ranges do not tile the file",
    );
    let twice = [
        logs[0].clone(),
        logs[1].clone(),
        logs[1].clone(),
        logs[2].clone(),
    ];
    refused(
        &setup,
        &setup.merge(&fresh(&setup), &[], &twice),
        "the ranges do not tile the file",
    );
    // The last part missing: the parts do not reach the file's end.
    refused(
        &setup,
        &setup.merge(&fresh(&setup), &[], &logs[..2]),
        "the parts cover",
    );

    // A part changed after its fix wrote it.
    let part = setup.work.join("p1");
    let written = fs::read(&part).unwrap();
    let mut edited = written.clone();
    edited[1000] ^= 0x20;
    fs::write(&part, &edited).unwrap();
    refused(
        &setup,
        &setup.merge(&fresh(&setup), &[], &logs),
        "but its range fix wrote",
    );
    fs::write(&part, &written).unwrap();

    // The file changed since the ranges were fixed (same size).
    let mut changed = text.clone();
    changed[6_000_000] ^= 0x01;
    fs::write(&setup.file, &changed).unwrap();
    let output = setup.merge(&fresh(&setup), &[], &logs);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("the file changed since"));
    assert!(fs::read(&setup.file).unwrap() == changed);
    fs::write(&setup.file, &text).unwrap();

    // The parts outside the roots; the file outside the roots.
    refused(
        &setup,
        &setup.merge(&fresh(&setup), &[&setup.srv], &logs),
        "outside the directories named as roots",
    );
    refused(
        &setup,
        &setup.merge(&fresh(&setup), &[&setup.work], &logs),
        "outside the directories named as roots",
    );

    // A log edited: its chain breaks, and nothing is written, not even the combined log.
    let log0 = fs::read_to_string(&logs[0]).unwrap();
    let edited_log = setup.work.join("edited.log");
    let change = log0.find("\"replacement_hex\":\"").unwrap() + "\"replacement_hex\":\"".len();
    let mut bytes = log0.clone().into_bytes();
    bytes[change] = if bytes[change] == b'c' { b'd' } else { b'c' };
    fs::write(&edited_log, &bytes).unwrap();
    let with_edited = [
        arg(&edited_log).to_owned(),
        logs[1].clone(),
        logs[2].clone(),
    ];
    let combined = fresh(&setup);
    refused(
        &setup,
        &setup.merge(&combined, &[], &with_edited),
        "the integrity chain breaks",
    );
    assert!(
        !combined.exists(),
        "a combined log was written for a broken log"
    );

    // A log cut before its end record.
    let cut_log = setup.work.join("cut.log");
    let end = log0.rfind("{\"type\":\"end\"").unwrap();
    fs::write(&cut_log, &log0[..end]).unwrap();
    let with_cut = [arg(&cut_log).to_owned(), logs[1].clone(), logs[2].clone()];
    refused(
        &setup,
        &setup.merge(&fresh(&setup), &[], &with_cut),
        "only logs of runs that finished are combined",
    );

    // A log of the summary level records no change to undo.
    let summary_log = setup.work.join("summary.log");
    let summary_part = setup.work.join("summary.part");
    ok(&[
        "fix",
        "--range",
        "0-5000000",
        "--audit",
        arg(&summary_log),
        "--audit-level",
        "summary",
        "-o",
        arg(&summary_part),
        arg(&setup.file),
    ]);
    let with_summary = [
        arg(&summary_log).to_owned(),
        logs[1].clone(),
        logs[2].clone(),
    ];
    refused(
        &setup,
        &setup.merge(&fresh(&setup), &[], &with_summary),
        "--audit-level summary",
    );

    // A part that went to standard output cannot be joined.
    let stdout_log = setup.work.join("stdout.log");
    let range = format!("{}-{}", cuts[2], cuts[3]);
    let to_stdout = ok(&[
        "fix",
        "--range",
        &range,
        "--audit",
        arg(&stdout_log),
        arg(&setup.file),
    ]);
    assert!(!to_stdout.stdout.is_empty());
    let with_stdout = [
        logs[0].clone(),
        logs[1].clone(),
        arg(&stdout_log).to_owned(),
    ];
    refused(
        &setup,
        &setup.merge(&fresh(&setup), &[], &with_stdout),
        "not to a file",
    );

    // A combined log is never written over.
    let existing = fresh(&setup);
    fs::write(&existing, "keep me").unwrap();
    refused(&setup, &setup.merge(&existing, &[], &logs), "File exists");
    assert_eq!(fs::read_to_string(&existing).unwrap(), "keep me");

    // After all that, the logs still join, and undo takes the join back.
    let combined = fresh(&setup);
    let output = setup.merge(&combined, &[], &logs);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(!setup.unchanged());
    let undone = run(&["undo", "--root", arg(&setup.srv), arg(&combined)]);
    assert_eq!(undone.status.code(), Some(0), "{}", stderr(&undone));
    assert!(setup.unchanged());
}

#[test]
fn a_crafted_range_log_whose_chain_holds_cannot_join_over_a_file_outside_the_roots() {
    let outside_dir = tempfile::tempdir().unwrap();
    let victim = outside_dir.path().join("victim.txt");
    fs::write(&victim, "CafÃ© keep\n").unwrap();
    let setup = setup("a.txt", "CafÃ© keep\n".as_bytes());
    let logs = setup.fix_ranges(&[], &[0, 1 << 20]);
    // The log retargeted at the victim, linked anew: what anyone who writes a log can do.
    let log = fs::read_to_string(&logs[0]).unwrap();
    let retargeted = log.replace(arg(&setup.file), arg(&victim));
    let linked = rechain(&retargeted);
    let crafted = setup.work.join("crafted.log");
    fs::write(&crafted, linked).unwrap();
    let output = setup.merge(&setup.combined("c.log"), &[], &[arg(&crafted).to_owned()]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("outside the directories named as roots"));
    assert_eq!(fs::read_to_string(&victim).unwrap(), "CafÃ© keep\n");
}

#[test]
fn a_relinked_range_log_whose_changes_do_not_undo_its_part_is_refused() {
    let setup = setup("a.txt", "CafÃ© crÃ¨me\n".repeat(20).as_bytes());
    let logs = setup.fix_ranges(&[], &[0, 1 << 20]);
    // One change's original cut by a byte, the chain linked anew, every fingerprint right:
    // the join would be correct, but its log could not take it back.
    let log = fs::read_to_string(&logs[0]).unwrap();
    let key = "\"original_hex\":\"";
    let at = log.find(key).unwrap() + key.len();
    let end = at + log[at..].find('"').unwrap();
    let edited = format!("{}{}", &log[..end - 2], &log[end..]);
    let relinked = setup.work.join("relinked.log");
    fs::write(&relinked, rechain(&edited)).unwrap();
    let output = setup.merge(&setup.combined("c.log"), &[], &[arg(&relinked).to_owned()]);
    // The walk back stops at the first change that is not where the log puts it, naming the
    // part and the log's line.
    refused(&setup, &output, "work/p0: refused: byte ");
    assert!(stderr(&output).contains("relinked.log:"));
}

#[test]
fn logs_of_whole_files_are_carried_into_the_combined_log_and_undone_with_the_ranges() {
    let setup = setup("c.txt", "CafÃ© in ranges\n".repeat(50).as_bytes());
    let wholes: Vec<(PathBuf, PathBuf, &str)> = ["a.txt", "b.txt"]
        .iter()
        .map(|name| {
            let path = setup.srv.join(name);
            let log = setup.work.join(format!("{name}.log"));
            (path, log, "naÃ¯ve and crÃ¨me\n")
        })
        .collect();
    for (path, log, text) in &wholes {
        fs::write(path, text).unwrap();
        ok(&["fix", "--in-place", "--audit", arg(log), arg(path)]);
        assert_eq!(fs::read_to_string(path).unwrap(), "naïve and crème\n");
    }
    let mut logs: Vec<String> = wholes
        .iter()
        .map(|(_, log, _)| arg(log).to_owned())
        .collect();
    logs.extend(setup.fix_ranges(&[], &[0, 100, 1 << 20]));
    let combined = setup.combined("all.log");
    let output = setup.merge(&combined, &[], &logs);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let said = String::from_utf8_lossy(&output.stdout);
    assert!(
        said.contains("carried") && said.contains("joined 2 parts"),
        "{said}"
    );
    let files: Vec<Value> = records(&combined)
        .into_iter()
        .filter(|record| record["type"] == "file")
        .collect();
    assert_eq!(files.len(), 3);
    assert!(files.iter().all(|file| file["rewritten"] == true));
    assert_eq!(
        fs::read_to_string(&setup.file).unwrap(),
        "Café in ranges\n".repeat(50)
    );
    let undone = run(&["undo", "--root", arg(&setup.srv), arg(&combined)]);
    assert_eq!(undone.status.code(), Some(0), "{}", stderr(&undone));
    assert!(setup.unchanged());
    for (path, _, text) in &wholes {
        assert_eq!(fs::read_to_string(path).unwrap(), *text);
    }
}
