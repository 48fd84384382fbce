//! What the fuzz tests share: a small seeded random generator, byte-level mutations of seed
//! inputs, and a runner that gives every input a deadline.
//!
//! An input that panics or runs past its deadline fails the test, and is first saved under
//! the target's directory of found inputs so that it can be replayed and kept as a regression
//! file.

#![allow(dead_code)]

use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

/// Xorshift64*: fast, seeded, and the same sequence on every machine.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number below `bound` (0 if `bound` is 0).
    pub fn below(&mut self, bound: usize) -> usize {
        match bound {
            0 => 0,
            _ => (self.next_u64() % bound as u64) as usize,
        }
    }

    /// True once in `n` times.
    pub fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    pub fn byte(&mut self) -> u8 {
        self.next_u64() as u8
    }
}

/// Changes `input` in place by one to eight random edits: bytes flipped, inserted or deleted,
/// a token of `dictionary` inserted or written over, a range deleted, repeated or replaced by
/// a piece of `other`, the input cut short.
pub fn mutate(rng: &mut Rng, input: &mut Vec<u8>, dictionary: &[&[u8]], other: &[u8]) {
    for _ in 0..1 + rng.below(8) {
        let at = rng.below(input.len() + 1);
        match rng.below(10) {
            0 if at < input.len() => input[at] ^= 1 << rng.below(8),
            1 => input.insert(at, rng.byte()),
            2 if at < input.len() => {
                input.remove(at);
            }
            3 | 4 => {
                let token = rng.pick(dictionary);
                input.splice(at..at, token.iter().copied());
            }
            5 => {
                let token = rng.pick(dictionary);
                let end = (at + token.len()).min(input.len());
                input.splice(at..end, token.iter().copied());
            }
            6 => {
                let end = (at + 1 + rng.below(64)).min(input.len());
                input.drain(at..end);
            }
            7 => {
                let end = (at + 1 + rng.below(64)).min(input.len());
                let piece = input[at..end].to_vec();
                for _ in 0..1 + rng.below(4) {
                    input.splice(at..at, piece.iter().copied());
                }
            }
            8 if !other.is_empty() => {
                let from = rng.below(other.len());
                let to = (from + 1 + rng.below(256)).min(other.len());
                input.splice(at..at, other[from..to].iter().copied());
            }
            _ => input.truncate(at),
        }
    }
}

/// How long a fuzz run goes on: a fixed number of inputs per target with a fixed seed (the
/// run of the test suite), or, with `UNDOUBLE_FUZZ_SECONDS`, that many seconds per target with
/// a random seed. `UNDOUBLE_FUZZ_SEED` sets the seed either way.
pub struct Budget {
    pub seed: u64,
    pub inputs: Option<u64>,
    pub until: Option<Instant>,
}

impl Budget {
    pub fn from_env(inputs: u64) -> Budget {
        let seconds = std::env::var("UNDOUBLE_FUZZ_SECONDS")
            .ok()
            .and_then(|s| s.parse::<u64>().ok());
        let seed = std::env::var("UNDOUBLE_FUZZ_SEED")
            .ok()
            .and_then(|s| s.parse::<u64>().ok());
        match seconds {
            Some(seconds) => Budget {
                seed: seed.unwrap_or_else(random_seed),
                inputs: None,
                until: Some(Instant::now() + Duration::from_secs(seconds)),
            },
            None => Budget {
                seed: seed.unwrap_or(0x5eed_f0d5_1a7e_c0de),
                inputs: Some(inputs),
                until: None,
            },
        }
    }

    /// Whether the `done`-th input (from 0) is still to be run.
    pub fn goes_on(&self, done: u64) -> bool {
        self.inputs.is_none_or(|n| done < n) && self.until.is_none_or(|t| Instant::now() < t)
    }
}

fn random_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| d.as_nanos() as u64);
    nanos ^ u64::from(std::process::id()) << 32
}

