//! The audit-log reader against hostile bytes: real logs written by `fix --audit`, mutated a few
//! thousand times from a fixed seed (bits flipped, bytes inserted and deleted, cuts, lines
//! duplicated, swapped and removed, paths and hashes edited, numbers made absurd, and some of
//! them linked anew so that only the roots and the hashes stand in the way), each read by `undo`
//! (mostly as a dry run, some for real) in a thread with a deadline.
//!
//! For every input: the reader finishes within its deadline and does not panic; a log whose
//! chain does not hold is never accepted; and nothing outside the root is ever written, nor a
//! link, FIFO or device inside it. A file a mutated log restores is put back in its fixed state
//! before the next input.
//!
//! The logs of two ranges of a file, mutated the same way, are combined by `merge --audit`
//! (the library's `combine`): a log whose chain breaks or that lacks its end is refused whole,
//! nothing outside the root is written, and a file the merge joined is always one that `undo`
//! of the combined log puts back exactly.

#![cfg(unix)]

mod audit_support;

use std::fs;
use std::path::PathBuf;
use std::process::Command;
use std::sync::mpsc;
use std::time::Duration;

use serde_json::Value;
use sha2::{Digest, Sha256};
use undouble::audit::{self, Roots, UndoReport};

use audit_support::rechain;

/// How many mutated logs are read.
const INPUTS: u64 = 3000;
/// One in this many is undone for real rather than as a dry run.
const REAL_EVERY: u64 = 5;
/// How long one input may take.
const DEADLINE: Duration = Duration::from_secs(5);

/// A small xorshift generator: enough to draw mutations reproducibly from a seed.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// A number below `n` (`n` > 0).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

const TEXT_A: &str = "CafÃ© crÃ¨me\nnaÃ¯ve, donâ€™t\n";
const TEXT_B: &str = "ÃƒÂ©tÃƒÂ© Ã©tÃ©\n";
const DUMP: &str = "-- MySQL dump 10.13\nCREATE TABLE `t` (\n  `id` int NOT NULL,\n  `name` \
                    varchar(20) DEFAULT NULL,\n  PRIMARY KEY (`id`)\n) ENGINE=InnoDB DEFAULT \
                    CHARSET=latin1;\nINSERT INTO `t` VALUES (1,'CafÃ©'),(2,'naÃ¯ve');\n";

/// The files of the run: `root/` with the fixed files, a link, a linked directory and a FIFO;
/// `outside/` with copies of the fixed files, which a log retargeted there would match.
struct World {
    _dir: tempfile::TempDir,
    root: PathBuf,
    outside: PathBuf,
    logs: PathBuf,
    /// Every file of `root` and `outside` a log may name, with its bytes as they must stay
    /// (outside) or be put back (inside).
    fixed: Vec<(PathBuf, Vec<u8>)>,
    /// Real logs, as the fix wrote them.
    seeds: Vec<Vec<u8>>,
    /// The logs of two ranges of `root/r.txt`, whose parts are in `root/parts/`.
    range_seeds: [Vec<u8>; 2],
    /// Paths a mutation may put in a log.
    targets: Vec<String>,
}

