//! Replacing a file atomically, as the same file: the new content goes to a temporary file in
//! the target's directory, which is given the identity of the file it replaces (owner, group,
//! mode, extended attributes, which hold POSIX ACLs), synced, and renamed over the target in
//! one step; then the directory is synced so that the rename itself survives a crash. Until
//! the rename the target is untouched. `fix` (in place, or to a file) and `undo` replace files
//! this way.
//!
//! No temporary file outlives its run. On Linux the new content is written to an `O_TMPFILE`
//! file, which has no name while it is written: a process killed then leaves nothing behind.
//! It is given a name only once complete and synced, just before the rename. Where the file
//! system refuses `O_TMPFILE`, the temporary file is named from the start. Either name is
//! `.undouble-<pid>-<random>.tmp`, and a run that replaces a file removes those of the
//! directory whose process no longer runs (a run killed in the instant between the two steps,
//! or during a named write); never those of a live run.

use std::collections::HashSet;
use std::ffi::OsString;
use std::fs::{self, File, Permissions};
use std::io;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use tempfile::NamedTempFile;

/// What makes a file the same file to its users, besides its content: its owner and group,
/// its mode, and its extended attributes (on Linux; POSIX ACLs are `system.posix_acl_access`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity {
    uid: u32,
    gid: u32,
    mode: u32,
    xattrs: Vec<(OsString, Vec<u8>)>,
}

impl Identity {
    /// The identity of the file at `path` (a symbolic link is followed).
    pub fn of(path: &Path) -> io::Result<Identity> {
        let metadata = fs::metadata(path)?;
        Ok(Identity {
            uid: metadata.uid(),
            gid: metadata.gid(),
            mode: metadata.mode() & 0o7777,
            xattrs: xattrs::read(path)?,
        })
    }
}

/// A new content for `target`, being written.
pub struct Replacement {
    temp: Temp,
    target: PathBuf,
    /// The identity of the target when the replacement started, when there was one.
    replaced: Option<Identity>,
}

/// The temporary file a replacement writes to.
enum Temp {
    /// An `O_TMPFILE` file in `dir`: it has no name until the commit.
    #[cfg(target_os = "linux")]
    Unnamed { file: File, dir: PathBuf },
    /// A file named `.undouble-<pid>-<random>.tmp` in the target's directory, removed on drop.
    Named(NamedTempFile),
}

impl Replacement {
    /// Starts a replacement of `target` with an empty temporary file in its directory, without
    /// a name where the file system allows. The identity of `target`, if it exists, is taken
    /// now, and its owner and group are given to the temporary file at once: a file whose
    /// owner this user cannot give is refused before anything is written.
    pub fn beside(target: &Path) -> io::Result<Replacement> {
        Replacement::start(target, true)
    }

    /// Like [`Replacement::beside`], with a temporary file named from the start, as where the
    /// file system refuses unnamed ones.
    pub fn beside_named(target: &Path) -> io::Result<Replacement> {
        Replacement::start(target, false)
    }

    fn start(target: &Path, unnamed: bool) -> io::Result<Replacement> {
        let dir = directory_of(target);
        remove_stale_temporaries(dir);
        let replaced = match Identity::of(target) {
            Ok(identity) => Some(identity),
            Err(error) if error.kind() == io::ErrorKind::NotFound => None,
            Err(error) => return Err(error),
        };
        let temp = match unnamed {
            true => Temp::unnamed(dir).map_or_else(|| Temp::named(dir), Ok)?,
            false => Temp::named(dir)?,
        };
        let replacement = Replacement {
            temp,
            target: target.to_path_buf(),
            replaced,
        };
        if let Some(identity) = &replacement.replaced {
            keep_owner(replacement.file(), identity, target)?;
        }
        Ok(replacement)
    }

    /// The temporary file, to write the new content to.
    pub fn file(&self) -> &File {
        match &self.temp {
            #[cfg(target_os = "linux")]
            Temp::Unnamed { file, .. } => file,
            Temp::Named(temp) => temp.as_file(),
        }
    }

    /// Puts the written content in place of the target, with the identity the target had when
    /// the replacement started; a new file gets `new_file_permissions` if given (or else the
    /// temporary file's, readable by its owner only).
    pub fn commit(self, new_file_permissions: Option<Permissions>) -> io::Result<()> {
        let file = self.file();
        match &self.replaced {
            Some(identity) => {
                xattrs::give(file, &identity.xattrs)?;
                // After the owner (a change of owner drops the set-user-ID bit) and after the
                // attributes (an ACL sets the group bits).
                file.set_permissions(Permissions::from_mode(identity.mode))?;
            }
            None => {
                if let Some(permissions) = new_file_permissions {
                    file.set_permissions(permissions)?;
                }
            }
        }
        file.sync_all()?;
        let dir = match self.temp {
            #[cfg(target_os = "linux")]
            Temp::Unnamed { file, dir } => {
                let named = unnamed::link(&file, &dir)?;
                if let Err(error) = fs::rename(&named, &self.target) {
                    let _ = fs::remove_file(&named);
                    return Err(error);
                }
                dir
            }
            Temp::Named(temp) => {
                temp.persist(&self.target).map_err(|e| e.error)?;
                directory_of(&self.target).to_path_buf()
            }
        };
        File::open(dir)?.sync_all()
    }
}

