//! Replacing a file atomically: the new content goes to a temporary file in the same directory,
//! which is given the permissions wanted, synced, and renamed over the target in one step; then
//! the directory is synced so that the rename itself survives a crash. Until the rename the
//! target is untouched, and a replacement dropped before [`Replacement::commit`] removes its
//! temporary file. `fix` (in place, or to a file) and `undo` replace files this way.

use std::fs::{self, File, Permissions};
use std::io;
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

/// A new content for `target`, being written.
pub struct Replacement {
    temp: NamedTempFile,
    target: PathBuf,
}

impl Replacement {
    /// Starts a replacement of `target` with an empty temporary file beside it.
    pub fn beside(target: &Path) -> io::Result<Replacement> {
        let temp = tempfile::Builder::new()
            .prefix(".undouble-")
            .suffix(".tmp")
            .tempfile_in(directory_of(target))?;
        Ok(Replacement {
            temp,
            target: target.to_path_buf(),
        })
    }

    /// The temporary file, to write the new content to.
    pub fn file(&self) -> &File {
        self.temp.as_file()
    }

    /// Puts the written content in place of the target, with `permissions` if given (a new
    /// file otherwise gets the temporary file's, readable by its owner only).
    pub fn commit(self, permissions: Option<Permissions>) -> io::Result<()> {
        let file = self.temp.as_file();
        if let Some(permissions) = permissions {
            file.set_permissions(permissions)?;
        }
        file.sync_all()?;
        self.temp.persist(&self.target).map_err(|e| e.error)?;
        File::open(directory_of(&self.target))?.sync_all()
    }
}

/// The directory a file is in (`.` for a bare file name).
fn directory_of(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

/// The permissions of the file at `path`.
pub fn permissions_of(path: &Path) -> io::Result<Permissions> {
    Ok(fs::metadata(path)?.permissions())
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    #[test]
    fn a_committed_replacement_takes_the_place_of_the_target() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("t.txt");
        fs::write(&target, b"old").unwrap();
        let permissions = permissions_of(&target).unwrap();
        let replacement = Replacement::beside(&target).unwrap();
        replacement.file().write_all(b"new").unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"old");
        replacement.commit(Some(permissions)).unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"new");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_dropped_replacement_leaves_nothing_behind() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("t.txt");
        fs::write(&target, b"old").unwrap();
        drop(Replacement::beside(&target).unwrap());
        assert_eq!(fs::read(&target).unwrap(), b"old");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