fn world() -> World {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let outside = dir.path().join("outside");
    let logs = dir.path().join("logs");
    for sub in [&root, &outside, &logs] {
        fs::create_dir(sub).unwrap();
    }
    let files = [("a.txt", TEXT_A), ("b.txt", TEXT_B), ("d.sql", DUMP)];
    for (name, content) in files {
        fs::write(root.join(name), content).unwrap();
    }
    let fix = |args: &[&str]| {
        let run = Command::new(env!("CARGO_BIN_EXE_undouble"))
            .args(args)
            .current_dir(&root)
            .output()
            .unwrap();
        assert_eq!(run.status.code(), Some(0), "{run:?}");
    };
    let texts = logs.join("texts.jsonl");
    let dump = logs.join("dump.jsonl");
    fix(&["fix", "-q", "--in-place", "--audit"]
        .into_iter()
        .chain([texts.to_str().unwrap(), "a.txt", "b.txt"])
        .collect::<Vec<_>>());
    fix(&[
        "fix",
        "-q",
        "--in-place",
        "--convert-charset",
        "utf8mb4",
        "--audit",
    ]
    .into_iter()
    .chain([dump.to_str().unwrap(), "d.sql"])
    .collect::<Vec<_>>());
    // A file fixed in two ranges (the second past its one block: an empty part), each with
    // its log; the file itself stays as it is until its parts are joined over it.
    fs::write(root.join("r.txt"), TEXT_A.repeat(3)).unwrap();
    fs::create_dir(root.join("parts")).unwrap();
    let range_logs = [logs.join("r0.jsonl"), logs.join("r1.jsonl")];
    for (at, range) in ["0-10", "10-"].into_iter().enumerate() {
        let part = root.join("parts").join(format!("r{at}"));
        let log = range_logs[at].to_str().unwrap();
        fix(&["fix", "-q", "--range", range, "--audit", log, "-o"]
            .into_iter()
            .chain([part.to_str().unwrap(), "r.txt"])
            .collect::<Vec<_>>());
    }
    let range_seeds = range_logs.map(|log| fs::read(log).unwrap());
    let mut fixed = Vec::new();
    for name in ["r.txt", "parts/r0", "parts/r1"] {
        fixed.push((root.join(name), fs::read(root.join(name)).unwrap()));
    }
    fs::write(outside.join("r.txt"), TEXT_A.repeat(3)).unwrap();
    fixed.push((outside.join("r.txt"), TEXT_A.repeat(3).into_bytes()));
    for (name, _) in files {
        let bytes = fs::read(root.join(name)).unwrap();
        // The same bytes outside: every hash of a retargeted log holds there.
        fs::write(outside.join(name), &bytes).unwrap();
        fixed.push((root.join(name), bytes.clone()));
        fixed.push((outside.join(name), bytes));
    }
    std::os::unix::fs::symlink(outside.join("a.txt"), root.join("link.txt")).unwrap();
    std::os::unix::fs::symlink(&outside, root.join("door")).unwrap();
    let made = Command::new("mkfifo").arg(root.join("pipe")).status();
    assert!(made.unwrap().success());
    let mut targets: Vec<String> = Vec::new();
    for (name, _) in files {
        targets.push(outside.join(name).display().to_string());
        targets.push(format!("../outside/{name}"));
        targets.push(format!("{}/../outside/{name}", root.display()));
        targets.push(root.join("door").join(name).display().to_string());
        targets.push(root.join(name).display().to_string());
    }
    targets.push(outside.join("r.txt").display().to_string());
    targets.push(root.join("parts").display().to_string());
    targets.push(root.join("parts/r0").display().to_string());
    targets.push(root.join("r.txt").display().to_string());
    targets.push(root.join("link.txt").display().to_string());
    targets.push(root.join("pipe").display().to_string());
    targets.push(root.display().to_string());
    targets.push(format!("{}/", root.display()));
    let seeds = vec![fs::read(&texts).unwrap(), fs::read(&dump).unwrap()];
    World {
        _dir: dir,
        root,
        outside,
        logs,
        fixed,
        seeds,
        range_seeds,
        targets,
    }
}

/// A line-wise copy of `log` (each line with its newline, the last maybe without).
fn split_lines(log: &[u8]) -> Vec<Vec<u8>> {
    log.split_inclusive(|&b| b == b'\n')
        .map(<[u8]>::to_vec)
        .collect()
}

