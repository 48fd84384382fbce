//! What `undo` refuses to write, and how it tells an interrupted fix from a damaged log: crafted
//! logs of a few lines that name a file outside the roots (absolute, or with `..`), a device, a
//! FIFO, a symbolic link or a path through a linked directory; real logs cut, reordered or
//! edited; a fix interrupted between a file's records and its replacement. Every case runs the
//! built binary (`fix` and `undo`), and checks the exit status, the message (with its log line)
//! and that the target is untouched.

mod audit_support;

use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use audit_support::rechain;

/// The victim's content, known to whoever crafts a log.
const VICTIM: &[u8] = b"the victim's own bytes\n";
/// What a crafted log would have `undo` write in its place.
const PAYLOAD: &[u8] = b"bytes of the log author's choosing\n";

/// A scratch directory: `root/`, where `undo` runs (so it is its default root), and
/// `outside/victim.txt`, which no undo run in `root/` may write.
struct Scene {
    _dir: tempfile::TempDir,
    root: PathBuf,
    outside: PathBuf,
    victim: PathBuf,
}

fn scene() -> Scene {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let outside = dir.path().join("outside");
    fs::create_dir(&root).unwrap();
    fs::create_dir(&outside).unwrap();
    let victim = outside.join("victim.txt");
    fs::write(&victim, VICTIM).unwrap();
    Scene {
        _dir: dir,
        root,
        outside,
        victim,
    }
}

