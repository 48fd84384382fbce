//! The directory-swap race: a local user who may write inside a root swaps a directory on the
//! way to the file `undo` restores for a symbolic link to a directory outside the root, after
//! the last check and before the replacement takes the file's place. The steps of a restore are
//! taken one at a time through the library (find the target, open it, write its replacement,
//! check it again, commit), with the swap between two of them, so the race is lost every time.

#![cfg(unix)]

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use undouble::audit::{LogLine, Roots};

/// What the file under the root holds, and what outside it holds: neither may be written but
/// the first.
const CURRENT: &[u8] = b"what the fix left\n";
const OUTSIDE: &[u8] = b"a file outside the root\n";
const RESTORED: &[u8] = b"what undo puts back\n";

/// `root/sub/file.txt`, and `outside/file.txt` beside the root.
struct Scene {
    _dir: tempfile::TempDir,
    root: PathBuf,
    outside: PathBuf,
}

fn scene() -> Scene {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let outside = dir.path().join("outside");
    fs::create_dir_all(root.join("sub")).unwrap();
    fs::create_dir(&outside).unwrap();
    fs::write(root.join("sub/file.txt"), CURRENT).unwrap();
    fs::write(outside.join("file.txt"), OUTSIDE).unwrap();
    Scene {
        _dir: dir,
        root,
        outside,
    }
}

/// Moves `root/sub` aside to `root/moved` and puts a link to `outside` in its place.
fn swap(scene: &Scene) {
    fs::rename(scene.root.join("sub"), scene.root.join("moved")).unwrap();
    std::os::unix::fs::symlink(&scene.outside, scene.root.join("sub")).unwrap();
}

fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_directory_swapped_for_a_link_after_the_last_check_does_not_lead_the_write_outside() {
    let scene = scene();
    let roots = Roots::new([&scene.root]).unwrap();
    let logged = scene.root.join("sub/file.txt");
    let at = LogLine {
        log: scene.root.join("audit.jsonl"),
        line: 3,
    };
    let target = roots.target(&logged, &at).unwrap();
    let (_file, metadata) = target.open(&logged, &at).unwrap();
    let replacement = target.replacement().unwrap();
    replacement.file().write_all(RESTORED).unwrap();
    target.recheck(&logged, &at).unwrap();
    swap(&scene);
    replacement.commit(Some(metadata.permissions())).unwrap();

    assert_eq!(fs::read(scene.outside.join("file.txt")).unwrap(), OUTSIDE);
    assert_eq!(names_in(&scene.outside), ["file.txt"]);
    assert_eq!(
        fs::read(scene.root.join("moved/file.txt")).unwrap(),
        RESTORED
    );
    assert_eq!(names_in(&scene.root.join("moved")), ["file.txt"]);
}

#[test]
fn a_directory_swapped_for_a_link_before_the_file_is_opened_changes_nothing_undo_reads() {
    let scene = scene();
    let roots = Roots::new([&scene.root]).unwrap();
    let logged = scene.root.join("sub/file.txt");
    let at = LogLine {
        log: scene.root.join("audit.jsonl"),
        line: 3,
    };
    let target = roots.target(&logged, &at).unwrap();
    swap(&scene);
    let (mut file, _) = target.open(&logged, &at).unwrap();
    let mut read = Vec::new();
    std::io::Read::read_to_end(&mut file, &mut read).unwrap();
    assert_eq!(read, CURRENT);
    let replacement = target.replacement().unwrap();
    replacement.file().write_all(RESTORED).unwrap();
    target.recheck(&logged, &at).unwrap();
    replacement.commit(None).unwrap();

    assert_eq!(fs::read(scene.outside.join("file.txt")).unwrap(), OUTSIDE);
    assert_eq!(
        fs::read(scene.root.join("moved/file.txt")).unwrap(),
        RESTORED
    );
}

#[test]
fn the_file_swapped_for_another_before_the_last_check_is_refused() {
    let scene = scene();
    let roots = Roots::new([&scene.root]).unwrap();
    let logged = scene.root.join("sub/file.txt");
    let at = LogLine {
        log: scene.root.join("audit.jsonl"),
        line: 3,
    };
    let target = roots.target(&logged, &at).unwrap();
    let replacement = target.replacement().unwrap();
    replacement.file().write_all(RESTORED).unwrap();
    let other = scene.root.join("sub/other.txt");
    fs::write(&other, CURRENT).unwrap();
    fs::rename(&other, &logged).unwrap();
    let refusal = target.recheck(&logged, &at).unwrap_err().to_string();
    assert!(refusal.contains("replaced by another file"), "{refusal}");
    drop(replacement);
    assert_eq!(names_in(&scene.root.join("sub")), ["file.txt"]);
    assert_eq!(fs::read(&logged).unwrap(), CURRENT);
}

#[test]
fn the_walk_names_the_link_or_the_file_that_stops_it() {
    let scene = scene();
    let roots = Roots::new([&scene.root]).unwrap();
    let at = LogLine {
        log: scene.root.join("audit.jsonl"),
        line: 3,
    };
    std::os::unix::fs::symlink(&scene.outside, scene.root.join("door")).unwrap();
    let through_link = scene.root.join("door/file.txt");
    let refusal = roots.target(&through_link, &at).unwrap_err().to_string();
    assert!(refusal.contains("door is a symbolic link"), "{refusal}");

    let through_file = scene.root.join("sub/file.txt/more");
    let refusal = roots.target(&through_file, &at).unwrap_err().to_string();
    assert!(refusal.contains("file.txt is not a directory"), "{refusal}");

    let link = scene.root.join("sub/link.txt");
    std::os::unix::fs::symlink(scene.outside.join("file.txt"), &link).unwrap();
    let refusal = roots.target(&link, &at).unwrap_err().to_string();
    assert!(refusal.contains("link.txt is a symbolic link"), "{refusal}");
}
