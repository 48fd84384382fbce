//! Files replaced by `fix` stay the same files: owner, group, mode and extended attributes
//! (ACLs) kept, symbolic links followed, hard links refused unless broken; backups never
//! overwrite and are never read back, nor is an output directory inside the input tree; and
//! no temporary file outlives its run, even one killed at any moment.
#![cfg(target_os = "linux")]

mod binary;

use binary::*;

use std::ffi::OsString;
use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::Instant;

const DAMAGED: &[u8] = "Le cafÃ© de la rue MontrÃ©al, une crÃ¨me brÃ»lÃ©e.\n".as_bytes();
const REPAIRED: &[u8] = "Le café de la rue Montréal, une crème brûlée.\n".as_bytes();

fn write(path: &Path, content: &[u8]) {
    fs::write(path, content).expect("write");
}

fn read(path: &Path) -> Vec<u8> {
    fs::read(path).expect("read")
}

fn chmod(path: &Path, mode: u32) {
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).expect("chmod");
}

/// A temporary directory that `nobody` can work in.
fn open_tempdir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    chmod(dir.path(), 0o777);
    dir
}

/// Owner, group, mode and extended attributes (names and values) of a file.
fn identity(path: &Path) -> (u32, u32, u32, Vec<(OsString, Vec<u8>)>) {
    let metadata = fs::metadata(path).expect("metadata");
    let mut names = vec![0u8; 4096];
    let len = rustix::fs::listxattr(path, &mut names).expect("listxattr");
    let mut xattrs: Vec<(OsString, Vec<u8>)> = names[..len]
        .split(|&b| b == 0)
        .filter(|name| !name.is_empty() && !name.starts_with(b"security."))
        .map(|name| {
            let name = OsString::from(std::str::from_utf8(name).expect("ASCII name"));
            let mut value = vec![0u8; 4096];
            let len = rustix::fs::getxattr(path, name.as_os_str(), &mut value).expect("get");
            value.truncate(len);
            (name, value)
        })
        .collect();
    xattrs.sort();
    (
        metadata.uid(),
        metadata.gid(),
        metadata.mode() & 0o7777,
        xattrs,
    )
}

/// The temporary files of ours in `dir`.
fn temporaries(dir: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = fs::read_dir(dir)
        .expect("list")
        .map(|entry| entry.expect("entry").path())
        .filter(|path| {
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            name.starts_with(".undouble-") && name.ends_with(".tmp")
        })
        .collect();
    found.sort();
    found
}

/// An access ACL, as `system.posix_acl_access` holds it: the owner may read and write, user
/// `nobody` and the group may read, others nothing.
fn posix_acl() -> Vec<u8> {
    let entry = |tag: u16, perm: u16, id: u32| {
        let mut bytes = tag.to_le_bytes().to_vec();
        bytes.extend(perm.to_le_bytes());
        bytes.extend(id.to_le_bytes());
        bytes
    };
    let mut acl = 2u32.to_le_bytes().to_vec();
    acl.extend(entry(0x01, 6, u32::MAX)); // owner
    acl.extend(entry(0x02, 4, 65534)); // user nobody
    acl.extend(entry(0x04, 4, u32::MAX)); // group
    acl.extend(entry(0x10, 4, u32::MAX)); // mask
    acl.extend(entry(0x20, 0, u32::MAX)); // others
    acl
}

