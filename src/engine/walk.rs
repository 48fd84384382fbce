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

use std::collections::VecDeque;
use std::fs;
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ignore::overrides::{Override, OverrideBuilder};

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
    pub root: Option<Arc<Path>>,
}

impl Found {
    /// The path of this input relative to the directory it was found under, or its file name
    /// when it was named directly.
    pub fn relative_path(&self) -> PathBuf {
        let path = self.input.display_path();
        match &self.root {
            Some(root) => path.strip_prefix(root).unwrap_or(path).to_path_buf(),
            None => path.file_name().map_or(path.to_path_buf(), PathBuf::from),
        }
    }
}

/// Expands `args` into inputs, in the order given, each directory's files sorted by name.
/// No argument means standard input. Errors (an unreadable directory, a bad glob) are
/// returned beside what could be found.
pub fn expand(args: &[PathBuf], options: &WalkOptions) -> (Vec<Found>, Vec<Error>) {
    let mut found = Vec::new();
    let mut errors = Vec::new();
    for item in walk(args, options) {
        match item {
            Ok(input) => found.push(input),
            Err(error) => errors.push(error),
        }
    }
    (found, errors)
}

/// The inputs `args` name, as [`expand`] lists them, each found when it is asked for: a
/// directory is read when the walk reaches it, so that the first files are processed while
/// the rest of a tree is still to be walked, and a tree of millions of files is never held
/// as a list. An error (an unreadable directory, a bad glob, a loop of links) comes in its
/// place in the walk, and the walk goes on.
pub fn walk(args: &[PathBuf], options: &WalkOptions) -> Walk {
    Walk {
        stdin: args.is_empty(),
        args: args.iter().cloned().collect(),
        options: options.clone(),
        dir: None,
    }
}

/// The iterator [`walk`] returns.
pub struct Walk {
    /// No argument was given: standard input, not yet yielded.
    stdin: bool,
    /// The arguments not yet taken.
    args: VecDeque<PathBuf>,
    options: WalkOptions,
    /// The directory argument being walked.
    dir: Option<DirWalk>,
}

impl Iterator for Walk {
    type Item = Result<Found, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if std::mem::take(&mut self.stdin) {
            return Some(Ok(Found {
                input: Input::stdin(),
                root: None,
            }));
        }
        loop {
            if let Some(dir) = &mut self.dir {
                match dir.next() {
                    Some(Ok(path)) => {
                        return Some(Ok(Found {
                            input: Input::File(path),
                            root: Some(Arc::clone(&dir.root)),
                        }));
                    }
                    Some(Err(error)) => return Some(Err(error)),
                    None => self.dir = None,
                }
            }
            let arg = self.args.pop_front()?;
            if arg.as_os_str() == "-" || !arg.is_dir() {
                return Some(Ok(Found {
                    input: Input::from_arg(&arg),
                    root: None,
                }));
            }
            match DirWalk::new(arg, &self.options) {
                Ok(dir) => self.dir = Some(dir),
                Err(error) => return Some(Err(error)),
            }
        }
    }
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

/// A device and inode: a directory whatever path names it.
type FileId = (u64, u64);

fn file_id(metadata: &fs::Metadata) -> FileId {
    (metadata.dev(), metadata.ino())
}

/// The files under one directory, depth first, each directory's entries in the order of their
/// names (bytes): `a/x` comes before `a.txt`, as `a` sorts before `a.txt`. Each directory is
/// read when the walk reaches it. (The `ignore` and `walkdir` walkers sort too, but compare
/// names found again in their paths at every step, which costs a tree of small files more
/// than reading it.)
struct DirWalk {
    /// Shared by every file found under it.
    root: Arc<Path>,
    rules: EntryRules,
    /// The directories from the root down to the one being walked: for each, its entries not
    /// yet taken (the last name first, taken from the end) and, when links are followed, its
    /// identity, against loops.
    open: Vec<Listing>,
    /// Errors met reading a directory, yielded before the walk goes on.
    errors: VecDeque<Error>,
}

struct Listing {
    entries: Vec<Entry>,
    id: Option<FileId>,
    /// The directory, to name it in the error of a loop.
    dir: PathBuf,
}

/// An entry the walk takes.
enum Entry {
    File(PathBuf),
    /// With its identity when links are followed.
    Dir(PathBuf, Option<FileId>),
}

impl Entry {
    fn path(&self) -> &Path {
        match self {
            Entry::File(path) | Entry::Dir(path, _) => path,
        }
    }
}

