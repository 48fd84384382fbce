//! Where `undo` may write: regular files under the directories the user names, reached without
//! a symbolic link.
//!
//! An audit log may come from elsewhere (it travels with a dump), and its paths and hashes are
//! its author's word: a crafted log can name any file whose bytes it knows and have `undo` write
//! whatever it likes there. So the log's path is only a request. It must be absolute and free of
//! `..` (the fix logs no other kind); it must lie under one of the roots, compared component by
//! component with the root as named and as it resolves; and it is walked from the resolved
//! root by open directories, never by path: each component below the root is opened in the
//! directory before it without following a link and must be a directory, and the last is
//! examined in the directory that holds it, without following a link, and must be a regular
//! file. That directory stays open in the [`Target`]: the file is read, examined again and
//! replaced in it ([`Replacement::in_directory`]), by its name there.
//!
//! So what is checked is where the write goes, even against someone who may write under the
//! root and changes it while `undo` runs: a directory on the way swapped for a link (to `/etc`,
//! say) after the walk changes nothing, since no path through it is followed again. The file is
//! opened without following a link and without blocking (a FIFO swapped in would otherwise wait
//! for a writer), and must be the very file examined (same device and inode); its name is
//! examined again in the open directory just before the replacement takes its place.
//!
//! What is not ruled out: the name may be given to another file of that directory in the
//! instant between the last check and the rename, which then replaces that file instead (a
//! file under the root, by a user who could replace it anyway); and a directory moved
//! elsewhere after the walk is still the one written in. The root itself is opened by its
//! resolved path for every file: the directories above it are the user's to trust.

use std::ffi::OsString;
use std::fs::{File, Metadata};
use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::fs::MetadataExt;
use std::path::{Component, Path, PathBuf};

use rustix::fs::{AtFlags, CWD, FileType, Mode, OFlags, Stat};
use rustix::io::Errno;

use super::undo::{AuditError, LogLine};
use crate::engine::replace::Replacement;

/// The directories `undo` may write under.
#[derive(Clone, Debug)]
pub struct Roots {
    roots: Vec<Root>,
}

#[derive(Clone, Debug)]
struct Root {
    /// The directory as the user named it, made absolute.
    named: PathBuf,
    /// The directory it resolves to: where files are written.
    real: PathBuf,
}

impl Roots {
    /// The roots `dirs`, each an existing directory; none means the current directory.
    pub fn new<P: AsRef<Path>>(dirs: impl IntoIterator<Item = P>) -> Result<Roots, AuditError> {
        let mut roots = Vec::new();
        for dir in dirs {
            roots.push(Root::new(dir.as_ref())?);
        }
        if roots.is_empty() {
            roots.push(Root::new(Path::new("."))?);
        }
        Ok(Roots { roots })
    }

    /// The resolved roots, for messages.
    pub fn dirs(&self) -> impl Iterator<Item = &Path> {
        self.roots.iter().map(|root| root.real.as_path())
    }

    /// The file `logged` (a path from the log's line `at`) if `undo` may replace it: a regular
    /// file under a root, reached without a link.
    pub fn target<'p>(&self, logged: &'p Path, at: &LogLine) -> Result<Target, AuditError> {
        let forbidden = |problem: String| AuditError::Forbidden {
            path: logged.to_path_buf(),
            at: at.clone(),
            problem,
        };
        if !logged.is_absolute() {
            return Err(forbidden(
                "the log names a relative path (a fix logs absolute paths only)".into(),
            ));
        }
        if logged.components().any(|part| part == Component::ParentDir) {
            return Err(forbidden(
                "the path climbs with `..` (a fix logs no such path)".into(),
            ));
        }
        let Some((root, below)) = self.roots.iter().find_map(|root| root.holding(logged)) else {
            return Err(forbidden(format!(
                "the path lies outside the directories named as roots ({}); name its \
                 directory with --root",
                self.named_list()
            )));
        };
        let parts: Vec<Component<'_>> = below.components().collect();
        let Some((last, through)) = parts.split_last() else {
            return Err(forbidden("the path is a root itself, not a file".into()));
        };
        let name_of = |part: &Component<'p>| match *part {
            Component::Normal(name) => Ok(name),
            _ => Err(forbidden(format!(
                "the path has an unexpected part {part:?}"
            ))),
        };
        let mut path = root.real.clone();
        let mut dir = open_directory(CWD, &path).map_err(|source| AuditError::File {
            path: path.clone(),
            doing: "open",
            source: source.into(),
        })?;
        for part in through {
            let name = name_of(part)?;
            path.push(name);
            dir = match open_directory(&dir, name) {
                Ok(below) => below,
                // A link gives ELOOP, or ENOTDIR as O_DIRECTORY is checked first on Linux; any
                // other file ENOTDIR: which one it was is looked up for the refusal.
                Err(Errno::LOOP | Errno::NOTDIR) => {
                    let link = rustix::fs::statat(&dir, name, AtFlags::SYMLINK_NOFOLLOW)
                        .is_ok_and(|stat| FileType::from_raw_mode(stat.st_mode).is_symlink());
                    return Err(forbidden(match link {
                        true => symbolic_link(&path),
                        false => format!("{} is not a directory", path.display()),
                    }));
                }
                Err(source) => {
                    return Err(AuditError::File {
                        path,
                        doing: "examine",
                        source: source.into(),
                    });
                }
            };
        }
        let name = name_of(last)?;
        path.push(name);
        let stat = match rustix::fs::statat(&dir, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) => stat,
            Err(source) => {
                return Err(AuditError::File {
                    path,
                    doing: "examine",
                    source: source.into(),
                });
            }
        };
        let kind = FileType::from_raw_mode(stat.st_mode);
        if kind.is_symlink() {
            return Err(forbidden(symbolic_link(&path)));
        }
        if !kind.is_file() {
            return Err(forbidden(format!(
                "{} is {}: only regular files are read and written here",
                path.display(),
                kind_name(kind)
            )));
        }
        Ok(Target {
            path,
            dir,
            name: name.to_os_string(),
            identity: Identity::of_stat(&stat),
        })
    }

    fn named_list(&self) -> String {
        let names: Vec<String> = self
            .roots
            .iter()
            .map(|root| root.named.display().to_string())
            .collect();
        names.join(", ")
    }
}