#[test]
fn in_place_keeps_owner_group_mode_and_extended_attributes() {
    if !is_root() {
        eprintln!("skipped: giving a file to another user needs root");
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("owned.txt");
    write(&file, DAMAGED);
    std::os::unix::fs::chown(&file, Some(65534), Some(65534)).expect("chown");
    chmod(&file, 0o640);
    let flags = rustix::fs::XattrFlags::empty();
    rustix::fs::setxattr(&file, "user.origin", b"kept", flags).expect("user xattr");
    rustix::fs::setxattr(&file, "system.posix_acl_access", &posix_acl(), flags).expect("ACL");
    let before = identity(&file);
    assert!(
        before
            .3
            .iter()
            .any(|(name, _)| name == "system.posix_acl_access")
    );

    let output = run(&["fix", "-q", "--in-place", path_str(&file)]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(read(&file), REPAIRED);
    assert_eq!(
        identity(&file),
        before,
        "owner, group, mode, xattrs and ACL kept"
    );
}

#[test]
fn an_owner_that_cannot_be_kept_is_refused_and_one_that_matches_needs_nothing() {
    if !is_root() {
        eprintln!("skipped: running as another user needs root");
        return;
    }
    let dir = open_tempdir();
    let roots = dir.path().join("roots.txt");
    write(&roots, DAMAGED);
    chmod(&roots, 0o666);
    let output = run_unprivileged(&["fix", "-q", "--in-place", path_str(&roots)]);
    let message = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{message}");
    assert!(
        message.contains("roots.txt") && message.contains("cannot give"),
        "{message}"
    );
    assert_eq!(read(&roots), DAMAGED, "not replaced");
    assert_eq!(fs::metadata(&roots).expect("metadata").uid(), 0);
    assert!(temporaries(dir.path()).is_empty());

    let nobodys = dir.path().join("nobodys.txt");
    write(&nobodys, DAMAGED);
    std::os::unix::fs::chown(&nobodys, Some(65534), Some(65534)).expect("chown");
    let output = run_unprivileged(&["fix", "-q", "--in-place", path_str(&nobodys)]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(read(&nobodys), REPAIRED);
    let metadata = fs::metadata(&nobodys).expect("metadata");
    assert_eq!((metadata.uid(), metadata.gid()), (65534, 65534));
}

#[test]
fn a_symbolic_link_is_followed_and_stays_a_link() {
    let dir = tempfile::tempdir().expect("tempdir");
    let real_dir = dir.path().join("real");
    let links = dir.path().join("links");
    fs::create_dir(&real_dir).expect("mkdir");
    fs::create_dir(&links).expect("mkdir");
    let real = real_dir.join("data.txt");
    write(&real, DAMAGED);
    let link = links.join("link.txt");
    std::os::unix::fs::symlink("../real/data.txt", &link).expect("symlink");

    let output = run(&[
        "fix",
        "-q",
        "--in-place",
        "--backup",
        ".orig",
        path_str(&link),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let metadata = fs::symlink_metadata(&link).expect("lstat");
    assert!(metadata.file_type().is_symlink(), "the link stays a link");
    assert_eq!(
        fs::read_link(&link).expect("readlink"),
        Path::new("../real/data.txt")
    );
    assert_eq!(read(&real), REPAIRED, "the file it points to is repaired");
    assert_eq!(
        read(&real_dir.join("data.txt.orig")),
        DAMAGED,
        "backup beside the file"
    );
    assert_eq!(fs::read_dir(&links).expect("list").count(), 1);
}

#[test]
fn a_file_with_other_hard_links_is_refused_unless_they_are_broken() {
    let dir = tempfile::tempdir().expect("tempdir");
    let name = dir.path().join("name.txt");
    let other = dir.path().join("other.txt");
    write(&name, DAMAGED);
    fs::hard_link(&name, &other).expect("link");

    let output = run(&["fix", "-q", "--in-place", path_str(&name)]);
    let message = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{message}");
    assert!(
        message.contains("name.txt") && message.contains("hard link"),
        "{message}"
    );
    assert!(message.contains("--break-hard-links"), "{message}");
    assert_eq!(read(&name), DAMAGED);
    assert_eq!(fs::metadata(&name).expect("metadata").nlink(), 2);

    let output = run(&[
        "fix",
        "-q",
        "--in-place",
        "--break-hard-links",
        path_str(&name),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(read(&name), REPAIRED, "the name given gets the new content");
    assert_eq!(read(&other), DAMAGED, "the other name keeps the old");
    assert!(temporaries(dir.path()).is_empty());

    // An audited fix replaces files the same way, and its log takes the fix back.
    let audited = dir.path().join("audited.txt");
    let linked = dir.path().join("linked.txt");
    let log = dir.path().join("fix.log");
    write(&audited, DAMAGED);
    fs::hard_link(&audited, &linked).expect("link");
    let output = run(&[
        "fix",
        "-q",
        "--in-place",
        "--break-hard-links",
        "--audit",
        path_str(&log),
        path_str(&audited),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(read(&audited), REPAIRED);
    assert_eq!(read(&linked), DAMAGED);
    let root = path_str(dir.path());
    let output = run(&["undo", "--root", root, path_str(&log)]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(read(&audited), DAMAGED);
}

#[test]
fn an_empty_backup_suffix_is_a_usage_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("file.txt");
    write(&file, DAMAGED);
    let output = run(&["fix", "-q", "--in-place", "--backup", "", path_str(&file)]);
    let message = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{message}");
    assert!(message.contains("backup"), "{message}");
    assert_eq!(read(&file), DAMAGED);
    assert_eq!(fs::read_dir(dir.path()).expect("list").count(), 1);
}

#[test]
fn a_backup_never_overwrites_and_is_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().expect("tempdir");
    let tree = dir.path().join("tree");
    fs::create_dir(&tree).expect("mkdir");
    let a = tree.join("a");
    let a_orig = tree.join("a.orig");
    write(&a, DAMAGED);
    write(&a_orig, b"the only copy of something else\n");
    let output = run(&[
        "fix",
        "-q",
        "--in-place",
        "--backup",
        ".orig",
        path_str(&tree),
    ]);
    let message = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{message}");
    assert!(
        message.contains("a.orig") && message.contains("exists"),
        "{message}"
    );
    assert_eq!(read(&a), DAMAGED);
    assert_eq!(read(&a_orig), b"the only copy of something else\n");

    // The refusal of the second file's backup comes before the first file is touched.
    let first = dir.path().join("first.txt");
    let second = dir.path().join("second.txt");
    write(&first, DAMAGED);
    write(&second, DAMAGED);
    write(&dir.path().join("second.txt.bak"), b"older backup\n");
    let args = ["fix", "-q", "--in-place", "--backup", ".bak"];
    let output = run(&[&args[..], &[path_str(&first), path_str(&second)]].concat());
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert_eq!(read(&first), DAMAGED, "nothing was written");
    assert!(!dir.path().join("first.txt.bak").exists());
    assert_eq!(read(&dir.path().join("second.txt.bak")), b"older backup\n");

    // A backup path that is another input of the run.
    let x = dir.path().join("x");
    let x_bak = dir.path().join("x.bak");
    write(&x, DAMAGED);
    write(&x_bak, DAMAGED);
    let output = run(&[&args[..], &[path_str(&x), path_str(&x_bak)]].concat());
    let message = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{message}");
    assert!(message.contains("is an input"), "{message}");
    assert_eq!(
        (read(&x), read(&x_bak)),
        (DAMAGED.to_vec(), DAMAGED.to_vec())
    );
}

#[test]
fn an_output_directory_inside_the_tree_is_not_walked() {
    let dir = tempfile::tempdir().expect("tempdir");
    let tree = dir.path().join("tree");
    fs::create_dir(&tree).expect("mkdir");
    write(&tree.join("x.txt"), DAMAGED);
    let out = tree.join("out");
    for _ in 0..2 {
        let output = run(&["fix", "-q", "--output-dir", path_str(&out), path_str(&tree)]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    }
    assert_eq!(read(&out.join("x.txt")), REPAIRED);
    assert!(
        !out.join("out").exists(),
        "the output directory is not walked"
    );
}

/// `a.orig` beside `a` is the backup of `a` when the run keeps backups as `.orig`; `c.orig`
/// alone is a file like another.
#[test]
fn a_backup_beside_its_file_is_not_walked() {
    let dir = tempfile::tempdir().expect("tempdir");
    let backups = dir.path().join("backups");
    fs::create_dir(&backups).expect("mkdir");
    for name in ["a", "a.orig", "c.orig"] {
        write(&backups.join(name), DAMAGED);
    }
    let output = run(&[
        "fix",
        "--dry-run",
        "--in-place",
        "--backup",
        ".orig",
        path_str(&backups),
    ]);
    let message = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{message}");
    assert!(message.contains("backups/a:"), "{message}");
    assert!(message.contains("backups/c.orig:"), "{message}");
    assert!(!message.contains("backups/a.orig"), "{message}");
}

#[test]
fn a_run_removes_the_temporary_files_of_dead_runs_only() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut child = std::process::Command::new("true").spawn().expect("spawn");
    let dead = child.id();
    child.wait().expect("wait");
    let stale = dir.path().join(format!(".undouble-{dead}-abcdef.tmp"));
    let live = dir
        .path()
        .join(format!(".undouble-{}-abcdef.tmp", std::process::id()));
    let unknown = dir.path().join(".undouble-abcdef.tmp");
    for file in [&stale, &live, &unknown] {
        write(file, b"partial");
    }
    let file = dir.path().join("file.txt");
    write(&file, DAMAGED);
    let output = run(&["fix", "-q", "--in-place", path_str(&file)]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(!stale.exists(), "the file of a run that is gone is removed");
    assert!(live.exists(), "a running process's file is kept");
    assert!(
        unknown.exists(),
        "a name without a process id is not ours to judge"
    );
}

/// `fix --in-place` and `fix -o`, killed with SIGKILL at moments spread over a whole run: the
/// target is each time exactly as it was or completely repaired; a temporary file seen right
/// after the kill (only in the instant between naming the complete file and renaming it) holds
/// the complete repair; and the next run in the directory leaves none.
#[test]
fn a_killed_run_leaves_its_target_whole_and_nothing_behind() {
    let dir = tempfile::tempdir().expect("tempdir");
    let source = dir.path().join("source.txt");
    let line = [&REPAIRED.repeat(9)[..], DAMAGED].concat();
    let original = line.repeat((16 << 20) / line.len());
    write(&source, &original);
    let expected = dir.path().join("expected.txt");
    let started = Instant::now();
    let output = run(&["fix", "-q", path_str(&source), "-o", path_str(&expected)]);
    let full_run = started.elapsed();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let repaired = read(&expected);
    assert!(repaired != original);

    let work = dir.path().join("work");
    fs::create_dir(&work).expect("mkdir");
    let target = work.join("target.txt");
    let small = work.join("small.txt");
    let previous = b"the previous output\n".to_vec();
    let (mut whole, mut named_at_kill) = ([0usize; 2], 0);
    for (in_place, kills) in [(true, 20u32), (false, 8)] {
        for kill in 0..kills {
            let mut command = undouble();
            command.arg("fix").arg("-q");
            match in_place {
                true => {
                    write(&target, &original);
                    command.arg("--in-place").arg(&target);
                }
                false => {
                    write(&target, &previous);
                    command.arg(&source).arg("-o").arg(&target);
                }
            }
            let mut child = command.spawn().expect("spawn");
            std::thread::sleep(full_run * 11 / 10 * kill / kills);
            child.kill().expect("kill");
            child.wait().expect("wait");

            let before = if in_place { &original } else { &previous };
            let now = read(&target);
            assert!(
                now == *before || now == repaired,
                "kill {kill} (in place: {in_place}): the target is neither as it was nor repaired"
            );
            whole[usize::from(now == repaired)] += 1;
            for temporary in temporaries(&work) {
                assert!(
                    read(&temporary) == repaired,
                    "kill {kill}: a temporary file right after the kill is not the complete repair"
                );
                named_at_kill += 1;
            }
            write(&small, DAMAGED);
            let output = run(&["fix", "-q", "--in-place", path_str(&small)]);
            assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
            assert_eq!(
                temporaries(&work),
                Vec::<PathBuf>::new(),
                "after the next run"
            );
        }
    }
    eprintln!(
        "full run {full_run:?}: {} kills left the target as it was, {} repaired; {named_at_kill} \
         left a named temporary file",
        whole[0], whole[1]
    );
    assert!(whole[0] > 0, "some kills came before the rename");
}

/// `undo` replaces files the same way: the restored file keeps its owner, group and mode.
#[test]
fn an_audited_fix_and_its_undo_keep_the_owner() {
    if !is_root() {
        eprintln!("skipped: giving a file to another user needs root");
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("owned.txt");
    let log = dir.path().join("audit.jsonl");
    write(&file, DAMAGED);
    std::os::unix::fs::chown(&file, Some(65534), Some(65534)).expect("chown");
    chmod(&file, 0o604);
    let before = identity(&file);
    let args = [
        "fix",
        "-q",
        "--in-place",
        "--audit",
        path_str(&log),
        path_str(&file),
    ];
    let output = run(&args);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        (read(&file), identity(&file)),
        (REPAIRED.to_vec(), before.clone())
    );
    let root = file.parent().expect("a directory");
    let output = run(&["undo", "--root", path_str(root), path_str(&log)]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!((read(&file), identity(&file)), (DAMAGED.to_vec(), before));
}
