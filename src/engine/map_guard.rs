//! Memory maps that survive the truncation of their file.
//!
//! Reading a page of a file's memory map that lies past the file's end raises `SIGBUS`, whose
//! default action ends the process: a file truncated by another process while it is mapped
//! would kill the whole run, with no message naming the file and the temporary files of every
//! repair under way left behind. Checking the file's length before reading leaves the moment
//! between the check and the read, and a block of megabytes is read over many milliseconds.
//!
//! So every map of an input is a [`GuardedMap`], registered in a fixed table of address ranges,
//! and a `SIGBUS` handler is installed once. When a read faults inside a registered map, the
//! handler marks that map faulted and maps anonymous zero pages over the rest of it, from the
//! faulting page to its end (the file lost them all: a truncation takes its tail), and returns,
//! so the read goes on, sees zeros and finishes. Whoever reads a map asks
//! [`GuardedMap::faulted`] before using what it computed from it: a faulted map is an error
//! naming the file ([`crate::error::Change::PageLost`]), and nothing read from it is used.
//!
//! What this guarantees: a truncation while a map is read never kills the process, and every
//! read that met a lost page is known. What it does not: a file changed in place without
//! becoming shorter (new bytes at the same offsets, or a truncation followed by a rewrite before
//! the page is read) raises no signal, and its map shows the new bytes, as a concurrent `read`
//! would; the identity of the input, checked before a replacement is committed, refuses that
//! case where it matters (a written file). A `SIGBUS` outside every registered map (a fault
//! that is a bug, or one sent by another process) is handed to the disposition that was there
//! before, which ends the process as it always did.
//!
//! The handler may neither allocate nor lock: the table is a fixed array of slots made of
//! atomics, each published under a sequence number (a seqlock), and the handler only loads
//! them, stores a flag and calls `mmap`, which on Linux is a system call safe in a handler. Off
//! Linux no handler is installed and [`GuardedMap::new`] declines, so inputs there are read,
//! not mapped.

use std::ops::Deref;

use memmap2::Mmap;

/// A read-only memory map of a file, registered with the `SIGBUS` handler while it lives.
pub(crate) struct GuardedMap {
    map: Mmap,
    #[cfg(target_os = "linux")]
    slot: &'static linux::Slot,
}

impl GuardedMap {
    /// Registers `map`; gives it back when it cannot be guarded (no handler could be
    /// installed, or as many maps as the table holds are already guarded), for the caller to
    /// read the file instead.
    pub(crate) fn new(map: Mmap) -> Result<GuardedMap, Mmap> {
        #[cfg(target_os = "linux")]
        {
            match linux::register(map.as_ptr() as usize, map.len()) {
                Some(slot) => Ok(GuardedMap { map, slot }),
                None => Err(map),
            }
        }
        #[cfg(not(target_os = "linux"))]
        {
            Err(map)
        }
    }

    /// The map itself, for advice to the kernel.
    pub(crate) fn map(&self) -> &Mmap {
        &self.map
    }

    /// Whether a read of this map met a page the file no longer has (and read zeros there).
    pub(crate) fn faulted(&self) -> bool {
        #[cfg(target_os = "linux")]
        {
            self.slot.faulted()
        }
        #[cfg(not(target_os = "linux"))]
        {
            false
        }
    }
}

impl Deref for GuardedMap {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.map
    }
}

impl Drop for GuardedMap {
    /// Unregisters the map before it is unmapped (when the field `map` is dropped, after this),
    /// so that the handler never takes a range that may be mapped again for something else.
    fn drop(&mut self) {
        #[cfg(target_os = "linux")]
        self.slot.release();
    }
}

