//! Replacing a file atomically, as the same file: the new content goes to a temporary file in
//! the target's directory, which is given the identity of the file it replaces (owner, group,
//! mode, extended attributes, which hold POSIX ACLs), synced, and renamed over the target in
//! one step; then the directory is synced so that the rename itself survives a crash. Until
//! the rename the target is untouched. `fix` (in place, or to a file) and `undo` replace files
//! this way.
//!
//! Everything after the start happens in the directory as it was opened then, named by its
//! descriptor, never by a path: the identity of the target is read, the temporary file made,
//! named and renamed over the target, and the directory synced, all relative to that open
//! directory. A directory on the way to the target that is moved, or swapped for a symbolic
//! link, once the replacement has started cannot send the new content anywhere else: it lands
//! in the directory that was opened, wherever that directory now is. [`Replacement::beside`]
//! opens the target's directory by its path (following links, as any path is followed);
//! [`Replacement::in_directory`] takes a directory the caller opened, as `undo` does after
//! walking to it from a root without a link ([`crate::audit::roots`]). What the directory
//! cannot pin is its entries: the target's name may be given to another file between the
//! start and the rename, and the rename replaces whatever has the name then.
//!
//! No temporary file outlives its run. On Linux the new content is written to an `O_TMPFILE`
//! file, which has no name while it is written: a process killed then leaves nothing behind.
//! It is given a name only once complete and synced, just before the rename. Where the file
//! system refuses `O_TMPFILE`, the temporary file is named from the start. Either name is
//! `.undouble-<pid>-<random>.tmp`, and a run that replaces a file removes those of the
//! directory whose process no longer runs (a run killed in the instant between the two steps,
//! or during a named write); never those of a live run.

use std::collections::HashSet;
use std::collections::hash_map::RandomState;
use std::ffi::{OsStr, OsString};
use std::fs::{self, File, Permissions};
use std::hash::BuildHasher;
use std::io;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::sync::Mutex;

use rustix::fs::{AtFlags, CWD, Mode, OFlags};
use rustix::io::Errno;

/// What makes a file the same file to its users, besides its content: its owner and group,
/// its mode, and its extended attributes (on Linux; POSIX ACLs are `system.posix_acl_access`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Identity {
    uid: u32,
    gid: u32,
    mode: u32,
    xattrs: Vec<(OsString, Vec<u8>)>,
}

impl Identity {
    /// The identity of the file at `path` (a symbolic link is followed).
    #[cfg(test)]
    pub fn of(path: &Path) -> io::Result<Identity> {
        let (dir, name) = open_parent(path)?;
        Identity::at(&dir, &name)
    }

    /// The identity of the file `name` in the open directory `dir` (a symbolic link is
    /// followed).
    fn at(dir: &File, name: &OsStr) -> io::Result<Identity> {
        let stat = rustix::fs::statat(dir, name, AtFlags::empty())?;
        Ok(Identity {
            uid: stat.st_uid,
            gid: stat.st_gid,
            mode: permission_bits(&stat),
            xattrs: xattrs::read(dir, name)?,
        })
    }
}

/// The mode bits of `stat` that a replacement keeps (the field's width differs between
/// systems, hence the cast that is a no-op on some).
#[allow(clippy::unnecessary_cast)]
fn permission_bits(stat: &rustix::fs::Stat) -> u32 {
    stat.st_mode as u32 & 0o7777
}

/// A new content for a target, being written.
pub struct Replacement {
    /// The temporary file the new content is written to.
    file: File,
    /// The temporary file's name in `dir`, while it has one: from the start where the file
    /// system refuses unnamed files, or once linked at the commit. A replacement dropped with
    /// a name removes it.
    temp_name: Option<OsString>,
    /// The directory the target is in, as it was opened at the start.
    dir: File,
    /// The target's name in `dir`.
    name: OsString,
    /// The identity of the target when the replacement started, when there was one.
    replaced: Option<Identity>,
}

impl Replacement {
    /// Starts a replacement of `target` with an empty temporary file in its directory, without
    /// a name where the file system allows. The directory is opened now, and everything else
    /// happens in it. The identity of `target`, if it exists, is taken now, and its owner and
    /// group are given to the temporary file at once: a file whose owner this user cannot give
    /// is refused before anything is written.
    pub(crate) fn beside(target: &Path) -> io::Result<Replacement> {
        let (dir, name) = open_parent(target)?;
        Replacement::start(dir, &name, target, true)
    }

