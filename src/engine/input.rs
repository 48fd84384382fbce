//! What an input is, and the one way every part of a run looks at it.
//!
//! A regular file can be looked at as often as a run likes: its head for the binary sniff, the
//! dump header and the classification, then the whole of it, mapped or read. Anything else
//! (standard input, `-`, a FIFO such as `<(zcat dump.sql.gz)`, `/dev/stdin`) can be read only
//! once: a second `open` of a FIFO path finds the bytes the first one left, and a peek at
//! standard input sees what one read happened to return. So such an input is a [`Stream`],
//! opened once; its head is read into a buffer the first time anything asks for it, every later
//! look at the head is served from that buffer, and the pass over the whole input reads the
//! buffer and then the rest of the stream. Whatever the path, every part of a run sees the same
//! bytes, and none is lost.
//!
//! A character device other than a terminal or `/dev/null` (`/dev/zero`, `/dev/urandom`) is
//! refused when it is opened: it never ends, and a run on it would never finish.

use std::fs::{self, File};
use std::io::{self, Cursor, Read};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use crate::error::Error;

/// Where bytes come from: a regular file, or a stream read once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// A regular file (or a path that names nothing yet: opening it reports the error).
    File(PathBuf),
    /// Standard input, a FIFO, a terminal: read once, front to back.
    Stream(Stream),
}

impl Input {
    /// Standard input.
    pub fn stdin() -> Input {
        Input::Stream(Stream::new(StreamSource::Stdin))
    }

    /// A stream read from `reader`, named `name` in reports and errors: what a program hands
    /// over that is no file (a decompressor, a socket).
    pub fn reader(name: impl Into<PathBuf>, reader: impl Read + Send + 'static) -> Input {
        let state = State {
            reader: Some(Box::new(reader)),
            opened: true,
            ..State::default()
        };
        Input::Stream(Stream::with_state(StreamSource::Named(name.into()), state))
    }

    /// Bytes already in memory, as a stream named `<bytes>`: its head is the bytes themselves.
    pub fn from_bytes(bytes: impl Into<Vec<u8>>) -> Input {
        Input::in_memory(PathBuf::from("<bytes>"), Arc::new(bytes.into()))
    }

    /// Bytes already in memory, named `name` in reports and errors: a whole file read once
    /// (its head held all of it), scanned without opening it again.
    pub(crate) fn in_memory(name: PathBuf, bytes: Arc<Vec<u8>>) -> Input {
        let state = State {
            opened: true,
            head: bytes,
            ended: true,
            ..State::default()
        };
        Input::Stream(Stream::with_state(StreamSource::Named(name), state))
    }

    /// Whether this is a file, read from its path.
    pub(crate) fn is_file(&self) -> bool {
        matches!(self, Input::File(_))
    }

    /// The input a command-line argument names: `-` is standard input, a path that is not a
    /// regular file (a FIFO, a device, `/dev/stdin`) is a stream, anything else a file.
    pub fn from_arg(arg: &Path) -> Input {
        if arg == Path::new("-") {
            return Input::stdin();
        }
        match fs::metadata(arg) {
            Ok(metadata) if !metadata.is_file() && !metadata.is_dir() => {
                Input::Stream(Stream::new(StreamSource::Path(arg.to_path_buf())))
            }
            _ => Input::File(arg.to_path_buf()),
        }
    }

    /// True for standard input itself (not a FIFO path).
    pub(crate) fn is_stdin(&self) -> bool {
        matches!(self, Input::Stream(stream) if stream.0.source == StreamSource::Stdin)
    }

    /// The name used in reports: the path, or `-` for standard input.
    pub(crate) fn display_path(&self) -> &Path {
        match self {
            Input::File(path) => path,
            Input::Stream(stream) => stream.name(),
        }
    }

