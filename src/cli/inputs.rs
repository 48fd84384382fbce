//! The options every scanning command shares: which inputs (paths, directory walking), how
//! they are read (memory map or not, threads, the schema of dumps that hold only data) and
//! whether progress is shown.

use std::io::{BufWriter, IsTerminal, Write};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;

use super::{Detection, Outcome};
use crate::Error;
use crate::api::Settings;
use crate::dump::{Definitions, Format};
use crate::engine::walk::{self, Found, Walk, WalkOptions};
use crate::engine::{self, EngineOptions, Input, Progress};

/// Inputs, and how to read them.
#[derive(Args, Clone, Debug)]
pub(crate) struct Selection {
    /// Files or directories (walked recursively); none, or `-`, reads standard input.
    pub(crate) paths: Vec<PathBuf>,
    /// Worker threads (default: one per core). Results are the same whatever the number.
    #[arg(short = 'j', long = "threads")]
    threads: Option<usize>,
    /// Read files instead of memory-mapping them.
    #[arg(long)]
    no_mmap: bool,
    /// Include files that look binary (a NUL byte in their first 8 KiB); skipped otherwise.
    #[arg(long)]
    binary: bool,
    /// Walk hidden files and directories too (`.git` is always skipped).
    #[arg(long)]
    hidden: bool,
    /// Follow symbolic links while walking.
    #[arg(long)]
    follow: bool,
    /// Only walk files matching this glob (repeatable).
    #[arg(long = "glob")]
    globs: Vec<String>,
    /// Skip files matching this glob while walking (repeatable).
    #[arg(long = "exclude")]
    excludes: Vec<String>,
    /// A dump of the schema (mariadb-dump --no-data, pg_dump --schema-only) whose CREATE TABLE
    /// statements tell which columns of a dump holding only data (--no-create-info,
    /// --data-only) are text (repeatable). Read, never changed; a table a dump defines itself
    /// is read as it defines it.
    #[arg(long = "schema", value_name = "FILE")]
    schemas: Vec<PathBuf>,
    /// No progress bar and no summary on standard error.
    #[arg(short, long)]
    pub(crate) quiet: bool,
    /// What the run writes beside its inputs, which the walk skips (set by `fix`).
    #[arg(skip)]
    pub(crate) outputs: walk::RunOutputs,
}

/// The inputs a selection names, ready to be processed.
pub(crate) struct Prepared {
    inputs: Inputs,
    /// Whether a directory was named: each of its files gets a line of its own.
    pub(crate) tree: bool,
    pub(crate) engine: EngineOptions,
    /// The bar `engine` advances, shown when standard error is a terminal.
    bar: Option<ProgressBar>,
    pub(crate) pool: rayon::ThreadPool,
    pub(crate) skip_binary: bool,
}

/// When a selection's inputs are found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Listing {
    /// As they are processed, walk and work overlapping.
    AsProcessed,
    /// All of them before any is processed: for a command that checks them all first, or
    /// asks how many there are. (A progress bar over files named on the command line lists
    /// them whole, for their total size; over a tree it shows the bytes done as the walk goes,
    /// with no total.)
    Whole,
}

/// A selection's inputs, as its [`Listing`] finds them.
enum Inputs {
    /// All of them, found first.
    Listed(Vec<Found>),
    /// The walk that finds them as [`Prepared::each_in_order`] (called once) processes them:
    /// the first files of a tree are processed while the rest is still to be walked, and a
    /// tree is never held whole.
    Walking(Mutex<Option<Box<Walk>>>),
}

/// What [`Prepared::each_in_order`] reports, in the walk's order.
pub(crate) enum Reported<'a, T> {
    /// An input, and what became of it.
    Input(&'a Found, T),
    /// What the walk could not read (a directory, a link), in its place among the inputs.
    WalkFailed(Error),
}

impl Selection {
    /// The prepared inputs, and the settings `scan` and `fix` build their inspector and fixer
    /// with: how `detection` judges text, inputs read in `format`, with the tables of the
    /// `--schema` dumps, the memory maps, progress bar and binary files the selection asks for.
    pub(crate) fn start(
        &self,
        detection: &Detection,
        format: Format,
        listing: Listing,
        outcome: &mut Outcome,
    ) -> Result<(Settings, Prepared), Error> {
        let judged = detection.settings()?;
        let prepared = self.prepare(listing, outcome)?;
        let engine = EngineOptions {
            progress: None,
            ..prepared.engine.clone()
        };
        let definitions = Definitions::read(&self.schemas, &judged.readings, &engine)?;
        let settings = Settings {
            format,
            schema: definitions.map(Arc::new),
            mmap: prepared.engine.mmap,
            progress: prepared.engine.progress.clone(),
            binary: !prepared.skip_binary,
            range: None,
            ..judged
        };
        Ok((settings, prepared))
    }