/// Which entries of a directory the walk takes.
struct EntryRules {
    hidden: bool,
    follow_links: bool,
    overrides: Override,
    output_dir: Option<FileId>,
    backup_suffix: Option<String>,
}

impl DirWalk {
    fn new(root: PathBuf, options: &WalkOptions) -> Result<DirWalk, Error> {
        let usage = |message: String| Error::Usage(format!("{}: {message}", root.display()));
        let mut overrides = OverrideBuilder::new(&root);
        for glob in &options.globs {
            overrides.add(glob).map_err(|e| usage(e.to_string()))?;
        }
        for glob in &options.excludes {
            overrides
                .add(&format!("!{glob}"))
                .map_err(|e| usage(e.to_string()))?;
        }
        let overrides = overrides.build().map_err(|e| usage(e.to_string()))?;
        let rules = EntryRules {
            hidden: options.hidden,
            follow_links: options.follow_links,
            overrides,
            output_dir: (options.outputs.output_dir.as_ref())
                .and_then(|dir| fs::metadata(dir).ok())
                .map(|m| file_id(&m)),
            backup_suffix: options.outputs.backup_suffix.clone(),
        };
        let mut walk = DirWalk {
            rules,
            open: Vec::new(),
            errors: VecDeque::new(),
            root: Arc::from(root),
        };
        let id = match walk.rules.follow_links {
            true => fs::metadata(&walk.root).ok().map(|m| file_id(&m)),
            false => None,
        };
        let root = Arc::clone(&walk.root);
        walk.enter(&root, id);
        Ok(walk)
    }

    /// Reads the directory `dir` (its identity `id`), whose entries are walked next.
    fn enter(&mut self, dir: &Path, id: Option<FileId>) {
        let ancestor = (self.open.iter()).find(|open| id.is_some() && open.id == id);
        if let Some(ancestor) = ancestor {
            self.errors.push_back(Error::Walk {
                path: dir.to_path_buf(),
                message: format!(
                    "leads back to {}, which holds it: not walked again",
                    ancestor.dir.display()
                ),
            });
            return;
        }
        match self.rules.entries(dir, &mut self.errors) {
            Ok(entries) => self.open.push(Listing {
                entries,
                id,
                dir: dir.to_path_buf(),
            }),
            Err(source) => self.errors.push_back(walk_error(dir, &source)),
        }
    }
}

impl Iterator for DirWalk {
    type Item = Result<PathBuf, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(error) = self.errors.pop_front() {
                return Some(Err(error));
            }
            let listing = self.open.last_mut()?;
            let Some(entry) = listing.entries.pop() else {
                self.open.pop();
                continue;
            };
            match entry {
                Entry::File(path) => return Some(Ok(path)),
                Entry::Dir(path, id) => self.enter(&path, id),
            }
        }
    }
}

impl EntryRules {
    /// The entries of `dir` the walk takes, sorted by name, the last first; errors on single
    /// entries go to `errors`.
    fn entries(&self, dir: &Path, errors: &mut VecDeque<Error>) -> io::Result<Vec<Entry>> {
        let mut entries = Vec::new();
        for entry in fs::read_dir(dir)? {
            let entry = match entry {
                Ok(entry) => entry,
                Err(source) => {
                    errors.push_back(walk_error(dir, &source));
                    continue;
                }
            };
            match self.take(entry) {
                Ok(Some(taken)) => entries.push(taken),
                Ok(None) => {}
                Err((path, source)) => errors.push_back(walk_error(&path, &source)),
            }
        }
        // Every path of one directory is its path, a separator and a name: their bytes sort
        // as the names do.
        entries.sort_unstable_by(|a, b| b.path().as_os_str().cmp(a.path().as_os_str()));
        Ok(entries)
    }