    /// The first `limit` bytes of the input (fewer when it is shorter), without consuming
    /// anything: a file is read from its start, a stream's head is buffered once and served
    /// from that buffer to every caller.
    pub(crate) fn head(&self, limit: usize) -> Result<Vec<u8>, Error> {
        match self {
            Input::File(path) => {
                let open_error = |source| Error::Open {
                    path: path.clone(),
                    source,
                };
                let file = File::open(path).map_err(open_error)?;
                let mut head = Vec::with_capacity(limit.min(1 << 20));
                file.take(limit as u64)
                    .read_to_end(&mut head)
                    .map_err(|source| Error::Read {
                        path: path.clone(),
                        offset: 0,
                        source,
                    })?;
                Ok(head)
            }
            Input::Stream(stream) => stream.head(limit),
        }
    }
}

/// What a stream reads.
#[derive(Clone, Debug, PartialEq, Eq)]
enum StreamSource {
    Stdin,
    Path(PathBuf),
    /// A reader or bytes handed over by a program, under the name it gave.
    Named(PathBuf),
}

/// An input read once: its head is kept for every look at it, and the pass over the whole of
/// it reads that head and then the rest. Clones share the one stream.
#[derive(Clone)]
pub struct Stream(Arc<Shared>);

struct Shared {
    source: StreamSource,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// Opened (or refused) on first use, so that naming a FIFO opens it only when it is read.
    reader: Option<Box<dyn Read + Send>>,
    opened: bool,
    /// The bytes read before the pass, from the start; shared with the pass when they are
    /// the whole stream ([`Stream::held`]).
    head: Arc<Vec<u8>>,
    /// The end of the stream was reached while the head was read.
    ended: bool,
    /// The pass over the whole stream has started: it cannot be read again.
    taken: bool,
    /// Standard input when it is a regular file read from its start (`< dump.sql`).
    regular_file: Option<File>,
}

impl Stream {
    fn new(source: StreamSource) -> Stream {
        Stream::with_state(source, State::default())
    }

    fn with_state(source: StreamSource, state: State) -> Stream {
        Stream(Arc::new(Shared {
            source,
            state: Mutex::new(state),
        }))
    }

    /// The name in reports: `-` for standard input, or the path given.
    pub(crate) fn name(&self) -> &Path {
        match &self.0.source {
            StreamSource::Stdin => Path::new("-"),
            StreamSource::Path(path) | StreamSource::Named(path) => path,
        }
    }

