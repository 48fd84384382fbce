//! The identity of an input file, taken when a replacement computed from it starts and checked
//! just before the replacement is committed, so that no file is replaced by a result read from
//! a file that changed meanwhile.
//!
//! A truncation under a memory map is caught while the map is read ([`super::map_guard`]), but
//! a file may change in other ways a read cannot see: rewritten in place by an editor (same
//! size, new bytes), truncated and written again, changed between the last block read and the
//! rename (the temporary file's sync can take seconds), or replaced by a rename of another file
//! over its path. Its device, inode, size and time of last modification, taken from an open
//! handle (`fstat`) before it is read and again from the same handle before the rename, tell
//! the first cases; the inode its path names by then, compared with the handle's, tells the
//! last. Any difference refuses the replacement ([`Change::Modified`], [`Change::Truncated`],
//! [`Change::Replaced`]) and nothing is renamed. A change within one tick of the file system's
//! clock that keeps the size, or one after the check (the rename is not conditional), is not
//! seen.

use std::fs::{self, File, Metadata};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::error::{Change, Error};

/// An input file opened before it is read, and what it was then.
pub(crate) struct Identity {
    path: PathBuf,
    file: File,
    seen: Seen,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Seen {
    device: u64,
    inode: u64,
    len: u64,
    modified: (i64, i64),
}

impl Seen {
    fn of(metadata: &Metadata) -> Seen {
        Seen {
            device: metadata.dev(),
            inode: metadata.ino(),
            len: metadata.len(),
            modified: (metadata.mtime(), metadata.mtime_nsec()),
        }
    }
}

impl Identity {
    /// The identity of the regular file at `path`, or `None` for anything else (a stream has
    /// no content to compare, and is read once).
    pub(crate) fn of(path: &Path) -> Result<Option<Identity>, Error> {
        let open_error = |source| Error::Open {
            path: path.to_path_buf(),
            source,
        };
        // By path first, so that a FIFO is never opened here (which would wait for a writer).
        if !fs::metadata(path).map_err(open_error)?.is_file() {
            return Ok(None);
        }
        let file = File::open(path).map_err(open_error)?;
        let seen = Seen::of(&file.metadata().map_err(open_error)?);
        Ok(Some(Identity {
            path: path.to_path_buf(),
            file,
            seen,
        }))
    }

    /// Fails, naming the file, if it is no longer what it was when this was taken.
    pub(crate) fn check(&self) -> Result<(), Error> {
        let changed = |seen| Error::Changed {
            path: self.path.clone(),
            seen,
        };
        let now = match self.file.metadata() {
            Ok(metadata) => Seen::of(&metadata),
            Err(_) => return Err(changed(Change::Modified)),
        };
        if now.len < self.seen.len {
            return Err(changed(Change::Truncated { len: now.len }));
        }
        if now != self.seen {
            return Err(changed(Change::Modified));
        }
        match fs::metadata(&self.path) {
            Ok(at_path) if (at_path.dev(), at_path.ino()) == (now.device, now.inode) => Ok(()),
            _ => Err(changed(Change::Replaced)),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;
    use crate::engine::{Input, write_to_path};

    /// `write_to_path` from `input` to `target`, the input being changed by `change` while it
    /// is "read"; returns the error.
    fn replaced_while(input: &Path, target: &Path, change: impl FnOnce()) -> Error {
        let result = write_to_path(
            &Input::File(input.to_path_buf()),
            target,
            crate::engine::Replacing::default(),
            |out| {
                out.write_all(b"repaired").unwrap();
                change();
                Ok(())
            },
            |_| true,
        );
        result.err().unwrap()
    }

    fn only_file_in(dir: &Path) -> bool {
        fs::read_dir(dir).unwrap().all(|entry| {
            let name = entry.unwrap().file_name();
            !name.to_string_lossy().starts_with(".undouble-")
        })
    }

    #[test]
    fn a_file_rewritten_in_place_is_not_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.txt");
        fs::write(&input, b"original").unwrap();
        let old = File::open(&input).unwrap().metadata().unwrap().modified();
        let error = replaced_while(&input, &input, || {
            // Same size, new bytes, and a time that surely differs from the first write's.
            let file = File::options().write(true).open(&input).unwrap();
            let later = old.unwrap() + std::time::Duration::from_secs(1);
            (&file).write_all(b"edited!!").unwrap();
            file.set_modified(later).unwrap();
        });
        assert!(
            matches!(
                error,
                Error::Changed {
                    seen: Change::Modified,
                    ..
                }
            ),
            "{error}"
        );
        assert!(
            error
                .to_string()
                .contains("in.txt: changed while being read")
        );
        assert_eq!(fs::read(&input).unwrap(), b"edited!!");
        assert!(only_file_in(dir.path()));
    }

    #[test]
    fn a_truncated_file_is_not_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.txt");
        let target = dir.path().join("out.txt");
        fs::write(&input, b"original").unwrap();
        let error = replaced_while(&input, &target, || {
            File::options()
                .write(true)
                .open(&input)
                .unwrap()
                .set_len(3)
                .unwrap();
        });
        assert!(
            error.to_string().contains("(truncated to 3 bytes)"),
            "{error}"
        );
        assert!(!target.exists());
        assert!(only_file_in(dir.path()));
    }

    #[test]
    fn a_file_replaced_by_a_rename_is_not_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.txt");
        let other = dir.path().join("other.txt");
        fs::write(&input, b"original").unwrap();
        fs::write(&other, b"original").unwrap();
        let error = replaced_while(&input, &input, || fs::rename(&other, &input).unwrap());
        assert!(
            matches!(
                error,
                Error::Changed {
                    seen: Change::Replaced,
                    ..
                }
            ),
            "{error}"
        );
        assert_eq!(fs::read(&input).unwrap(), b"original");
        assert!(only_file_in(dir.path()));
    }

    #[test]
    fn an_unchanged_file_is_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.txt");
        fs::write(&input, b"original").unwrap();
        let written = write_to_path(
            &Input::File(input.clone()),
            &input,
            crate::engine::Replacing::default(),
            |out| out.write_all(b"repaired").map_err(|_| unreachable!()),
            |_| true,
        );
        assert!(written.is_ok());
        assert_eq!(fs::read(&input).unwrap(), b"repaired");
    }
}