    /// Like [`Replacement::beside`], with a temporary file named from the start, as where the
    /// file system refuses unnamed ones.
    #[cfg(test)]
    pub fn beside_named(target: &Path) -> io::Result<Replacement> {
        let (dir, name) = open_parent(target)?;
        Replacement::start(dir, &name, target, false)
    }

    /// Like [`Replacement::beside`], for the file `name` in the directory `dir`, opened by the
    /// caller (read-only is enough): whatever happens to the paths that led there, the
    /// replacement takes place in that directory. `name` is one component (no `/`, not `.` or
    /// `..`); `shown` names the target in messages only.
    pub(crate) fn in_directory(
        dir: OwnedFd,
        name: &OsStr,
        shown: &Path,
    ) -> io::Result<Replacement> {
        Replacement::start(File::from(dir), name, shown, true)
    }

    fn start(dir: File, name: &OsStr, shown: &Path, unnamed: bool) -> io::Result<Replacement> {
        if !is_single_component(name) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{}: {name:?} is not a file name", shown.display()),
            ));
        }
        remove_stale_temporaries(&dir);
        let replaced = match Identity::at(&dir, name) {
            Ok(identity) => Some(identity),
            Err(error) if error.kind() == io::ErrorKind::NotFound => None,
            Err(error) => return Err(error),
        };
        let (file, temp_name) = match unnamed.then(|| unnamed::create(&dir)).flatten() {
            Some(file) => (file, None),
            None => {
                let (file, temp_name) = create_named(&dir)?;
                (file, Some(temp_name))
            }
        };
        // Made before the owner is given, so that a refusal removes a named temporary file.
        let replacement = Replacement {
            file,
            temp_name,
            dir,
            name: name.to_os_string(),
            replaced,
        };
        if let Some(identity) = &replacement.replaced {
            keep_owner(&replacement.file, identity, shown)?;
        }
        Ok(replacement)
    }

    /// The temporary file, to write the new content to.
    pub fn file(&self) -> &File {
        &self.file
    }

    /// Puts the written content in place of the target, with the identity the target had when
    /// the replacement started; a new file gets `new_file_permissions` if given (or else the
    /// temporary file's, readable by its owner only).
    pub fn commit(mut self, new_file_permissions: Option<Permissions>) -> io::Result<()> {
        let file = &self.file;
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
        let temp_name = match self.temp_name.take() {
            Some(temp_name) => temp_name,
            None => unnamed::link(&self.file, &self.dir)?,
        };
        // Kept until the rename succeeds, so that a failed one leaves no temporary file.
        let temp_name = self.temp_name.insert(temp_name);
        rustix::fs::renameat(&self.dir, temp_name.as_os_str(), &self.dir, &self.name)?;
        self.temp_name = None;
        self.dir.sync_all()
    }
}

impl Drop for Replacement {
    fn drop(&mut self) {
        if let Some(temp_name) = self.temp_name.take() {
            // Dropped on an error already on its way to the caller: nothing more to tell.
            let _ = rustix::fs::unlinkat(&self.dir, temp_name.as_os_str(), AtFlags::empty());
        }
    }
}

/// Whether `name` names an entry of a directory, and no other directory's.
fn is_single_component(name: &OsStr) -> bool {
    let bytes = name.as_bytes();
    !bytes.is_empty() && !bytes.contains(&b'/') && bytes != b"." && bytes != b".."
}

/// The directory `target` is in, opened (following links), and its name there.
fn open_parent(target: &Path) -> io::Result<(File, OsString)> {
    let Some(name) = target.file_name() else {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} names no file", target.display()),
        ));
    };
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    let dir = rustix::fs::openat(CWD, directory_of(target), flags, Mode::empty())?;
    Ok((File::from(dir), name.to_os_string()))
}

/// A new temporary file in `dir`, named from the start and readable by its owner only, and
/// its name.
fn create_named(dir: &File) -> io::Result<(File, OsString)> {
    let flags = OFlags::RDWR | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let mode = Mode::RUSR | Mode::WUSR;
    let (fd, name) = with_fresh_name(|name| rustix::fs::openat(dir, name, flags, mode))?;
    Ok((File::from(fd), name))
}