impl Temp {
    /// An unnamed temporary file in `dir`, or `None` where there cannot be one.
    #[cfg(target_os = "linux")]
    fn unnamed(dir: &Path) -> Option<Temp> {
        let file = unnamed::create(dir)?;
        Some(Temp::Unnamed {
            file,
            dir: dir.to_path_buf(),
        })
    }

    #[cfg(not(target_os = "linux"))]
    fn unnamed(_dir: &Path) -> Option<Temp> {
        None
    }

    fn named(dir: &Path) -> io::Result<Temp> {
        let temp = tempfile::Builder::new()
            .prefix(&temporary_prefix())
            .suffix(TEMPORARY_SUFFIX)
            .tempfile_in(dir)?;
        Ok(Temp::Named(temp))
    }
}

const TEMPORARY_PREFIX: &str = ".undouble-";
const TEMPORARY_SUFFIX: &str = ".tmp";

/// `.undouble-<pid>-`: the start of the name of every temporary file of this process.
fn temporary_prefix() -> String {
    format!("{TEMPORARY_PREFIX}{}-", std::process::id())
}

/// Gives `file` the owner and group of `identity`, or refuses: a replaced file that changed
/// owner could no longer be used by it. A user who is not root can only give a file itself
/// and its own groups: where that is what the file has already, nothing needs changing.
fn keep_owner(file: &File, identity: &Identity, target: &Path) -> io::Result<()> {
    let now = file.metadata()?;
    if (now.uid(), now.gid()) == (identity.uid, identity.gid) {
        return Ok(());
    }
    std::os::unix::fs::fchown(file, Some(identity.uid), Some(identity.gid)).map_err(|error| {
        io::Error::new(
            error.kind(),
            format!(
                "{} belongs to user {} and group {}, which this user cannot give to its \
                 replacement ({error}): not replaced, so that its owner keeps it; run as its \
                 owner or as root",
                target.display(),
                identity.uid,
                identity.gid
            ),
        )
    })
}

