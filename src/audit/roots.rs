//! Where `undo` may write: regular files under the directories the user names, reached without
//! a symbolic link.
//!
//! An audit log may come from elsewhere (it travels with a dump), and its paths and hashes are
//! its author's word: a crafted log can name any file whose bytes it knows and have `undo` write
//! whatever it likes there. So the log's path is only a request. It must be absolute and free of
//! `..` (the fix logs no other kind); it must lie under one of the roots, compared component by
//! component with the root as named and as it resolves; and every component below the root is
//! examined without following links: each directory a directory, the file itself a regular
//! file. The file written is then the resolved root joined with those components, so what is
//! checked is what is replaced.
//!
//! The file is opened without following a link and without blocking (a FIFO swapped in would
//! otherwise wait for a writer), and must be the very file examined (same device and inode);
//! the path is examined again just before the replacement takes its place.

use std::fs::{self, File, Metadata, OpenOptions};
use std::io;
use std::path::{Component, Path, PathBuf};

use super::undo::{AuditError, LogLine};

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
    pub fn target(&self, logged: &Path, at: &LogLine) -> Result<Target, AuditError> {
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
                "the path lies outside the directories undo may write under ({}); name its \
                 directory with --root",
                self.named_list()
            )));
        };
        let parts: Vec<Component<'_>> = below.components().collect();
        if parts.is_empty() {
            return Err(forbidden("the path is a root itself, not a file".into()));
        }
        let mut path = root.real.clone();
        for (i, part) in parts.iter().enumerate() {
            let Component::Normal(name) = part else {
                return Err(forbidden(format!(
                    "the path has an unexpected part {part:?}"
                )));
            };
            path.push(name);
            let metadata = fs::symlink_metadata(&path).map_err(|source| AuditError::File {
                path: path.clone(),
                doing: "examine",
                source,
            })?;
            let kind = metadata.file_type();
            let last = i + 1 == parts.len();
            if kind.is_symlink() {
                return Err(forbidden(format!(
                    "{} is a symbolic link: undo never writes through one (name the directory \
                     the file really is in with --root)",
                    path.display()
                )));
            }
            if !last && !kind.is_dir() {
                return Err(forbidden(format!("{} is not a directory", path.display())));
            }
            if last {
                if !kind.is_file() {
                    return Err(forbidden(format!(
                        "{} is {}: undo restores regular files only",
                        path.display(),
                        kind_name(&metadata)
                    )));
                }
                return Ok(Target {
                    path,
                    identity: Identity::of(&metadata),
                });
            }
        }
        Err(forbidden("the path names no file".into()))
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

/// What kind of file `metadata` describes, for a refusal.
fn kind_name(metadata: &Metadata) -> &'static str {
    let kind = metadata.file_type();
    if kind.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a FIFO";
        }
        if kind.is_char_device() {
            return "a character device";
        }
        if kind.is_block_device() {
            return "a block device";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    "not a regular file"
}

/// A regular file under a root, as it was examined.
#[derive(Debug)]
pub struct Target {
    /// Where it is: the resolved root and the components below it.
    pub path: PathBuf,
    identity: Identity,
}

impl Target {
    /// Opens the file for reading, without following a link or blocking; it must still be the
    /// regular file examined.
    pub fn open(&self, logged: &Path, at: &LogLine) -> Result<(File, Metadata), AuditError> {
        let error = |source| AuditError::File {
            path: self.path.clone(),
            doing: "open",
            source,
        };
        let mut options = OpenOptions::new();
        options.read(true);
        no_follow(&mut options);
        let file = options.open(&self.path).map_err(error)?;
        let metadata = file.metadata().map_err(error)?;
        if !metadata.is_file() || Identity::of(&metadata) != self.identity {
            return Err(self.moved(logged, at));
        }
        Ok((file, metadata))
    }

    /// Checks, just before the replacement, that the path still leads (under `roots`, without a
    /// link) to the file examined.
    pub fn recheck(&self, roots: &Roots, logged: &Path, at: &LogLine) -> Result<(), AuditError> {
        let again = roots.target(logged, at)?;
        if again.path != self.path || again.identity != self.identity {
            return Err(self.moved(logged, at));
        }
        Ok(())
    }

    fn moved(&self, logged: &Path, at: &LogLine) -> AuditError {
        AuditError::Forbidden {
            path: logged.to_path_buf(),
            at: at.clone(),
            problem: format!(
                "{} was replaced by another file while undo examined it",
                self.path.display()
            ),
        }
    }
}

/// Opening never follows a final symbolic link and never waits on a FIFO.
#[cfg(target_os = "linux")]
fn no_follow(options: &mut OpenOptions) {
    use rustix::fs::OFlags;
    use std::os::unix::fs::OpenOptionsExt;
    let flags = (OFlags::NOFOLLOW | OFlags::NONBLOCK).bits();
    options.custom_flags(flags as i32);
}

/// Elsewhere the file's identity, compared after opening, is what rules out a link.
#[cfg(not(target_os = "linux"))]
fn no_follow(_options: &mut OpenOptions) {}

/// Which file a path led to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Identity {
    device: u64,
    inode: u64,
}

impl Identity {
    #[cfg(unix)]
    fn of(metadata: &Metadata) -> Identity {
        use std::os::unix::fs::MetadataExt;
        Identity {
            device: metadata.dev(),
            inode: metadata.ino(),
        }
    }

    #[cfg(not(unix))]
    fn of(_metadata: &Metadata) -> Identity {
        Identity {
            device: 0,
            inode: 0,
        }
    }
}