const TEMPORARY_PREFIX: &str = ".undouble-";
const TEMPORARY_SUFFIX: &str = ".tmp";

/// `.undouble-<pid>-`: the start of the name of every temporary file of this process.
fn temporary_prefix() -> String {
    format!("{TEMPORARY_PREFIX}{}-", std::process::id())
}

/// Calls `make` with a new temporary name (`.undouble-<pid>-<random>.tmp`) until it finds one
/// free, and returns what it made and the name.
fn with_fresh_name<T>(
    mut make: impl FnMut(&str) -> rustix::io::Result<T>,
) -> io::Result<(T, OsString)> {
    let random = RandomState::new();
    let mut attempt = 0u64;
    loop {
        let name = format!(
            "{}{:016x}{TEMPORARY_SUFFIX}",
            temporary_prefix(),
            random.hash_one(attempt),
        );
        match make(&name) {
            Ok(made) => return Ok((made, name.into())),
            Err(Errno::EXIST) if attempt < 64 => attempt += 1,
            Err(error) => return Err(error.into()),
        }
    }
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
fn remove_stale_temporaries(dir: &File) {
    static CLEANED: Mutex<Option<HashSet<(u64, u64)>>> = Mutex::new(None);
    let proc = Path::new("/proc");
    if !proc.join("self").exists() {
        return;
    }
    let Ok(metadata) = dir.metadata() else {
        return;
    };
    if let Ok(mut cleaned) = CLEANED.lock()
        && !cleaned
            .get_or_insert_with(HashSet::new)
            .insert((metadata.dev(), metadata.ino()))
    {
        return;
    }
    let Ok(entries) = rustix::fs::Dir::read_from(dir) else {
        return;
    };
    let own = std::process::id();
    for entry in entries.map_while(Result::ok) {
        let name = entry.file_name();
        if let Some(pid) = temporary_pid(OsStr::from_bytes(name.to_bytes()))
            && pid != own
            && !proc.join(pid.to_string()).exists()
        {
            // Another run may have removed it first: nothing to tell.
            let _ = rustix::fs::unlinkat(dir, name, AtFlags::empty());
        }
    }
}

/// The process id in a temporary file name of ours, `.undouble-<pid>-<random>.tmp`.
fn temporary_pid(name: &OsStr) -> Option<u32> {
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
pub(crate) fn permissions_of(path: &Path) -> io::Result<Permissions> {
    Ok(fs::metadata(path)?.permissions())
}

/// Unnamed temporary files (`O_TMPFILE`), and naming them once written.
#[cfg(target_os = "linux")]
mod unnamed {
    use std::ffi::OsString;
    use std::fs::File;
    use std::io;
    use std::os::fd::AsRawFd;
    use std::path::Path;

    use rustix::fs::{AtFlags, CWD, Mode, OFlags};

    /// An unnamed file in `dir`, readable by its owner only; `None` where the file system
    /// refuses one, or where it could not be named afterwards (no `/proc`).
    pub(super) fn create(dir: &File) -> Option<File> {
        if !Path::new("/proc/self/fd").is_dir() {
            return None;
        }
        let flags = OFlags::TMPFILE | OFlags::RDWR | OFlags::CLOEXEC;
        let fd = rustix::fs::openat(dir, ".", flags, Mode::RUSR | Mode::WUSR).ok()?;
        Some(File::from(fd))
    }

    /// Gives `file` a name of its own in `dir` (`.undouble-<pid>-<random>.tmp`), and returns
    /// it. Linking through `/proc/self/fd` needs no privilege, unlike `AT_EMPTY_PATH`.
    pub(super) fn link(file: &File, dir: &File) -> io::Result<OsString> {
        let source = format!("/proc/self/fd/{}", file.as_raw_fd());
        let link = |name: &str| {
            rustix::fs::linkat(CWD, source.as_str(), dir, name, AtFlags::SYMLINK_FOLLOW)
        };
        Ok(super::with_fresh_name(link)?.1)
    }
}

/// Elsewhere every temporary file is named from the start.
#[cfg(not(target_os = "linux"))]
mod unnamed {
    use std::ffi::OsString;
    use std::fs::File;
    use std::io;

    pub(super) fn create(_dir: &File) -> Option<File> {
        None
    }

    /// Never called: no file is made without a name here.
    pub(super) fn link(_file: &File, _dir: &File) -> io::Result<OsString> {
        Err(io::ErrorKind::Unsupported.into())
    }
}

/// Extended attributes, read from one file and given to another.
#[cfg(target_os = "linux")]
mod xattrs {
    use std::ffi::{OsStr, OsString};
    use std::fs::File;
    use std::io;
    use std::os::fd::AsRawFd;
    use std::os::unix::ffi::{OsStrExt, OsStringExt};
    use std::path::Path;

    use rustix::fs::{Mode, OFlags};
    use rustix::io::Errno;

    /// A name in `security.`, which the system's policy (SELinux, Smack) gives new files
    /// itself, and which an unprivileged process may not be allowed to set.
    fn is_labelled_by_policy(name: &[u8]) -> bool {
        name.starts_with(b"security.")
    }

    /// The extended attributes of the file `name` in the open directory `dir` (a symbolic
    /// link is followed), names and values; none where the file system has none. The file is
    /// reached through the directory's descriptor in `/proc`, which needs no right to read it;
    /// without `/proc`, it is opened to read them.
    pub(super) fn read(dir: &File, name: &OsStr) -> io::Result<Vec<(OsString, Vec<u8>)>> {
        let through = Path::new("/proc/self/fd").join(dir.as_raw_fd().to_string());
        if through.is_dir() {
            let path = through.join(name);
            return read_with(
                |buf| rustix::fs::listxattr(&path, buf),
                |attribute, buf| rustix::fs::getxattr(&path, attribute, buf),
            );
        }
        let flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
        let file = rustix::fs::openat(dir, name, flags, Mode::empty())?;
        read_with(
            |buf| rustix::fs::flistxattr(&file, buf),
            |attribute, buf| rustix::fs::fgetxattr(&file, attribute, buf),
        )
    }

    /// The extended attributes that `names` lists and `value` reads.
    fn read_with(
        mut names: impl FnMut(&mut Vec<u8>) -> rustix::io::Result<usize>,
        mut value: impl FnMut(&OsStr, &mut Vec<u8>) -> rustix::io::Result<usize>,
    ) -> io::Result<Vec<(OsString, Vec<u8>)>> {
        let names = match list(&mut names) {
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
            match list(|buf| value(&name, buf)) {
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
                rustix::fs::fremovexattr(file, OsStr::from_bytes(name))?;
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
    use std::ffi::{OsStr, OsString};
    use std::fs::File;
    use std::io;

    pub(super) fn read(_dir: &File, _name: &OsStr) -> io::Result<Vec<(OsString, Vec<u8>)>> {
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
        assert!(replacement.temp_name.is_none());
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
    fn a_directory_swapped_for_a_link_after_the_start_does_not_lead_the_commit_elsewhere() {
        for start in both_ways() {
            let dir = tempfile::tempdir().unwrap();
            let sub = dir.path().join("sub");
            let elsewhere = dir.path().join("elsewhere");
            fs::create_dir(&sub).unwrap();
            fs::create_dir(&elsewhere).unwrap();
            fs::write(sub.join("t.txt"), b"old").unwrap();
            fs::write(elsewhere.join("t.txt"), b"elsewhere").unwrap();
            let replacement = start(&sub.join("t.txt")).unwrap();
            replacement.file().write_all(b"new").unwrap();
            let moved = dir.path().join("moved");
            fs::rename(&sub, &moved).unwrap();
            std::os::unix::fs::symlink(&elsewhere, &sub).unwrap();
            replacement.commit(None).unwrap();
            assert_eq!(fs::read(elsewhere.join("t.txt")).unwrap(), b"elsewhere");
            assert_eq!(names_in(&elsewhere), ["t.txt"]);
            assert_eq!(fs::read(moved.join("t.txt")).unwrap(), b"new");
            assert_eq!(names_in(&moved), ["t.txt"]);
        }
    }

    #[test]
    fn a_name_in_a_directory_is_one_component() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("sub")).unwrap();
        for name in ["", ".", "..", "sub/t.txt", "/t.txt"] {
            let opened = File::open(dir.path()).unwrap();
            let refused = Replacement::in_directory(opened.into(), name.as_ref(), dir.path());
            assert_eq!(refused.err().unwrap().kind(), io::ErrorKind::InvalidInput);
        }
        assert!(names_in(dir.path()) == ["sub"]);
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
