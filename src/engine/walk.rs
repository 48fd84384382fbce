//! Turns the paths on the command line into the list of inputs: files as given, directories
//! walked (with the `ignore` crate's walker), in a deterministic order.
//!
//! Hidden files and directories are skipped unless asked for, and `.git` always is; symbolic
//! links are not followed unless asked; `--glob` keeps only matching files and `--exclude`
//! drops matching ones. `.gitignore` files are not consulted: a data store's ignore rules
//! are about source control, not about which files hold text.
//!
//! What a run writes is never read back, by it or by the next run with the same options: the
//! output directory is skipped where it lies inside a walked directory, and so is a file named
//! with the run's backup suffix beside the file it is the backup of (`a.orig` beside `a`).

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use ignore::WalkBuilder;
use ignore::overrides::OverrideBuilder;

use super::Input;
use crate::error::Error;

/// Which files a walk yields.
#[derive(Clone, Debug, Default)]
pub struct WalkOptions {
    /// Include hidden files and directories (names starting with `.`), `.git` excepted.
    pub hidden: bool,
    /// Follow symbolic links.
    pub follow_links: bool,
    /// Keep only files matching one of these globs (gitignore syntax); empty keeps all.
    pub globs: Vec<String>,
    /// Drop files matching any of these globs.
    pub excludes: Vec<String>,
    /// What the run writes, which it must not read.
    pub outputs: RunOutputs,
}

/// Where a run writes beside its inputs.
#[derive(Clone, Debug, Default)]
pub struct RunOutputs {
    /// The directory the run mirrors its inputs into.
    pub output_dir: Option<PathBuf>,
    /// The suffix of the backups the run keeps beside the files it replaces.
    pub backup_suffix: Option<String>,
}

/// One input found, and the directory it was found under, if any, so that a mirrored output
/// tree can place it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    pub input: Input,
    pub root: Option<PathBuf>,
}

impl Found {
    /// The path of this input relative to the directory it was found under, or its file name
    /// when it was named directly.
    pub fn relative_path(&self) -> PathBuf {
        let path = self.input.display_path();
        match &self.root {
            Some(root) => path.strip_prefix(root).unwrap_or(&path).to_path_buf(),
            None => path.file_name().map_or(path.clone(), PathBuf::from),
        }
    }
}

/// Expands `args` into inputs, in the order given, each directory's files sorted by name.
/// No argument means standard input. Errors (an unreadable directory, a bad glob) are
/// returned beside what could be found.
pub fn expand(args: &[PathBuf], options: &WalkOptions) -> (Vec<Found>, Vec<Error>) {
    let mut found = Vec::new();
    let mut errors = Vec::new();
    if args.is_empty() {
        found.push(Found {
            input: Input::stdin(),
            root: None,
        });
    }
    for arg in args {
        if arg.as_os_str() == "-" || !arg.is_dir() {
            found.push(Found {
                input: Input::from_arg(arg),
                root: None,
            });
            continue;
        }
        match walk_dir(arg, options) {
            Ok((files, walk_errors)) => {
                found.extend(files.into_iter().map(|path| Found {
                    input: Input::File(path),
                    root: Some(arg.clone()),
                }));
                errors.extend(walk_errors);
            }
            Err(error) => errors.push(error),
        }
    }
    (found, errors)
}

/// Whether `path` is named with the backup `suffix` beside the file it is the backup of.
fn is_backup_of_sibling(path: &Path, suffix: &str) -> bool {
    let Some(name) = path.file_name() else {
        return false;
    };
    match name.as_encoded_bytes().strip_suffix(suffix.as_bytes()) {
        // SAFETY: `stem` is `name` (an `OsStr`) cut just before `suffix`, a `str`: it ends
        // where a UTF-8 string starts, which is a boundary `from_encoded_bytes_unchecked`
        // accepts.
        Some(stem) if !stem.is_empty() && !suffix.is_empty() => {
            let stem = unsafe { std::ffi::OsStr::from_encoded_bytes_unchecked(stem) };
            path.with_file_name(stem).is_file()
        }
        _ => false,
    }
}