#[cfg(target_os = "linux")]
mod linux {
    use std::sync::Once;
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering, fence};

    /// How many maps can be guarded at once. Files are processed a few per thread at a time;
    /// a map that finds no slot is not used (its file is read), so this bounds nothing else.
    const SLOTS: usize = 1024;

    /// One registered map: its address range, and whether a read in it faulted.
    pub(crate) struct Slot {
        /// Claimed by a map (only its owner then writes the fields below).
        taken: AtomicBool,
        /// Odd while `start` and `len` are being written; the handler trusts them only when it
        /// reads the same even number before and after them.
        sequence: AtomicUsize,
        start: AtomicUsize,
        len: AtomicUsize,
        faulted: AtomicBool,
    }

    impl Slot {
        const fn new() -> Slot {
            Slot {
                taken: AtomicBool::new(false),
                sequence: AtomicUsize::new(0),
                start: AtomicUsize::new(0),
                len: AtomicUsize::new(0),
                faulted: AtomicBool::new(false),
            }
        }

        fn publish(&self, start: usize, len: usize) {
            let sequence = self.sequence.load(Ordering::Relaxed);
            self.sequence.store(sequence + 1, Ordering::Relaxed);
            fence(Ordering::Release);
            self.start.store(start, Ordering::Relaxed);
            self.len.store(len, Ordering::Relaxed);
            self.faulted.store(false, Ordering::Relaxed);
            self.sequence.store(sequence + 2, Ordering::Release);
        }

        /// The range, if it was read whole (not while it was being written).
        fn range(&self) -> Option<(usize, usize)> {
            let before = self.sequence.load(Ordering::Acquire);
            if before % 2 == 1 {
                return None;
            }
            let (start, len) = (
                self.start.load(Ordering::Relaxed),
                self.len.load(Ordering::Relaxed),
            );
            fence(Ordering::Acquire);
            (self.sequence.load(Ordering::Relaxed) == before).then_some((start, len))
        }

        pub(crate) fn faulted(&self) -> bool {
            self.faulted.load(Ordering::SeqCst)
        }

        pub(crate) fn release(&self) {
            self.publish(0, 0);
            self.taken.store(false, Ordering::Release);
        }
    }

    static TABLE: [Slot; SLOTS] = [const { Slot::new() }; SLOTS];

    /// The page size, read once before the handler is installed (`sysconf` is not safe in it).
    static PAGE: AtomicUsize = AtomicUsize::new(0);

    /// The disposition of `SIGBUS` before ours, for the faults that are not ours.
    static PREVIOUS: OnceLock<libc::sigaction> = OnceLock::new();

    static INSTALL: Once = Once::new();
    static INSTALLED: AtomicBool = AtomicBool::new(false);

    /// Claims a slot for the map at `start` (`len` bytes), installing the handler first if no
    /// map did yet. `None` when there is no handler or no free slot.
    pub(crate) fn register(start: usize, len: usize) -> Option<&'static Slot> {
        INSTALL.call_once(|| INSTALLED.store(install(), Ordering::SeqCst));
        if !INSTALLED.load(Ordering::SeqCst) {
            return None;
        }
        let slot = TABLE.iter().find(|slot| {
            slot.taken
                .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
                .is_ok()
        })?;
        slot.publish(start, len);
        Some(slot)
    }

    /// Installs [`on_sigbus`]; false if that failed (maps are then not used).
    fn install() -> bool {
        // SAFETY: `sysconf` has no preconditions.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        let Ok(page) = usize::try_from(page) else {
            return false;
        };
        if !page.is_power_of_two() {
            return false;
        }
        PAGE.store(page, Ordering::SeqCst);
        // SAFETY: an all-zero `sigaction` is a valid value of this plain C struct (no handler,
        // empty mask, no flags); the one passed to the kernel is filled in below.
        let mut previous: libc::sigaction = unsafe { std::mem::zeroed() };
        // SAFETY: a null new action only queries the current one into `previous`, which is a
        // valid, writable `sigaction`.
        if unsafe { libc::sigaction(libc::SIGBUS, std::ptr::null(), &mut previous) } != 0 {
            return false;
        }
        // Stored before ours is installed, so that the handler always finds it.
        let _ = PREVIOUS.set(previous);
        // SAFETY: as above, all-zero is a valid `sigaction`.
        let mut action: libc::sigaction = unsafe { std::mem::zeroed() };
        action.sa_sigaction = on_sigbus as *const () as libc::sighandler_t;
        // SA_SIGINFO for the faulting address; SA_ONSTACK to run on the thread's alternate
        // signal stack where it has one (Rust's threads do), as a fault may come on a stack
        // near its end. SIGBUS stays blocked while the handler runs: a second fault in it
        // would be a bug, and it then ends the process.
        action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
        // SAFETY: `action.sa_mask` is a valid `sigset_t` to empty.
        unsafe { libc::sigemptyset(&mut action.sa_mask) };
        // SAFETY: `action` is a valid `sigaction` whose handler has the signature SA_SIGINFO
        // asks for and is async-signal-safe (see `on_sigbus`).
        unsafe { libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut()) == 0 }
    }

    /// Marks faulted every slot whose range holds `address`. Only the map being read can hold
    /// it: a map is unregistered before it is unmapped, and the seqlock skips a slot being
    /// written; marking more than one would only refuse a file more.
    fn mark_faulted(address: usize) -> Option<(usize, usize)> {
        let mut found = None;
        for slot in &TABLE {
            if let Some((start, len)) = slot.range()
                && address.wrapping_sub(start) < len
            {
                slot.faulted.store(true, Ordering::SeqCst);
                found = Some((start, len));
            }
        }
        found
    }

    /// Maps anonymous zero pages over the map at `start` (`len` bytes) from the page holding
    /// `address` to its end; false if the kernel refused.
    fn zero_from(address: usize, start: usize, len: usize) -> bool {
        let page = PAGE.load(Ordering::Relaxed);
        let from = address & !(page - 1);
        let end = (start + len).next_multiple_of(page);
        // SAFETY: [from, end) lies inside the registered map, a read-only mapping owned by a
        // `GuardedMap` that is alive (the fault came from a read through it) and unmapped only
        // after it is unregistered; replacing its pages with anonymous zero pages of the same
        // protection changes only what those pages read, which is then marked faulted and
        // never used. The unmap of the whole map later removes these pages too.
        let mapped = unsafe {
            libc::mmap(
                from as *mut libc::c_void,
                end - from,
                libc::PROT_READ,
                libc::MAP_FIXED | libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        mapped != libc::MAP_FAILED
    }

    extern "C" fn on_sigbus(signal: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
        // SAFETY: with SA_SIGINFO the kernel passes a valid `siginfo_t`; `si_addr` is the
        // faulting address for a signal the kernel raised (`si_code` > 0), which is checked
        // before the address is used.
        let (code, address) = unsafe { ((*info).si_code, (*info).si_addr() as usize) };
        // SAFETY: `__errno_location` returns this thread's `errno`, which the interrupted code
        // may be about to read: saved here, restored before returning.
        let errno = unsafe { *libc::__errno_location() };
        let ours = match code > 0 {
            true => {
                mark_faulted(address).is_some_and(|(start, len)| zero_from(address, start, len))
            }
            false => false,
        };
        if !ours {
            // Not a fault in a guarded map: the disposition from before ours takes it. A fault
            // happens again when the faulting instruction is retried on return; a signal sent
            // by a process is raised again (delivered once this handler returns).
            if let Some(previous) = PREVIOUS.get() {
                // SAFETY: `previous` is the disposition the kernel gave back at install.
                unsafe { libc::sigaction(signal, previous, std::ptr::null_mut()) };
            }
            if code <= 0 {
                // SAFETY: `raise` is async-signal-safe.
                unsafe { libc::raise(signal) };
            }
        }
        // SAFETY: as above.
        unsafe { *libc::__errno_location() = errno };
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::os::unix::fs::FileExt;

    use super::*;

    /// A file truncated under its map: the read sees zeros where the bytes were, the map says
    /// it faulted, and the process lives. Without the handler this test dies of SIGBUS.
    #[test]
    #[cfg(target_os = "linux")]
    fn a_read_past_a_truncation_gives_zeros_and_marks_the_map() {
        let mut file = tempfile::tempfile().unwrap();
        let page = 4096;
        file.write_all(&vec![b'x'; 64 * page]).unwrap();
        // SAFETY: the test truncates the file itself, which is what the guard is for.
        let map = unsafe { Mmap::map(&file) }.unwrap();
        let guarded = GuardedMap::new(map).ok().unwrap();
        assert_eq!(guarded[10 * page], b'x');
        assert!(!guarded.faulted());
        file.set_len(0).unwrap();
        let read: Vec<u8> = guarded[..].to_vec();
        assert!(guarded.faulted());
        assert_eq!(read.len(), 64 * page);
        assert!(read.iter().all(|&b| b == 0));
    }

    /// A map that faulted does not make the next one at the same place faulted.
    #[test]
    #[cfg(target_os = "linux")]
    fn a_slot_is_clean_when_taken_again() {
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(&[b'y'; 8192]).unwrap();
        // SAFETY: as above.
        let first = GuardedMap::new(unsafe { Mmap::map(&file) }.unwrap())
            .ok()
            .unwrap();
        file.set_len(0).unwrap();
        assert_eq!(first[100], 0);
        assert!(first.faulted());
        drop(first);
        file.write_all_at(&[b'y'; 8192], 0).unwrap();
        // SAFETY: as above.
        let second = GuardedMap::new(unsafe { Mmap::map(&file) }.unwrap())
            .ok()
            .unwrap();
        assert_eq!(second[100], b'y');
        assert!(!second.faulted());
    }
}