    /// The entry the walk takes `entry` as, if it does: a file, or a directory to walk.
    fn take(&self, entry: fs::DirEntry) -> Result<Option<Entry>, (PathBuf, io::Error)> {
        let path = entry.path();
        // The name as the path ends with it: no copy of its own.
        let name = path
            .file_name()
            .map_or(&b""[..], |name| name.as_encoded_bytes());
        if name == b".git" || (!self.hidden && name.starts_with(b".")) {
            return Ok(None);
        }
        let mut file_type = entry.file_type().map_err(|e| (path.clone(), e))?;
        let mut metadata = None;
        if self.follow_links && file_type.is_symlink() {
            let target = match fs::metadata(&path) {
                Ok(target) => target,
                // A link to nothing is no directory: an error only where a file of its name
                // would be walked.
                Err(_) if self.overrides.matched(&path, false).is_ignore() => return Ok(None),
                Err(source) => return Err((path, source)),
            };
            file_type = target.file_type();
            metadata = Some(target);
        }
        let is_dir = file_type.is_dir();
        if !is_dir && !file_type.is_file() {
            return Ok(None);
        }
        if self.overrides.matched(&path, is_dir).is_ignore() {
            return Ok(None);
        }
        if !is_dir {
            let backup = (self.backup_suffix.as_deref())
                .is_some_and(|suffix| is_backup_of_sibling(&path, suffix));
            return Ok((!backup).then_some(Entry::File(path)));
        }
        // A directory's identity, for the output directory and, when links are followed,
        // against loops.
        let id = match (self.output_dir.is_some() || self.follow_links, metadata) {
            (false, _) => None,
            (true, Some(metadata)) => Some(file_id(&metadata)),
            (true, None) => fs::metadata(&path).ok().map(|m| file_id(&m)),
        };
        if self.output_dir.is_some() && id == self.output_dir {
            return Ok(None);
        }
        let id = id.filter(|_| self.follow_links);
        Ok(Some(Entry::Dir(path, id)))
    }
}

/// An error reading `path` during a walk.
fn walk_error(path: &Path, source: &io::Error) -> Error {
    Error::Walk {
        path: path.to_path_buf(),
        message: source.to_string(),
    }
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
        let found: Vec<PathBuf> = found
            .into_iter()
            .map(|f| f.input.display_path().to_path_buf())
            .collect();
        assert_eq!(found, expected);
    }

    /// The names of `items` relative to `root`, errors as `error: NAME` for the path they
    /// name.
    fn outline(root: &Path, items: impl Iterator<Item = Result<Found, Error>>) -> Vec<String> {
        let relative = |path: &Path| {
            let path = path.strip_prefix(root).unwrap_or(path);
            path.display().to_string()
        };
        items
            .map(|item| match item {
                Ok(found) => relative(found.input.display_path()),
                Err(Error::Walk { path, .. }) => format!("error: {}", relative(&path)),
                Err(other) => format!("error: {other}"),
            })
            .collect()
    }

    fn make_files(root: &Path, names: &[&str]) {
        for name in names {
            let path = root.join(name);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            std::fs::write(&path, b"x").expect("write");
        }
    }

    #[test]
    fn a_directory_is_read_when_the_walk_reaches_it() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        make_files(root, &["a/1", "b/1"]);
        let mut walk = walk(&[root.to_path_buf()], &WalkOptions::default());
        let first = walk.next().expect("a file").expect("no error");
        assert_eq!(first.input.display_path(), root.join("a/1"));
        // Made after the walk started, before it reached `b`: found, as it would not be had
        // the whole tree been listed first.
        std::fs::write(root.join("b/2"), b"x").expect("write");
        assert_eq!(outline(root, walk), ["b/1", "b/2"]);
    }

    #[test]
    fn links_are_followed_once_and_a_loop_is_told_in_its_place() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        make_files(root, &["a/x", "c/k", "d/y"]);
        std::os::unix::fs::symlink("../a", root.join("c/into_a")).expect("symlink");
        std::os::unix::fs::symlink("..", root.join("c/loop")).expect("symlink");
        std::os::unix::fs::symlink("nowhere", root.join("c/broken")).expect("symlink");
        std::os::unix::fs::symlink("../d/y", root.join("c/to_y")).expect("symlink");
        let args = [root.to_path_buf()];
        // Not followed, a link is neither a file nor a directory to walk.
        let unfollowed = walk(&args, &WalkOptions::default());
        assert_eq!(outline(root, unfollowed), ["a/x", "c/k", "d/y"]);

        let follow = WalkOptions {
            follow_links: true,
            ..WalkOptions::default()
        };
        assert_eq!(
            outline(root, walk(&args, &follow)),
            [
                "a/x",
                "error: c/broken",
                "c/into_a/x",
                "c/k",
                "error: c/loop",
                "c/to_y",
                "d/y"
            ]
        );
        // A link to nothing is told only where a file of its name would be walked.
        let globbed = WalkOptions {
            globs: vec!["y".into(), "x".into()],
            ..follow
        };
        assert_eq!(
            outline(root, walk(&args, &globbed)),
            ["a/x", "c/into_a/x", "error: c/loop", "d/y"]
        );
        let (found, errors) = expand(&args, &globbed);
        assert_eq!((found.len(), errors.len()), (3, 1));
        let message = errors[0].to_string();
        assert!(message.contains("loop") && message.contains(&root.display().to_string()));
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