    fn state(&self) -> Result<MutexGuard<'_, State>, Error> {
        self.0
            .state
            .lock()
            .map_err(|_| Error::Internal(format!("{}: a reader crashed", self.name().display())))
    }

    /// The first `limit` bytes (fewer if the stream ends before), read into the kept head as
    /// far as needed. Once the pass has started, the head read before it is all there is: what
    /// looks at the head during the pass asks for it before.
    pub(crate) fn head(&self, limit: usize) -> Result<Vec<u8>, Error> {
        let mut state = self.state()?;
        self.open(&mut state)?;
        let state = &mut *state;
        if !state.taken {
            while !state.ended && state.head.len() < limit {
                let Some(reader) = state.reader.as_mut() else {
                    break;
                };
                // Not shared yet: only a stream that has ended is.
                let head = Arc::make_mut(&mut state.head);
                let filled = head.len();
                let want = (limit - filled).clamp(1 << 16, 1 << 22);
                head.resize(filled + want, 0);
                match reader.read(&mut head[filled..]) {
                    Ok(0) => {
                        head.truncate(filled);
                        state.ended = true;
                    }
                    Ok(n) => head.truncate(filled + n),
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => head.truncate(filled),
                    Err(source) => {
                        head.truncate(filled);
                        return Err(Error::Read {
                            path: self.name().to_path_buf(),
                            offset: filled as u64,
                            source,
                        });
                    }
                }
            }
        }
        Ok(state.head[..state.head.len().min(limit)].to_vec())
    }

    /// The whole stream, when all of it is already held (bytes in memory, or a stream that
    /// ended within its head) and it has not been read: the pass over it, without a copy. The
    /// head stays for the looks at it that come during the pass, as with
    /// [`Stream::read_once`].
    pub(crate) fn held(&self) -> Result<Option<Arc<Vec<u8>>>, Error> {
        let mut state = self.state()?;
        if !(state.opened && state.ended && !state.taken) {
            return Ok(None);
        }
        state.taken = true;
        Ok(Some(Arc::clone(&state.head)))
    }

    /// Standard input redirected from a regular file longer than `min_len`, from the file's
    /// start, when nothing has passed over it yet: the pass can map it as the file it is
    /// instead of reading it through. The stream is taken, as [`Stream::read_once`] takes it;
    /// the file's offset is where the head's reads left it.
    pub(crate) fn take_regular_file(&self, min_len: u64) -> Result<Option<(File, u64)>, Error> {
        let mut state = self.state()?;
        self.open(&mut state)?;
        let Some(file) = state.regular_file.as_ref().filter(|_| !state.taken) else {
            return Ok(None);
        };
        let error = |source| Error::Open {
            path: self.name().to_path_buf(),
            source,
        };
        let len = file.metadata().map_err(error)?.len();
        if len <= min_len {
            return Ok(None);
        }
        let file = file.try_clone().map_err(error)?;
        state.taken = true;
        Ok(Some((file, len)))
    }

    /// The whole stream, from its first byte: the kept head, then the rest. A stream is read
    /// whole once; a second pass is an error naming it.
    pub(crate) fn read_once(&self) -> Result<Box<dyn Read + Send>, Error> {
        let mut state = self.state()?;
        self.open(&mut state)?;
        if state.taken {
            return Err(Error::Usage(format!(
                "{}: a pipe or standard input can be read only once, and this needs a second \
                 pass over it (give it as a regular file)",
                self.name().display()
            )));
        }
        state.taken = true;
        // The head stays for the looks at it that come during the pass (a dump's UTF-8 gate).
        let head = Cursor::new(state.head.to_vec());
        Ok(match state.reader.take() {
            Some(rest) if !state.ended => Box::new(head.chain(rest)),
            _ => Box::new(head),
        })
    }

    fn open(&self, state: &mut State) -> Result<(), Error> {
        if state.opened {
            return Ok(());
        }
        state.opened = true;
        let name = self.name();
        let open_error = |source| Error::Open {
            path: name.to_path_buf(),
            source,
        };
        let (file, reader): (File, Box<dyn Read + Send>) = match &self.0.source {
            StreamSource::Stdin => {
                let mut file = stdin_file().map_err(open_error)?;
                let from_start = (file.metadata().map_err(open_error)?).is_file()
                    && io::Seek::stream_position(&mut file).map_err(open_error)? == 0;
                if from_start {
                    state.regular_file = Some(file.try_clone().map_err(open_error)?);
                }
                (file, Box::new(io::stdin()))
            }
            StreamSource::Path(path) => {
                let file = File::open(path).map_err(open_error)?;
                let read = file.try_clone().map_err(open_error)?;
                (file, Box::new(read))
            }
            // Opened when it was made.
            StreamSource::Named(_) => return Ok(()),
        };
        refuse_endless(&file).map_err(open_error)?;
        state.reader = Some(reader);
        Ok(())
    }
}

/// Standard input as a file, to look at what it is.
fn stdin_file() -> io::Result<File> {
    use std::os::fd::AsFd;
    Ok(File::from(io::stdin().as_fd().try_clone_to_owned()?))
}

/// Refuses a character device that is neither a terminal nor `/dev/null`: `/dev/zero` and its
/// kind never end.
fn refuse_endless(file: &File) -> io::Result<()> {
    use std::io::IsTerminal;
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let metadata = file.metadata()?;
    let dev_null = fs::metadata("/dev/null").map(|m| m.rdev()).ok();
    if metadata.file_type().is_char_device()
        && !file.is_terminal()
        && Some(metadata.rdev()) != dev_null
    {
        return Err(io::Error::other(
            "a character device that is no terminal: refused, since it may never end",
        ));
    }
    Ok(())
}

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Stream").field(&self.name()).finish()
    }
}