fn walk_dir(root: &Path, options: &WalkOptions) -> Result<(Vec<PathBuf>, Vec<Error>), Error> {
    let usage = |message: String| Error::Usage(format!("{}: {message}", root.display()));
    let mut overrides = OverrideBuilder::new(root);
    for glob in &options.globs {
        overrides.add(glob).map_err(|e| usage(e.to_string()))?;
    }
    for glob in &options.excludes {
        overrides
            .add(&format!("!{glob}"))
            .map_err(|e| usage(e.to_string()))?;
    }
    let overrides = overrides.build().map_err(|e| usage(e.to_string()))?;
    let hidden = options.hidden;
    // The output directory by device and inode: the same directory whatever path names it.
    let output_dir = (options.outputs.output_dir.as_ref())
        .and_then(|dir| std::fs::metadata(dir).ok())
        .map(|m| (m.dev(), m.ino()));
    let backup_suffix = options.outputs.backup_suffix.clone();
    // Hidden names are filtered here rather than by the walker's own option, which a matching
    // `--glob` would override.
    let walker = WalkBuilder::new(root)
        .standard_filters(false)
        .follow_links(options.follow_links)
        .overrides(overrides)
        .filter_entry(move |entry| {
            let name = entry.file_name();
            if entry.depth() == 0 {
                return true;
            }
            if name == ".git" || (!hidden && name.as_encoded_bytes().starts_with(b".")) {
                return false;
            }
            if entry.file_type().is_some_and(|t| t.is_dir()) {
                let here = || entry.metadata().ok().map(|m| (m.dev(), m.ino()));
                return output_dir.is_none_or(|output_dir| here() != Some(output_dir));
            }
            !backup_suffix
                .as_deref()
                .is_some_and(|suffix| is_backup_of_sibling(entry.path(), suffix))
        })
        .build();
    let mut files = Vec::new();
    let mut errors = Vec::new();
    for entry in walker {
        match entry {
            Ok(entry) if entry.file_type().is_some_and(|t| t.is_file()) => {
                let path = entry.into_path();
                files.push((walk_order_key(&path), path));
            }
            Ok(_) => {}
            Err(error) => errors.push(Error::Walk {
                path: root.to_path_buf(),
                message: error.to_string(),
            }),
        }
    }
    // One sort of the whole list gives the order of a walk that sorts each directory by name
    // (files only, so no path is a prefix of another by components), without the walker's
    // comparisons, which find both file names again in their paths at every step.
    files.sort_unstable_by(|(a, _), (b, _)| a.cmp(b));
    Ok((files.into_iter().map(|(_, path)| path).collect(), errors))
}

/// A key whose byte order is the order of paths by components: the separator becomes the one
/// byte no file name holds, so that a name ends before any longer name it begins (`a/x` before
/// `a.txt`, as `a` sorts before `a.txt`).
fn walk_order_key(path: &Path) -> Vec<u8> {
    let mut key = path.as_os_str().as_encoded_bytes().to_vec();
    for byte in &mut key {
        if *byte == b'/' {
            *byte = 0;
        }
    }
    key
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(found: &[Found]) -> Vec<String> {
        found
            .iter()
            .map(|f| f.relative_path().display().to_string())
            .collect()
    }

    #[test]
    fn walks_sorted_skipping_hidden_and_git_and_honours_globs() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        for name in [
            "b.sql",
            "a.txt",
            ".hidden.txt",
            "sub/c.txt",
            ".git/config",
            "sub/d.bin",
        ] {
            let path = root.join(name);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            std::fs::write(&path, b"x").expect("write");
        }
        let args = [root.to_path_buf()];
        let (found, errors) = expand(&args, &WalkOptions::default());
        assert!(errors.is_empty());
        assert_eq!(names(&found), ["a.txt", "b.sql", "sub/c.txt", "sub/d.bin"]);

        let hidden = WalkOptions {
            hidden: true,
            ..WalkOptions::default()
        };
        let (found, _) = expand(&args, &hidden);
        assert_eq!(
            names(&found),
            [".hidden.txt", "a.txt", "b.sql", "sub/c.txt", "sub/d.bin"]
        );

        let globbed = WalkOptions {
            globs: vec!["*.txt".into()],
            excludes: vec!["sub/**".into()],
            ..WalkOptions::default()
        };
        let (found, _) = expand(&args, &globbed);
        assert_eq!(names(&found), ["a.txt"]);
    }

    /// The files under `dir`, each directory's entries taken in the order of their names.
    fn sorted_walk(dir: &Path, into: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .expect("read_dir")
            .map(|entry| entry.expect("entry").path())
            .collect();
        entries.sort_by(|a, b| a.file_name().cmp(&b.file_name()));
        for path in entries {
            if path.is_dir() {
                sorted_walk(&path, into);
            } else {
                into.push(path);
            }
        }
    }

    #[test]
    fn one_sort_gives_the_order_of_a_walk_sorted_directory_by_directory() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        // Names that a separator compared as `/` would put in another order: `-`, ` ` and `.`
        // sort before `/`, and `a` must still come before `a.txt` and `a-b`.
        for name in [
            "a.txt", "a/x", "a/b/c", "a/b.d", "a/b-/e", "a b/y", "a-/z", "ab", "A", "a0/q", "é/1",
            "e/2", "a/b/c d", "a/b/cc",
        ] {
            let path = root.join(name);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            std::fs::write(&path, b"x").expect("write");
        }
        let mut expected = Vec::new();
        sorted_walk(root, &mut expected);
        let (found, errors) = expand(&[root.to_path_buf()], &WalkOptions::default());
        assert!(errors.is_empty());
        let found: Vec<PathBuf> = found.into_iter().map(|f| f.input.display_path()).collect();
        assert_eq!(found, expected);
    }

    #[test]
    fn files_and_stdin_pass_through() {
        let (found, _) = expand(&[], &WalkOptions::default());
        assert!(found[0].input.is_stdin());
        let args = [PathBuf::from("-"), PathBuf::from("/no/such/file")];
        let (found, errors) = expand(&args, &WalkOptions::default());
        assert!(
            errors.is_empty(),
            "a missing file is reported when it is opened"
        );
        assert_eq!(found.len(), 2);
        assert_eq!(found[1].relative_path(), PathBuf::from("file"));
    }
}