    /// Sets up the walk of the paths (with [`Listing::Whole`], walks them, reporting its
    /// errors into `outcome`), sizes the thread pool and, when standard error is a terminal,
    /// sets up the progress bar.
    pub(crate) fn prepare(
        &self,
        listing: Listing,
        outcome: &mut Outcome,
    ) -> Result<Prepared, Error> {
        let options = WalkOptions {
            hidden: self.hidden,
            follow_links: self.follow,
            globs: self.globs.clone(),
            excludes: self.excludes.clone(),
            outputs: self.outputs.clone(),
        };
        let stdin = |path: &PathBuf| path.as_os_str() == "-";
        let reads_stdin = self.paths.is_empty() || self.paths.iter().any(stdin);
        let tree = self.paths.iter().any(|path| !stdin(path) && path.is_dir());
        let shows_bar = !self.quiet && std::io::stderr().is_terminal();
        // A bar towards the total size of the named files; a tree is not walked whole for one
        // (its first file would wait for the whole walk, and a stat of every file).
        let listing = match shows_bar && !tree {
            true => Listing::Whole,
            false => listing,
        };
        let inputs = match listing {
            Listing::Whole => {
                let (found, errors) = walk::expand(&self.paths, &options);
                for error in &errors {
                    outcome.error(error);
                }
                Inputs::Listed(found)
            }
            Listing::AsProcessed => Inputs::Walking(Mutex::new(Some(Box::new(walk::walk(
                &self.paths,
                &options,
            ))))),
        };
        let mut pool = rayon::ThreadPoolBuilder::new();
        if let Some(threads) = self.threads {
            pool = pool.num_threads(threads.max(1));
        }
        let pool = pool
            .build()
            .map_err(|e| Error::Usage(format!("cannot start worker threads: {e}")))?;
        let bar = match &inputs {
            _ if !shows_bar => None,
            Inputs::Listed(found) => Some(progress_bar(total_size(found))),
            Inputs::Walking(_) => Some(progress_bar(None)),
        };
        let typed = reads_stdin && std::io::stdin().is_terminal();
        if typed && !self.quiet {
            // Otherwise the run seems to hang: it waits for what is typed.
            eprintln!("undouble: reading standard input from the terminal (Ctrl-D ends it)");
        }
        let progress = bar.clone().map(|bar| Arc::new(bar) as Arc<dyn Progress>);
        Ok(Prepared {
            inputs,
            tree,
            engine: EngineOptions {
                mmap: !self.no_mmap,
                progress,
                ..EngineOptions::default()
            },
            bar,
            pool,
            skip_binary: !self.binary,
        })
    }
}

/// The total size of `found`, unless one of them is of no known size (standard input, a FIFO).
fn total_size(found: &[Found]) -> Option<u64> {
    found
        .iter()
        .map(|f| match &f.input {
            Input::File(path) => std::fs::metadata(path)
                .ok()
                .filter(|m| m.is_file())
                .map(|m| m.len()),
            Input::Stream(_) => None,
        })
        .sum()
}

/// A bar of bytes done out of the `total` size of the inputs, with speed and time left; a
/// spinner with the bytes read and the speed when the total is not known (standard input, a
/// FIFO, a tree still being walked), since a bar towards a total that is not known, or an
/// ETA, would say something false.
fn progress_bar(total: Option<u64>) -> ProgressBar {
    let (bar, template) = match total {
        Some(total) => (
            ProgressBar::new(total),
            "{bar:40} {bytes}/{total_bytes} {bytes_per_sec} ETA {eta} {wide_msg}",
        ),
        None => (
            ProgressBar::no_length(),
            "{spinner} {bytes} read, {bytes_per_sec} {wide_msg}",
        ),
    };
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style);
    }
    if total.is_none() {
        // A stream may pause for long (a terminal, a slow pipe): the spinner turns on its own
        // so that a pause is not mistaken for a hang.
        bar.enable_steady_tick(std::time::Duration::from_millis(120));
    }
    bar
}

impl Prepared {
    /// Every input, when the selection was listed whole ([`Listing::Whole`], or a progress
    /// bar over named files); `None` when they are found as they are processed.
    pub(crate) fn listed(&self) -> Option<&[Found]> {
        match &self.inputs {
            Inputs::Listed(found) => Some(found),
            Inputs::Walking(_) => None,
        }
    }

    /// Shows the file being processed next to the bar.
    pub(crate) fn show(&self, input: &Input) {
        if let Some(bar) = &self.bar {
            bar.set_message(input.display_path().display().to_string());
        }
    }