/// Runs `check` on inputs, each on a worker thread that must answer within `deadline`.
pub struct Runner {
    target: &'static str,
    deadline: Duration,
    check: Check,
    work: mpsc::Sender<Vec<u8>>,
    answers: mpsc::Receiver<Result<(), String>>,
}

impl Runner {
    pub fn new(
        target: &'static str,
        deadline: Duration,
        check: impl Fn(&[u8]) + Send + Sync + 'static,
    ) -> Runner {
        let check: Check = Arc::new(check);
        let (work, answers) = worker(check.clone());
        Runner {
            target,
            deadline,
            check,
            work,
            answers,
        }
    }

    /// Runs `input`; if it panics or runs past the deadline, saves it and says so (a worker
    /// left stuck in a hang is replaced by a fresh one).
    pub fn run(&mut self, input: &[u8]) -> Result<(), String> {
        let sent = self.work.send(input.to_vec());
        let failure = match sent.map(|()| self.answers.recv_timeout(self.deadline)) {
            Ok(Ok(Ok(()))) => return Ok(()),
            Ok(Ok(Err(message))) => format!("panicked: {message}"),
            Ok(Err(RecvTimeoutError::Timeout)) => {
                (self.work, self.answers) = worker(self.check.clone());
                format!("did not finish within {:?}", self.deadline)
            }
            Ok(Err(RecvTimeoutError::Disconnected)) | Err(_) => {
                (self.work, self.answers) = worker(self.check.clone());
                "stopped its worker".into()
            }
        };
        let saved = save_found(self.target, input);
        Err(format!(
            "{}: an input of {} bytes {failure}; saved to {} (copy it to tests/data/fuzz/{}/ \
             to keep it as a regression input)",
            self.target,
            input.len(),
            saved.display(),
            self.target
        ))
    }
}

type Answers = mpsc::Receiver<Result<(), String>>;

/// What a target runs on each input.
type Check = Arc<dyn Fn(&[u8]) + Send + Sync>;

/// A thread that runs `check` on every input sent to it, and answers whether it panicked.
fn worker(check: Check) -> (mpsc::Sender<Vec<u8>>, Answers) {
    let (work, inputs) = mpsc::channel::<Vec<u8>>();
    let (answer, answers) = mpsc::channel();
    std::thread::spawn(move || {
        for input in inputs {
            let outcome = panic::catch_unwind(AssertUnwindSafe(|| check(&input)));
            let outcome = outcome.map_err(|payload| {
                payload
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_else(|| "a panic".into())
            });
            if answer.send(outcome).is_err() {
                return;
            }
        }
    });
    (work, answers)
}

/// Saves a failing input under the build's temporary directory; returns its path.
fn save_found(target: &str, input: &[u8]) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("fuzz-found")
        .join(target);
    let _ = std::fs::create_dir_all(&dir);
    // FNV-1a names the input by its bytes, so that the same input is saved once.
    let hash = input.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    let path = dir.join(format!("{hash:016x}"));
    let _ = std::fs::write(&path, input);
    path
}

/// The regression inputs kept for `target` (`tests/data/fuzz/<target>/*`), in name order.
pub fn regression_inputs(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/fuzz")
        .join(target);
    let mut paths: Vec<PathBuf> = match std::fs::read_dir(&dir) {
        Ok(entries) => entries.filter_map(|e| e.ok().map(|e| e.path())).collect(),
        Err(_) => Vec::new(),
    };
    paths.sort();
    paths
        .into_iter()
        .filter_map(|path| std::fs::read(&path).ok().map(|bytes| (path, bytes)))
        .collect()
}

/// The files of the checkout at `relative` (a directory: its regular files; a file: itself).
pub fn checkout_files(relative: &str) -> Vec<Vec<u8>> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(relative);
    if path.is_file() {
        return std::fs::read(&path).into_iter().collect();
    }
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&path)
        .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    paths.sort();
    paths
        .into_iter()
        .filter(|p| p.is_file())
        .filter_map(|p| std::fs::read(p).ok())
        .collect()
}