/// `log` with one mutation drawn from `rng`.
fn mutate(rng: &mut XorShift, log: &[u8], targets: &[String]) -> Vec<u8> {
    let mut bytes = log.to_vec();
    let at = |rng: &mut XorShift, len: usize| rng.below(len.max(1));
    match rng.below(12) {
        0 if !bytes.is_empty() => {
            let i = at(rng, bytes.len());
            bytes[i] ^= 1 << rng.below(8);
        }
        1 => {
            const INTERESTING: &[u8] = b"\n\"{}[]\\:,0 \xff\xc3\x80e-";
            let i = at(rng, bytes.len() + 1).min(bytes.len());
            let count = 1 + rng.below(4);
            for _ in 0..count {
                let byte = match rng.below(2) {
                    0 => *rng.pick(INTERESTING),
                    _ => rng.next() as u8,
                };
                bytes.insert(i, byte);
            }
        }
        2 if !bytes.is_empty() => {
            let i = at(rng, bytes.len());
            let end = (i + 1 + rng.below(16)).min(bytes.len());
            bytes.drain(i..end);
        }
        3 => bytes.truncate(at(rng, bytes.len())),
        4..=6 => {
            let mut lines = split_lines(&bytes);
            if lines.len() >= 2 {
                let (i, j) = (rng.below(lines.len()), rng.below(lines.len()));
                match rng.below(4) {
                    0 => lines.swap(i, j),
                    1 => {
                        let copy = lines[i].clone();
                        lines.insert(j, copy);
                    }
                    2 => {
                        lines.remove(i);
                    }
                    _ => lines.truncate(i + 1),
                }
            }
            bytes = lines.concat();
        }
        7 | 8 => {
            // A path edited: to a file outside the root, through a link, a FIFO, ...
            let text = String::from_utf8_lossy(&bytes).into_owned();
            let target = rng.pick(targets).clone();
            let quoted = serde_json::to_string(&target).unwrap();
            let edited = edit_strings(rng, &text, "\"path\":", &quoted);
            bytes = edited.into_bytes();
        }
        9 => {
            // A digit of a hash or a link edited.
            let hexes: Vec<usize> = find_all(&bytes, b"\":\"")
                .into_iter()
                .map(|i| i + 3)
                .filter(|&i| {
                    bytes
                        .get(i..i + 64)
                        .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit))
                })
                .collect();
            if !hexes.is_empty() {
                let i = *rng.pick(&hexes) + rng.below(64);
                bytes[i] = if bytes[i] == b'0' { b'1' } else { b'0' };
            }
        }
        _ => {
            // A number made absurd.
            const ABSURD: &[&str] = &[
                "18446744073709551615",
                "18446744073709551616",
                "99999999999999999999999999",
                "-1",
                "1e400",
                "0.5",
                "4294967296",
                "0",
            ];
            let text = String::from_utf8_lossy(&bytes).into_owned();
            let key = *rng.pick(&[
                "\"offset\":",
                "\"bytes_before\":",
                "\"bytes_after\":",
                "\"change_records\":",
                "\"schema\":",
                "\"files\":",
                "\"line\":",
                "\"part_offset\":",
                "\"double_encoded\":",
                "\"by_layers\":{\"1\":",
            ]);
            let value = *rng.pick(ABSURD);
            bytes = edit_strings(rng, &text, key, value).into_bytes();
        }
    }
    // Some logs are linked anew: their chain holds, and only the other checks stand.
    if rng.below(3) == 0
        && let Ok(text) = String::from_utf8(bytes.clone())
        && text.lines().all(|line| line.ends_with('}'))
    {
        bytes = rechain(&text).into_bytes();
    }
    bytes
}

fn find_all(haystack: &[u8], needle: &[u8]) -> Vec<usize> {
    haystack
        .windows(needle.len())
        .enumerate()
        .filter(|(_, window)| *window == needle)
        .map(|(i, _)| i)
        .collect()
}

/// `text` with the value after one occurrence of `key` (or after all of them) replaced by
/// `value`: a JSON string or number, up to the next `,` or `}` outside a string.
fn edit_strings(rng: &mut XorShift, text: &str, key: &str, value: &str) -> String {
    let starts: Vec<usize> = text
        .match_indices(key)
        .map(|(i, _)| i + key.len())
        .collect();
    if starts.is_empty() {
        return text.to_owned();
    }
    let chosen: Vec<usize> = match rng.below(2) {
        0 => vec![*rng.pick(&starts)],
        _ => starts,
    };
    let mut out = String::new();
    let mut from = 0;
    for start in chosen {
        let end = value_end(text, start);
        out.push_str(&text[from..start]);
        out.push_str(value);
        from = end;
    }
    out.push_str(&text[from..]);
    out
}

/// Where the JSON value starting at `start` ends (a string, or up to `,` or `}`).
fn value_end(text: &str, start: usize) -> usize {
    let bytes = text.as_bytes();
    if bytes.get(start) == Some(&b'"') {
        let mut i = start + 1;
        while i < bytes.len() {
            match bytes[i] {
                b'\\' => i += 2,
                b'"' => return i + 1,
                _ => i += 1,
            }
        }
        return bytes.len();
    }
    let rest = &text[start..];
    start + rest.find([',', '}', '\n']).unwrap_or(rest.len())
}

/// What the chain says of `log`, as a reader that knows nothing of undo would check it. For a
/// log whose header has schema 3: `Err` when a complete line is not JSON or does not carry the
/// hash of the line before it (the header none), `Ok(true)` when the log is whole and ends with
/// its `end` record. For a header of an older schema, which has no chain: `Err` when a line
/// carries a link all the same, `None` (nothing to say) otherwise.
fn chain_verdict(log: &[u8]) -> Option<Result<bool, ()>> {
    let lines = split_lines(log);
    let values: Vec<Option<Value>> = lines
        .iter()
        .map(|line| serde_json::from_slice(line).ok())
        .collect();
    let header = values.first().cloned().flatten();
    let chained = header
        .as_ref()
        .is_none_or(|h| h["type"] != "header" || h["schema"] == 3);
    if !chained {
        let linked = values.iter().flatten().any(|v| v.get("prev").is_some());
        return linked.then_some(Err(()));
    }
    let mut previous: Option<&[u8]> = None;
    let mut last_type = None;
    for (line, value) in lines.iter().zip(&values) {
        if line.last() != Some(&b'\n') {
            return Some(Ok(false)); // cut inside its last line
        }
        let Some(value) = value else {
            return Some(Err(()));
        };
        let prev = value.get("prev").and_then(Value::as_str).map(str::to_owned);
        let expected = previous.map(|p| format!("{:x}", Sha256::digest(p)));
        if prev != expected || (value.get("prev").is_some() && prev.is_none()) {
            return Some(Err(()));
        }
        last_type = value.get("type").and_then(Value::as_str).map(str::to_owned);
        previous = Some(line);
    }
    Some(Ok(last_type.as_deref() == Some("end")))
}