    pub(crate) fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }

    /// Runs `process` on each input, on the pool's threads, and gives each result to `report`
    /// in the walk's order, as soon as it and every one before it are done; an error of the
    /// walk is reported in its place. The pool goes on with the next inputs while one is
    /// reported, a few per thread ahead of it (which bounds what is held): no thread waits
    /// for the report of a batch, or for the slowest input of one. The walk finds the inputs
    /// as they are started, on the thread that reports. `report` stops the run by returning
    /// [`Stopped`]: no input is started after that, and those under way are finished. A
    /// stream (a FIFO, standard input) is started only once every input before it is
    /// reported: opening one may wait for a writer that never comes, and the run must not wait
    /// for it after a report before it stopped.
    pub(crate) fn each_in_order<T: Send>(
        &self,
        process: impl Fn(&Found) -> T + Sync,
        mut report: impl FnMut(Reported<'_, T>) -> Result<(), Stopped> + Send,
    ) -> Result<(), Stopped> {
        let walk = match &self.inputs {
            Inputs::Walking(walk) => walk.lock().ok().and_then(|mut walk| walk.take()),
            Inputs::Listed(_) => None,
        };
        let listed = self.listed().unwrap_or_default().iter().cloned().map(Ok);
        let mut inputs = listed.chain(walk.into_iter().flatten()).peekable();
        // A stream goes alone; files, and the walk's errors, go together.
        let alone =
            |item: &Result<Found, Error>| matches!(item, Ok(found) if !found.input.is_file());
        self.pool.install(|| {
            while inputs.peek().is_some() {
                let files = std::iter::from_fn(|| inputs.next_if(|item| !alone(item)));
                self.in_order(files, &process, &mut report)?;
                if let Some(stream) = inputs.next_if(alone) {
                    self.in_order(std::iter::once(stream), &process, &mut report)?;
                }
            }
            Ok(())
        })
    }

    /// [`Prepared::each_in_order`] for inputs that may be processed together.
    fn in_order<T: Send>(
        &self,
        inputs: impl Iterator<Item = Result<Found, Error>>,
        process: &(impl Fn(&Found) -> T + Sync),
        report: &mut impl FnMut(Reported<'_, T>) -> Result<(), Stopped>,
    ) -> Result<(), Stopped> {
        // A task takes a batch of inputs, an array rather than a vector (what one thread
        // allocates and another frees costs the freeing thread a lock on the other's heap), and
        // processes them where they lie; another thread that has nothing to do takes a part of
        // the batch, so a few large files in one batch still go to every thread.
        let mut inputs = inputs.fuse();
        let batches = std::iter::from_fn(|| {
            let batch: [Batched<T>; FILES_PER_TASK] =
                std::array::from_fn(|_| inputs.next().map_or(Batched::None, Batched::Found));
            (!matches!(batch[0], Batched::None)).then_some(batch)
        });
        engine::in_order_in_parallel(
            batches,
            FILES_AHEAD_PER_THREAD.div_ceil(FILES_PER_TASK),
            |mut batch| {
                batch.as_mut_slice().par_iter_mut().for_each(|slot| {
                    if let Batched::Found(input) = std::mem::replace(slot, Batched::None) {
                        *slot = Batched::Processed(input.map(|found| {
                            self.show(&found.input);
                            let result = process(&found);
                            (found, result)
                        }));
                    }
                });
                Ok(batch)
            },
            |done| {
                done.into_iter().try_for_each(|slot| match slot {
                    Batched::Processed(Ok((found, result))) => {
                        report(Reported::Input(&found, result))
                    }
                    Batched::Processed(Err(error)) => report(Reported::WalkFailed(error)),
                    Batched::Found(_) | Batched::None => Ok(()),
                })
            },
        )
    }
}

/// One place in a batch of inputs: an input found (or the walk's error in its place), then
/// what processing it gave; none past the last input.
enum Batched<T> {
    Found(Result<Found, Error>),
    Processed(Result<(Found, T), Error>),
    None,
}

/// Inputs processed ahead of the one being reported, per thread of the pool.
const FILES_AHEAD_PER_THREAD: usize = 256;

/// Inputs one task of the pool takes: in a tree of small files, a task for each costs its
/// scheduling and its hand-over to the reporting thread more than the file.
const FILES_PER_TASK: usize = 16;

/// Standard output for the reports of [`Prepared::each_in_order`]: a line at a time on a
/// terminal, where each is shown as it comes; into a pipe or a file, in blocks, so that a tree
/// of small files is not a `write` per file (as `grep` and `ripgrep` do). Sendable: reports
/// are written on one of the pool's threads. Flushed when dropped, errors ignored then: flush
/// it to see them.
pub(crate) fn report_output() -> Box<dyn Write + Send> {
    let stdout = std::io::stdout();
    match stdout.is_terminal() {
        true => Box::new(stdout),
        false => Box::new(BufWriter::with_capacity(64 * 1024, stdout)),
    }
}

/// [`Prepared::each_in_order`] stopped before the last input: its report said so.
pub(crate) struct Stopped;

impl Progress for ProgressBar {
    fn advance(&self, bytes: u64) {
        self.inc(bytes);
    }
}