fn sha256(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A log of `schema` saying that a fix turned `desired` into `current` at `path`: an undo that
/// believed it would write `desired` there. Three lines (header, change, file); a schema 3 log
/// also has its `end` record, and its chain holds.
fn crafted(schema: u32, path: &str, current: &[u8], desired: &[u8]) -> String {
    let header = json!({
        "type": "header", "schema": schema, "tool": "undouble", "version": "0.1.0",
        "command_line": ["undouble"], "time": "2025-01-01T00:00:00Z", "unix_time": 1735689600,
        "level": "full", "readings": ["latin1", "cp1252"], "strictness": "balanced",
    });
    let change = json!({
        "type": "change", "path": path, "offset": 0, "line": 1, "kind": "repair",
        "original": String::from_utf8_lossy(desired), "original_hex": hex(desired),
        "replacement": String::from_utf8_lossy(current), "replacement_hex": hex(current),
        "reading": "either", "layers": 1,
    });
    let file = json!({
        "type": "file", "path": path, "output": path, "rewritten": true,
        "bytes_before": desired.len(), "sha256_before": sha256(desired),
        "bytes_after": current.len(), "sha256_after": sha256(current),
        "valid_utf8": true, "double_encoded": 1, "left_alone": 0,
        "by_reading": {"either": 1}, "by_layers": {"1": 1}, "change_records": 1,
    });
    let mut lines = vec![header, change, file];
    if schema >= 3 {
        lines.push(json!({"type": "end", "files": 1, "rewritten": 1}));
    }
    let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
    if schema >= 3 { rechain(&text) } else { text }
}

/// Runs the binary in `cwd`; fails if it does not finish in 30 s (it is killed then).
fn undouble_in<S: AsRef<OsStr>>(cwd: &Path, args: &[S]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_undouble"))
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(30) {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("undouble {:?} did not finish", cwd);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `undo` (or `undo --dry-run`) of `log` run in `cwd`: its status, standard output and error.
fn undo(cwd: &Path, log: &Path, dry_run: bool) -> (Option<i32>, String, String) {
    let mut args = vec![OsStr::new("undo"), log.as_os_str()];
    if dry_run {
        args.push(OsStr::new("--dry-run"));
    }
    let output = undouble_in(cwd, &args);
    (
        output.status.code(),
        text(&output.stdout),
        text(&output.stderr),
    )
}

/// Writes `log` to `root/log.jsonl`, and checks that neither a dry run nor an undo in `root`
/// accepts it: status 2, the log line of the file record named, nothing said restored.
fn refused(root: &Path, log: &str) -> String {
    let path = root.join("log.jsonl");
    fs::write(&path, log).unwrap();
    let mut messages = String::new();
    for dry_run in [true, false] {
        let (status, stdout, stderr) = undo(root, &path, dry_run);
        assert_eq!(status, Some(2), "{stdout}{stderr}");
        assert!(!stdout.contains("restore"), "{stdout}");
        assert!(stderr.contains("refused"), "{stderr}");
        assert!(stderr.contains("log.jsonl:3"), "{stderr}");
        messages.push_str(&stderr);
    }
    messages
}

fn untouched(scene: &Scene) {
    assert_eq!(fs::read(&scene.victim).unwrap(), VICTIM);
    assert_eq!(fs::read_dir(&scene.outside).unwrap().count(), 1);
}

#[test]
fn a_log_naming_a_file_outside_the_root_is_refused() {
    let scene = scene();
    let victim = scene.victim.to_str().unwrap();
    for schema in [2, 3] {
        let stderr = refused(&scene.root, &crafted(schema, victim, VICTIM, PAYLOAD));
        assert!(stderr.contains("outside the directories"), "{stderr}");
        untouched(&scene);
        let climbing = "../outside/victim.txt";
        refused(&scene.root, &crafted(schema, climbing, VICTIM, PAYLOAD));
        untouched(&scene);
        // An absolute path that climbs out of the root is refused as well.
        let climbing = format!("{}/../outside/victim.txt", scene.root.display());
        let stderr = refused(&scene.root, &crafted(schema, &climbing, VICTIM, PAYLOAD));
        assert!(stderr.contains("`..`"), "{stderr}");
        untouched(&scene);
    }
}

#[test]
fn the_roots_are_where_undo_writes_and_may_be_several() {
    let scene = scene();
    let log = scene.root.join("log.jsonl");
    let victim = scene.victim.to_str().unwrap();
    fs::write(&log, crafted(3, victim, VICTIM, PAYLOAD)).unwrap();
    let other = tempfile::tempdir().unwrap();
    let roots = |dirs: &[&Path]| -> Vec<PathBuf> {
        let mut args = vec![PathBuf::from("undo"), PathBuf::from("--dry-run")];
        for dir in dirs {
            args.extend([PathBuf::from("--root"), dir.to_path_buf()]);
        }
        args.push(log.clone());
        args
    };
    let run = undouble_in(&scene.root, &roots(&[other.path()]));
    assert_eq!(run.status.code(), Some(2), "{}", text(&run.stderr));
    assert!(text(&run.stderr).contains("outside the directories"));
    // Named as a root, the directory is written: the dry run lists the path it would write.
    let run = undouble_in(&scene.root, &roots(&[other.path(), &scene.outside]));
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let real = scene.victim.canonicalize().unwrap();
    assert_eq!(
        text(&run.stdout),
        format!("would restore {} (1 change)\n", real.display())
    );
    untouched(&scene);
    let missing = scene.root.join("no-such-dir");
    let run = undouble_in(&scene.root, &roots(&[&missing]));
    assert_eq!(run.status.code(), Some(2));
    assert!(
        text(&run.stderr).contains("no-such-dir"),
        "{}",
        text(&run.stderr)
    );
}

#[cfg(unix)]
#[test]
fn a_device_is_never_restored() {
    use std::os::unix::fs::FileTypeExt;
    let scene = scene();
    // Only checked, never written: the device of the system, under its own directory as root.
    let log = scene.root.join("log.jsonl");
    fs::write(&log, crafted(2, "/dev/null", b"", PAYLOAD)).unwrap();
    let (status, stdout, stderr) = undo(Path::new("/dev"), &log, true);
    assert_eq!(status, Some(2), "{stdout}{stderr}");
    assert!(!stdout.contains("restore"), "{stdout}");
    assert!(stderr.contains("character device"), "{stderr}");
    assert!(stderr.contains("log.jsonl:3"), "{stderr}");
    // A device of the test's own, written for real where mknod is allowed.
    let node = scene.root.join("null");
    let made = Command::new("mknod")
        .arg(&node)
        .args(["c", "1", "3"])
        .output()
        .is_ok_and(|made| made.status.success());
    if made {
        let path = node.to_str().unwrap();
        let stderr = refused(&scene.root, &crafted(3, path, b"", PAYLOAD));
        assert!(stderr.contains("character device"), "{stderr}");
        let kind = fs::symlink_metadata(&node).unwrap().file_type();
        assert!(kind.is_char_device());
    }
}

#[cfg(unix)]
#[test]
fn a_fifo_is_refused_without_waiting_for_a_writer() {
    use std::os::unix::fs::FileTypeExt;
    let scene = scene();
    let fifo = scene.root.join("pipe");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    for schema in [2, 3] {
        let stderr = refused(
            &scene.root,
            &crafted(schema, fifo.to_str().unwrap(), b"", PAYLOAD),
        );
        assert!(stderr.contains("a FIFO"), "{stderr}");
        assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    }
}

#[cfg(unix)]
#[test]
fn a_symbolic_link_is_never_written_through() {
    let scene = scene();
    // A link to the victim inside the root...
    let link = scene.root.join("link.txt");
    std::os::unix::fs::symlink(&scene.victim, &link).unwrap();
    // ...and a linked directory that leads out of it.
    let door = scene.root.join("door");
    std::os::unix::fs::symlink(&scene.outside, &door).unwrap();
    for schema in [2, 3] {
        let path = link.to_str().unwrap();
        let stderr = refused(&scene.root, &crafted(schema, path, VICTIM, PAYLOAD));
        assert!(stderr.contains("symbolic link"), "{stderr}");
        let through = door.join("victim.txt");
        let path = through.to_str().unwrap();
        let stderr = refused(&scene.root, &crafted(schema, path, VICTIM, PAYLOAD));
        assert!(stderr.contains("symbolic link"), "{stderr}");
        untouched(&scene);
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read_link(&link).unwrap(), scene.victim);
    }
}

/// Garbled files fixed in place by the binary with `--audit log.jsonl`, run in `root`.
fn fixed(root: &Path, files: &[(&str, &str)]) -> PathBuf {
    for (name, content) in files {
        fs::write(root.join(name), content).unwrap();
    }
    let mut args = vec!["fix", "-q", "--in-place", "--audit", "log.jsonl"];
    args.extend(files.iter().map(|(name, _)| *name));
    let fix = undouble_in(root, &args);
    assert_eq!(fix.status.code(), Some(0), "{}", text(&fix.stderr));
    root.join("log.jsonl")
}

const A: &str = "CafÃ© crÃ¨me\nnaÃ¯ve\n";
const B: &str = "donâ€™t stop\nÃ©tÃ©\n";
const A_FIXED: &str = "Café crème\nnaïve\n";
const B_FIXED: &str = "don’t stop\nété\n";

fn lines(log: &Path) -> Vec<String> {
    let text = fs::read_to_string(log).unwrap();
    text.lines().map(|line| format!("{line}\n")).collect()
}

fn record_type(line: &str) -> String {
    let value: Value = serde_json::from_str(line).unwrap();
    value["type"].as_str().unwrap().to_owned()
}

#[test]
fn a_log_cut_short_is_refused_not_nothing_to_undo() {
    let scene = scene();
    let root = &scene.root;
    let log = fixed(root, &[("a.txt", A)]);
    let text = fs::read_to_string(&log).unwrap();
    // Cut inside the file record: nothing can be undone, and undo says why.
    let file_record = text.rfind("{\"type\":\"file\"").unwrap();
    let line = 1 + text[..file_record].matches('\n').count();
    fs::write(&log, &text[..file_record + 20]).unwrap();
    let (status, stdout, stderr) = undo(root, &log, false);
    assert_eq!(status, Some(2), "{stdout}{stderr}");
    assert!(!stdout.contains("nothing to undo"), "{stdout}");
    assert!(stderr.contains(&format!("log.jsonl:{line}: ")), "{stderr}");
    assert!(stderr.contains("stops here"), "{stderr}");
    assert_eq!(fs::read_to_string(root.join("a.txt")).unwrap(), A_FIXED);
    // Without its last line: the file it records whole is restored, and the log reported.
    let whole = &text[..text.len() - 1];
    let last_line = whole.rfind('\n').unwrap() + 1;
    fs::write(&log, &text[..last_line]).unwrap();
    let (status, stdout, stderr) = undo(root, &log, false);
    assert_eq!(status, Some(2), "{stdout}{stderr}");
    assert!(!stdout.contains("nothing to undo"), "{stdout}");
    assert!(stderr.contains("stops here"), "{stderr}");
    assert!(stderr.contains("log.jsonl:"), "{stderr}");
    assert_eq!(fs::read_to_string(root.join("a.txt")).unwrap(), A);
}

#[test]
fn a_reordered_log_is_refused_and_nothing_written() {
    let scene = scene();
    let root = &scene.root;
    let log = fixed(root, &[("a.txt", A), ("b.txt", B)]);
    let lines = lines(&log);
    let first_file = lines.iter().position(|l| record_type(l) == "file").unwrap();
    let second_file = first_file
        + 1
        + lines[first_file + 1..]
            .iter()
            .position(|l| record_type(l) == "file")
            .unwrap();
    // The second file's records before the first's.
    let mut swapped = vec![lines[0].clone()];
    swapped.extend_from_slice(&lines[first_file + 1..=second_file]);
    swapped.extend_from_slice(&lines[1..=first_file]);
    swapped.extend_from_slice(&lines[second_file + 1..]);
    fs::write(&log, swapped.concat()).unwrap();
    let (status, stdout, stderr) = undo(root, &log, false);
    assert_eq!(status, Some(2), "{stdout}{stderr}");
    assert!(stderr.contains("log.jsonl:2: "), "{stderr}");
    assert!(stderr.contains("chain breaks"), "{stderr}");
    assert_eq!(fs::read_to_string(root.join("a.txt")).unwrap(), A_FIXED);
    assert_eq!(fs::read_to_string(root.join("b.txt")).unwrap(), B_FIXED);
}

#[test]
fn an_edited_log_is_refused_naming_the_first_bad_line() {
    let scene = scene();
    let root = &scene.root;
    let log = fixed(root, &[("a.txt", A)]);
    let original = lines(&log);
    // Edits that leave every record valid, and that no check but the chain would see.
    let edits: [(usize, &str, &str); 3] = [
        (0, "\"undouble\",", "\"someone-else\","),
        (1, "\"line\":1,", "\"line\":7,"),
        (2, "\"reading\":\"either\"", "\"reading\":\"latin1\""),
    ];
    for (at, from, to) in edits {
        let mut edited = original.clone();
        assert!(edited[at].contains(from), "{}", edited[at]);
        edited[at] = edited[at].replacen(from, to, 1);
        fs::write(&log, edited.concat()).unwrap();
        let (status, stdout, stderr) = undo(root, &log, false);
        assert_eq!(status, Some(2), "{stdout}{stderr}");
        let next = at + 2;
        assert!(stderr.contains(&format!("log.jsonl:{next}: ")), "{stderr}");
        assert!(stderr.contains("chain breaks"), "{stderr}");
        assert_eq!(fs::read_to_string(root.join("a.txt")).unwrap(), A_FIXED);
    }
}

/// A fix killed after it wrote (and synced) the records of its last file, before it renamed
/// the repaired copy over it: the log stops after that file record, the file is still the
/// original, and the repaired copy is left beside it.
#[test]
fn a_fix_interrupted_before_its_last_rename_is_explained() {
    let scene = scene();
    let root = &scene.root;
    let log = fixed(root, &[("a.txt", A), ("b.txt", B)]);
    let mut lines = lines(&log);
    if lines.last().is_some_and(|line| record_type(line) == "end") {
        lines.pop();
    }
    assert_eq!(
        lines.last().map(|line| record_type(line)),
        Some("file".into())
    );
    fs::write(&log, lines.concat()).unwrap();
    fs::write(root.join("b.txt"), B).unwrap();
    fs::write(root.join(".undouble-Xq3RtY.tmp"), B_FIXED).unwrap();

    let (status, stdout, stderr) = undo(root, &log, true);
    assert_eq!(status, Some(2), "{stdout}{stderr}");
    assert!(stdout.contains("would restore"), "{stdout}");
    assert_eq!(fs::read_to_string(root.join("a.txt")).unwrap(), A_FIXED);

    let (status, stdout, stderr) = undo(root, &log, false);
    assert_eq!(status, Some(2), "{stdout}{stderr}");
    let b = root.join("b.txt");
    assert!(
        stdout.contains(&format!("never replaced {}", b.display())),
        "{stdout}"
    );
    assert!(stdout.contains("it is the original"), "{stdout}");
    assert!(stdout.contains(&sha256(B.as_bytes())), "{stdout}");
    assert!(!stderr.contains("changed since the fix"), "{stderr}");
    assert!(!stderr.contains("refused"), "{stderr}");
    assert!(stderr.contains("stops here"), "{stderr}");
    assert_eq!(fs::read_to_string(root.join("a.txt")).unwrap(), A);
    assert_eq!(fs::read_to_string(&b).unwrap(), B);
}

#[test]
fn bytes_that_are_no_log_are_refused_naming_their_line() {
    let scene = scene();
    let root = &scene.root;
    let log = fixed(root, &[("a.txt", A)]);
    let original = fs::read(&log).unwrap();
    let second_line = original.iter().position(|&b| b == b'\n').unwrap() + 1;
    let cases: [&[u8]; 3] = [
        b"{\"type\":\"change\",\"path\":\"caf\xe9\"}\n",
        b"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\n",
        b"{\"type\":\"change\",\"offset\":1e400}\n",
    ];
    for case in cases {
        let mut bytes = original[..second_line].to_vec();
        bytes.extend_from_slice(case);
        bytes.extend_from_slice(&original[second_line..]);
        fs::write(&log, &bytes).unwrap();
        let (status, stdout, stderr) = undo(root, &log, false);
        assert_eq!(status, Some(2), "{stdout}{stderr}");
        assert!(stderr.contains("log.jsonl:2: "), "{stderr}");
        assert_eq!(fs::read_to_string(root.join("a.txt")).unwrap(), A_FIXED);
    }
}