/// Two streams are the same input when they are the same stream.
impl PartialEq for Stream {
    fn eq(&self, other: &Stream) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for Stream {}

#[cfg(test)]
mod tests {
    use super::*;

    fn fifo_with(
        bytes: &'static [u8],
    ) -> (tempfile::TempDir, PathBuf, std::thread::JoinHandle<()>) {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("fifo");
        let status = std::process::Command::new("mkfifo")
            .arg(&path)
            .status()
            .expect("mkfifo");
        assert!(status.success());
        let writer_path = path.clone();
        let writer = std::thread::spawn(move || {
            use std::io::Write;
            let mut fifo = File::options()
                .write(true)
                .open(writer_path)
                .expect("open fifo");
            fifo.write_all(bytes).expect("write fifo");
        });
        (dir, path, writer)
    }

    #[test]
    fn a_fifo_is_a_stream_whose_head_is_kept_for_the_pass() {
        let (_dir, path, writer) = fifo_with(b"-- MySQL dump\nhello\n");
        let input = Input::from_arg(&path);
        assert!(matches!(input, Input::Stream(_)));
        assert_eq!(input.head(4).unwrap(), b"-- M");
        assert_eq!(input.head(1000).unwrap(), b"-- MySQL dump\nhello\n");
        let Input::Stream(stream) = &input else {
            unreachable!()
        };
        let mut all = Vec::new();
        stream.read_once().unwrap().read_to_end(&mut all).unwrap();
        assert_eq!(all, b"-- MySQL dump\nhello\n");
        assert!(stream.read_once().is_err(), "a stream is read once");
        writer.join().unwrap();
    }

    /// Bytes held whole are handed over as they are, once, and their head is still served
    /// after; a stream whose end has not been seen is not held.
    #[test]
    fn only_a_stream_held_whole_is_handed_over_whole() {
        let input = Input::from_bytes("caf\u{c3}\u{a9}");
        let Input::Stream(bytes) = &input else {
            panic!("bytes are a stream")
        };
        let held = bytes.held().unwrap().expect("held whole");
        assert_eq!(held.as_slice(), "caf\u{c3}\u{a9}".as_bytes());
        assert!(bytes.held().unwrap().is_none(), "handed over once");
        assert!(bytes.read_once().is_err(), "read once, whichever way");
        assert_eq!(input.head(3).unwrap(), b"caf", "the head stays");
        let (_dir, path, writer) = fifo_with(b"-- MySQL dump\nhello\n");
        let input = Input::from_arg(&path);
        let Input::Stream(fifo) = &input else {
            panic!("a FIFO is a stream")
        };
        assert!(fifo.held().unwrap().is_none(), "nothing read yet");
        input.head(4).unwrap();
        assert!(fifo.held().unwrap().is_none(), "its end not seen");
        input.head(1000).unwrap();
        let held = fifo.held().unwrap().expect("ended within the head");
        assert_eq!(held.as_slice(), b"-- MySQL dump\nhello\n");
        assert!(fifo.held().unwrap().is_none(), "taken");
        writer.join().unwrap();
    }

    #[test]
    fn a_stream_never_looked_at_is_read_whole() {
        let (_dir, path, writer) = fifo_with(b"abc");
        let Input::Stream(stream) = Input::from_arg(&path) else {
            panic!("a FIFO is a stream")
        };
        let mut all = Vec::new();
        stream.read_once().unwrap().read_to_end(&mut all).unwrap();
        assert_eq!(all, b"abc");
        writer.join().unwrap();
    }

    #[test]
    fn endless_devices_are_refused_and_dev_null_is_empty() {
        let zero = Input::from_arg(Path::new("/dev/zero"));
        let error = zero.head(10).unwrap_err().to_string();
        assert!(
            error.contains("/dev/zero") && error.contains("never end"),
            "{error}"
        );
        assert!(
            Input::from_arg(Path::new("/dev/null"))
                .head(10)
                .unwrap()
                .is_empty()
        );
    }
}