/// Runs `work` (what it does is `what`, for input `input`) in a thread, and fails if it panics
/// or outlasts the deadline.
fn within_deadline<T: Send + 'static>(
    input: u64,
    what: &str,
    work: impl FnOnce() -> T + Send + 'static,
) -> T {
    let (send, receive) = mpsc::channel();
    let worker = std::thread::spawn(move || {
        let _ = send.send(work());
    });
    match receive.recv_timeout(DEADLINE) {
        Ok(result) => {
            worker.join().unwrap();
            result
        }
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("input {input}: {what} did not finish"),
        Err(mpsc::RecvTimeoutError::Disconnected) => panic!("input {input}: {what} panicked"),
    }
}

/// Reads `log` with undo (for `real`, or as a dry run) within the deadline.
fn undo_within_deadline(
    log: PathBuf,
    roots: Roots,
    real: bool,
    input: u64,
) -> Result<UndoReport, audit::AuditError> {
    within_deadline(input, "undo", move || match real {
        true => audit::undo(&log, &roots),
        false => audit::check_undo(&log, &roots),
    })
}

/// Checks that nothing outside the root changed and that the root's link, linked directory and
/// FIFO are still what they were; puts back the fixed state of the files a log restored.
fn check_world(world: &World, input: u64, log: &[u8]) {
    use std::os::unix::fs::FileTypeExt;
    for (path, bytes) in &world.fixed {
        let now = fs::read(path).unwrap();
        if path.starts_with(&world.outside) {
            assert!(
                now == *bytes,
                "input {input} wrote {} outside the root: {}",
                path.display(),
                String::from_utf8_lossy(log)
            );
        } else if now != *bytes {
            fs::write(path, bytes).unwrap();
        }
    }
    assert_eq!(
        fs::read_dir(&world.outside).unwrap().count(),
        4,
        "input {input}"
    );
    let kind = |name: &str| {
        fs::symlink_metadata(world.root.join(name))
            .unwrap()
            .file_type()
    };
    assert!(kind("link.txt").is_symlink(), "input {input}");
    assert!(kind("door").is_symlink(), "input {input}");
    assert!(kind("pipe").is_fifo(), "input {input}");
    // The fixed files, the file of ranges and its parts' directory, the link, the linked
    // directory and the FIFO; no temporary file left.
    assert_eq!(
        fs::read_dir(&world.root).unwrap().count(),
        8,
        "input {input}"
    );
    assert_eq!(
        fs::read_dir(world.root.join("parts")).unwrap().count(),
        2,
        "input {input}"
    );
}

#[test]
fn any_mutated_log_is_read_to_an_end_and_never_writes_outside_its_root() {
    let world = world();
    let roots = Roots::new([&world.root]).unwrap();
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
    let (mut refused, mut partial, mut accepted) = (0u64, 0u64, 0u64);
    for input in 0..INPUTS {
        let seed = rng.pick(&world.seeds).clone();
        let mut log = seed;
        for _ in 0..1 + rng.below(3) {
            log = mutate(&mut rng, &log, &world.targets);
        }
        let path = world.logs.join("mutated.jsonl");
        fs::write(&path, &log).unwrap();
        let real = input % REAL_EVERY == 0;
        let result = undo_within_deadline(path, roots.clone(), real, input);
        match (chain_verdict(&log), &result) {
            (Some(Err(())), Ok(report)) => panic!(
                "input {input}: a log whose chain breaks was accepted: {report:?}\n{}",
                String::from_utf8_lossy(&log)
            ),
            (Some(Ok(false)), Ok(report)) => assert!(
                !report.all_restored(),
                "input {input}: a log without its end said all is restored\n{}",
                String::from_utf8_lossy(&log)
            ),
            _ => {}
        }
        match &result {
            Err(_) => refused += 1,
            Ok(report) if !report.all_restored() => partial += 1,
            Ok(_) => accepted += 1,
        }
        check_world(&world, input, &log);
    }
    eprintln!(
        "{refused} logs refused, {partial} with a file refused or the end missing, {accepted} accepted"
    );
    // The mutations reach every outcome: refused logs, files refused, logs accepted.
    assert!(refused > INPUTS / 4, "{refused} refused");
    assert!(
        partial > 0 && accepted > 0,
        "{partial} partial, {accepted} accepted"
    );
}