/// The directory a file is in (`.` for a bare file name).
fn directory_of(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

/// Removes the temporary files of runs that ended without removing theirs (killed) from `dir`,
/// once per directory and process: those named `.undouble-<pid>-*.tmp` whose process is gone.
/// Where processes cannot be looked up (no `/proc`), nothing is removed: a live run's file
/// must never be.
fn remove_stale_temporaries(dir: &Path) {
    static CLEANED: Mutex<Option<HashSet<PathBuf>>> = Mutex::new(None);
    let proc = Path::new("/proc");
    if !proc.join("self").exists() {
        return;
    }
    let key = fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    if let Ok(mut cleaned) = CLEANED.lock()
        && !cleaned.get_or_insert_with(HashSet::new).insert(key)
    {
        return;
    }
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let own = std::process::id();
    for entry in entries.flatten() {
        let name = entry.file_name();
        if let Some(pid) = temporary_pid(&name)
            && pid != own
            && !proc.join(pid.to_string()).exists()
        {
            // Another run may have removed it first: nothing to tell.
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// The process id in a temporary file name of ours, `.undouble-<pid>-<random>.tmp`.
fn temporary_pid(name: &std::ffi::OsStr) -> Option<u32> {
    let middle = name
        .to_str()?
        .strip_prefix(TEMPORARY_PREFIX)?
        .strip_suffix(TEMPORARY_SUFFIX)?;
    let (pid, random) = middle.split_once('-')?;
    let digits = !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit());
    match digits && !random.is_empty() {
        true => pid.parse().ok(),
        false => None,
    }
}

/// The permissions of the file at `path`.
pub fn permissions_of(path: &Path) -> io::Result<Permissions> {
    Ok(fs::metadata(path)?.permissions())
}

/// Unnamed temporary files (`O_TMPFILE`), and naming them once written.
#[cfg(target_os = "linux")]
mod unnamed {
    use std::collections::hash_map::RandomState;
    use std::fs::File;
    use std::hash::BuildHasher;
    use std::io;
    use std::os::fd::AsRawFd;
    use std::path::{Path, PathBuf};

    use rustix::fs::{AtFlags, CWD, Mode, OFlags};

    /// An unnamed file in `dir`, readable by its owner only; `None` where the file system
    /// refuses one, or where it could not be named afterwards (no `/proc`).
    pub(super) fn create(dir: &Path) -> Option<File> {
        if !Path::new("/proc/self/fd").is_dir() {
            return None;
        }
        let flags = OFlags::TMPFILE | OFlags::RDWR | OFlags::CLOEXEC;
        let fd = rustix::fs::openat(CWD, dir, flags, Mode::from_raw_mode(0o600)).ok()?;
        Some(File::from(fd))
    }

    /// Gives `file` a name of its own in `dir` (`.undouble-<pid>-<random>.tmp`), and returns
    /// it. Linking through `/proc/self/fd` needs no privilege, unlike `AT_EMPTY_PATH`.
    pub(super) fn link(file: &File, dir: &Path) -> io::Result<PathBuf> {
        let source = format!("/proc/self/fd/{}", file.as_raw_fd());
        let random = RandomState::new();
        let mut attempt = 0u64;
        loop {
            let name = format!(
                "{}{:016x}{}",
                super::temporary_prefix(),
                random.hash_one(attempt),
                super::TEMPORARY_SUFFIX
            );
            let path = dir.join(name);
            match rustix::fs::linkat(CWD, source.as_str(), CWD, &path, AtFlags::SYMLINK_FOLLOW) {
                Ok(()) => return Ok(path),
                Err(rustix::io::Errno::EXIST) if attempt < 64 => attempt += 1,
                Err(error) => return Err(error.into()),
            }
        }
    }
}

/// Extended attributes, read from one file and given to another.
#[cfg(target_os = "linux")]
mod xattrs {
    use std::ffi::OsString;
    use std::fs::File;
    use std::io;
    use std::os::unix::ffi::{OsStrExt, OsStringExt};
    use std::path::Path;

    use rustix::io::Errno;

    /// A name in `security.`, which the system's policy (SELinux, Smack) gives new files
    /// itself, and which an unprivileged process may not be allowed to set.
    fn is_labelled_by_policy(name: &[u8]) -> bool {
        name.starts_with(b"security.")
    }

    /// The extended attributes of the file at `path`, names and values; none where the file
    /// system has none.
    pub(super) fn read(path: &Path) -> io::Result<Vec<(OsString, Vec<u8>)>> {
        let names = match list(|buf| rustix::fs::listxattr(path, buf)) {
            Ok(names) => names,
            Err(Errno::NOTSUP) => return Ok(Vec::new()),
            Err(error) => return Err(error.into()),
        };
        let mut attributes = Vec::new();
        for name in names.split(|&b| b == 0).filter(|n| !n.is_empty()) {
            if is_labelled_by_policy(name) {
                continue;
            }
            let name = OsString::from_vec(name.to_vec());
            match list(|buf| rustix::fs::getxattr(path, name.as_os_str(), buf)) {
                Ok(value) => attributes.push((name, value)),
                // Removed since it was listed.
                Err(Errno::NODATA) => {}
                Err(error) => return Err(error.into()),
            }
        }
        Ok(attributes)
    }

    /// Calls `get` with a buffer large enough for what it returns (a list of names or a value,
    /// which may grow between calls), and returns that. Both are at most 64 KiB on Linux.
    fn list(
        mut get: impl FnMut(&mut Vec<u8>) -> rustix::io::Result<usize>,
    ) -> Result<Vec<u8>, Errno> {
        let mut size = 1024;
        loop {
            let mut buf = vec![0; size];
            match get(&mut buf) {
                Ok(len) => {
                    buf.truncate(len);
                    return Ok(buf);
                }
                Err(Errno::RANGE) if size < 1 << 20 => size *= 4,
                Err(error) => return Err(error),
            }
        }
    }

    /// Gives `file` exactly the attributes `wanted` (those the policy labels aside): the
    /// missing ones are set, and those it has but should not (an ACL inherited from the
    /// directory's default ACL) removed.
    pub(super) fn give(file: &File, wanted: &[(OsString, Vec<u8>)]) -> io::Result<()> {
        let has = match list(|buf| rustix::fs::flistxattr(file, buf)) {
            Ok(names) => names,
            Err(Errno::NOTSUP) if wanted.is_empty() => return Ok(()),
            Err(error) => return Err(error.into()),
        };
        for name in has.split(|&b| b == 0).filter(|n| !n.is_empty()) {
            let kept = wanted.iter().any(|(w, _)| w.as_bytes() == name);
            if !kept && !is_labelled_by_policy(name) {
                rustix::fs::fremovexattr(file, std::ffi::OsStr::from_bytes(name))?;
            }
        }
        for (name, value) in wanted {
            let flags = rustix::fs::XattrFlags::empty();
            rustix::fs::fsetxattr(file, name.as_os_str(), value, flags)?;
        }
        Ok(())
    }
}

#[cfg(not(target_os = "linux"))]
mod xattrs {
    use std::ffi::OsString;
    use std::fs::File;
    use std::io;
    use std::path::Path;

    pub(super) fn read(_path: &Path) -> io::Result<Vec<(OsString, Vec<u8>)>> {
        Ok(Vec::new())
    }

    pub(super) fn give(_file: &File, _wanted: &[(OsString, Vec<u8>)]) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    fn names_in(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    fn both_ways() -> [fn(&Path) -> io::Result<Replacement>; 2] {
        [Replacement::beside, Replacement::beside_named]
    }

    #[test]
    fn a_committed_replacement_takes_the_place_of_the_target() {
        for start in both_ways() {
            let dir = tempfile::tempdir().unwrap();
            let target = dir.path().join("t.txt");
            fs::write(&target, b"old").unwrap();
            let replacement = start(&target).unwrap();
            replacement.file().write_all(b"new").unwrap();
            assert_eq!(fs::read(&target).unwrap(), b"old");
            replacement.commit(None).unwrap();
            assert_eq!(fs::read(&target).unwrap(), b"new");
            assert_eq!(names_in(dir.path()), ["t.txt"]);
        }
    }

    #[test]
    fn a_dropped_replacement_leaves_nothing_behind() {
        for start in both_ways() {
            let dir = tempfile::tempdir().unwrap();
            let target = dir.path().join("t.txt");
            fs::write(&target, b"old").unwrap();
            drop(start(&target).unwrap());
            assert_eq!(fs::read(&target).unwrap(), b"old");
            assert_eq!(names_in(dir.path()), ["t.txt"]);
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_new_content_has_no_name_while_it_is_written_where_the_file_system_allows() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("t.txt");
        let replacement = Replacement::beside(&target).unwrap();
        assert!(matches!(replacement.temp, Temp::Unnamed { .. }));
        replacement.file().write_all(b"new").unwrap();
        assert!(names_in(dir.path()).is_empty());
        replacement.commit(None).unwrap();
        assert_eq!(names_in(dir.path()), ["t.txt"]);

        let named = Replacement::beside_named(&target).unwrap();
        let names = names_in(dir.path());
        let prefix = temporary_prefix();
        assert!(
            names
                .iter()
                .any(|n| n.starts_with(&prefix) && n.ends_with(".tmp"))
        );
        drop(named);
    }

    #[test]
    fn mode_and_extended_attributes_are_kept_and_a_new_file_gets_what_it_is_given() {
        for start in both_ways() {
            let dir = tempfile::tempdir().unwrap();
            let target = dir.path().join("t.txt");
            fs::write(&target, b"old").unwrap();
            fs::set_permissions(&target, Permissions::from_mode(0o640)).unwrap();
            #[cfg(target_os = "linux")]
            let has_xattrs = rustix::fs::setxattr(
                &target,
                "user.origin",
                b"kept",
                rustix::fs::XattrFlags::empty(),
            )
            .is_ok();
            let before = Identity::of(&target).unwrap();
            let replacement = start(&target).unwrap();
            replacement.file().write_all(b"new").unwrap();
            replacement
                .commit(Some(Permissions::from_mode(0o600)))
                .unwrap();
            assert_eq!(Identity::of(&target).unwrap(), before);
            #[cfg(target_os = "linux")]
            if has_xattrs {
                let mut value = vec![0; 16];
                let len = rustix::fs::getxattr(&target, "user.origin", &mut value).unwrap();
                assert_eq!(&value[..len], b"kept");
            }

            let fresh = dir.path().join("new.txt");
            let replacement = start(&fresh).unwrap();
            replacement
                .commit(Some(Permissions::from_mode(0o604)))
                .unwrap();
            assert_eq!(fs::metadata(&fresh).unwrap().mode() & 0o777, 0o604);
        }
    }

    #[test]
    fn temporary_names_carry_the_process_id() {
        assert_eq!(temporary_pid(".undouble-123-aB9x.tmp".as_ref()), Some(123));
        assert_eq!(temporary_pid(".undouble-aB9xyz.tmp".as_ref()), None);
        assert_eq!(temporary_pid(".undouble-123-.tmp".as_ref()), None);
        assert_eq!(temporary_pid(".undouble--x.tmp".as_ref()), None);
        assert_eq!(temporary_pid("undouble-123-x.tmp".as_ref()), None);
        assert_eq!(temporary_pid(".undouble-12a-x.tmp".as_ref()), None);
    }
}