impl Root {
    fn new(dir: &Path) -> Result<Root, AuditError> {
        let error = |source| AuditError::Root {
            dir: dir.to_path_buf(),
            source,
        };
        let named = std::path::absolute(dir).map_err(error)?;
        let real = named.canonicalize().map_err(error)?;
        if !real.is_dir() {
            return Err(error(io::Error::new(
                io::ErrorKind::NotADirectory,
                "not a directory",
            )));
        }
        Ok(Root { named, real })
    }

    /// The part of `path` below this root, named or resolved.
    fn holding<'p>(&self, path: &'p Path) -> Option<(&Root, &'p Path)> {
        [&self.named, &self.real]
            .into_iter()
            .find_map(|root| path.strip_prefix(root).ok())
            .map(|below| (self, below))
    }
}

/// Opens the directory `name` in `dir` (or at `name`, from `CWD`), without following a final
/// symbolic link.
fn open_directory(dir: impl AsFd, name: impl rustix::path::Arg) -> rustix::io::Result<OwnedFd> {
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    rustix::fs::openat(dir, name, flags, Mode::empty())
}

/// The refusal of a path through a symbolic link at `path`.
fn symbolic_link(path: &Path) -> String {
    format!(
        "{} is a symbolic link: undo never writes through one (name the directory the file \
         really is in with --root)",
        path.display()
    )
}

/// What kind of file `kind` is, for a refusal.
fn kind_name(kind: FileType) -> &'static str {
    match kind {
        FileType::Directory => "a directory",
        FileType::Fifo => "a FIFO",
        FileType::CharacterDevice => "a character device",
        FileType::BlockDevice => "a block device",
        FileType::Socket => "a socket",
        _ => "not a regular file",
    }
}

/// A regular file under a root, as it was examined, and the directory that holds it.
#[derive(Debug)]
pub struct Target {
    /// Where it is: the resolved root and the components below it, for messages.
    pub path: PathBuf,
    /// The directory it is in, reached from the root without a link.
    dir: OwnedFd,
    /// Its name in `dir`.
    name: OsString,
    identity: Identity,
}

impl Target {
    /// Opens the file for reading, in its directory, without following a link or blocking; it
    /// must still be the regular file examined.
    pub fn open(&self, logged: &Path, at: &LogLine) -> Result<(File, Metadata), AuditError> {
        let error = |source| AuditError::File {
            path: self.path.clone(),
            doing: "open",
            source,
        };
        let flags =
            OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
        let file = rustix::fs::openat(&self.dir, &self.name, flags, Mode::empty())
            .map_err(|source| error(source.into()))?;
        let file = File::from(file);
        let metadata = file.metadata().map_err(error)?;
        if !metadata.is_file() || Identity::of_metadata(&metadata) != self.identity {
            return Err(self.moved(logged, at));
        }
        Ok((file, metadata))
    }

    /// Starts the replacement of the file, in its directory ([`Replacement::in_directory`]).
    pub fn replacement(&self) -> io::Result<Replacement> {
        Replacement::in_directory(self.dir.try_clone()?, &self.name, &self.path)
    }

    /// Checks, just before the replacement, that the file's name in its directory is still the
    /// regular file examined, not a link or another file.
    pub fn recheck(&self, logged: &Path, at: &LogLine) -> Result<(), AuditError> {
        let stat = rustix::fs::statat(&self.dir, &self.name, AtFlags::SYMLINK_NOFOLLOW).map_err(
            |source| AuditError::File {
                path: self.path.clone(),
                doing: "examine",
                source: source.into(),
            },
        )?;
        let regular = FileType::from_raw_mode(stat.st_mode).is_file();
        if !regular || Identity::of_stat(&stat) != self.identity {
            return Err(self.moved(logged, at));
        }
        Ok(())
    }

    fn moved(&self, logged: &Path, at: &LogLine) -> AuditError {
        AuditError::Forbidden {
            path: logged.to_path_buf(),
            at: at.clone(),
            problem: format!(
                "{} was replaced by another file while it was examined",
                self.path.display()
            ),
        }
    }
}

/// Which file a name led to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Identity {
    device: u64,
    inode: u64,
}

impl Identity {
    fn of_metadata(metadata: &Metadata) -> Identity {
        Identity {
            device: metadata.dev(),
            inode: metadata.ino(),
        }
    }

    /// The fields' widths differ between systems, hence casts that are no-ops on some.
    #[allow(clippy::unnecessary_cast)]
    fn of_stat(stat: &Stat) -> Identity {
        Identity {
            device: stat.st_dev as u64,
            inode: stat.st_ino as u64,
        }
    }
}