#[test]
fn a_huge_line_is_refused_in_bounded_memory_and_time() {
    let world = world();
    let roots = Roots::new([&world.root]).unwrap();
    let path = world.logs.join("huge.jsonl");
    let mut log = world.seeds[0].clone();
    let second = log.iter().position(|&b| b == b'\n').unwrap() + 1;
    let huge = vec![b' '; (audit::undo::MAX_LINE + 10) as usize];
    log.splice(second..second, huge);
    fs::write(&path, &log).unwrap();
    let error = undo_within_deadline(path, roots, false, 0).unwrap_err();
    assert!(error.to_string().contains("huge.jsonl:2: "), "{error}");
    assert!(error.to_string().contains("longer than"), "{error}");
    check_world(&world, 0, b"");
}

/// How many mutated pairs of range logs are combined.
const RANGE_INPUTS: u64 = 1000;

#[test]
fn any_mutated_range_log_is_combined_into_a_log_undo_takes_back_or_refused() {
    let world = world();
    let roots = Roots::new([&world.root]).unwrap();
    let mut rng = XorShift(0x2545_f491_4f6c_dd1d);
    let (mut refused, mut file_refused, mut joined) = (0u64, 0u64, 0u64);
    for input in 0..RANGE_INPUTS {
        let mut logs = world.range_seeds.to_vec();
        // One log or both mutated; sometimes one given twice, or left out.
        let which = rng.below(3);
        for (at, log) in logs.iter_mut().enumerate() {
            if which == 2 || which == at {
                for _ in 0..1 + rng.below(3) {
                    *log = mutate(&mut rng, log, &world.targets);
                }
            }
        }
        match rng.below(8) {
            0 => logs.push(logs[0].clone()),
            1 => {
                logs.remove(0);
            }
            2 => logs.swap(0, 1),
            _ => {}
        }
        let paths: Vec<PathBuf> = (0..logs.len())
            .map(|at| world.logs.join(format!("m{at}.jsonl")))
            .collect();
        for (path, log) in paths.iter().zip(&logs) {
            fs::write(path, log).unwrap();
        }
        let out = world.logs.join("combined.jsonl");
        let _ = fs::remove_file(&out);
        let before: Vec<(PathBuf, Vec<u8>)> = world
            .fixed
            .iter()
            .filter(|(path, _)| path.starts_with(&world.root))
            .map(|(path, _)| (path.clone(), fs::read(path).unwrap()))
            .collect();
        let (combined, roots_now) = (out.clone(), roots.clone());
        let result = within_deadline(input, "combine", move || {
            audit::combine(&paths, &combined, &roots_now, ["test".to_owned()])
        });
        let whole = logs.iter().all(|log| chain_verdict(log) == Some(Ok(true)));
        match &result {
            Ok(report) if !whole => panic!(
                "input {input}: a log whose chain breaks or ends early was combined: {report:?}"
            ),
            Err(_) => refused += 1,
            Ok(report) => {
                for file in &report.files {
                    match &file.result {
                        Ok(audit::Combined::Joined(_)) => joined += 1,
                        Ok(_) => {}
                        Err(_) => file_refused += 1,
                    }
                }
                if report
                    .files
                    .iter()
                    .any(|file| matches!(file.result, Ok(audit::Combined::Joined(_))))
                {
                    let undone = audit::undo(&out, &roots).unwrap();
                    assert!(undone.all_restored(), "input {input}: {undone:?}");
                    for (path, bytes) in &before {
                        assert!(
                            fs::read(path).unwrap() == *bytes,
                            "input {input}: undo of the combined log did not restore {}",
                            path.display()
                        );
                    }
                }
            }
        }
        check_world(&world, input, &logs.concat());
    }
    eprintln!("{refused} sets refused, {file_refused} files refused, {joined} joined");
    assert!(refused > RANGE_INPUTS / 4, "{refused} refused");
    assert!(
        file_refused > 0 && joined > 0,
        "{file_refused} files refused, {joined} joined"
    );
}
