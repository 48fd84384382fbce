//! A speed limit for `undouble scan` (benches/compare.sh): counts the `0xC3` bytes of a file
//! with `memchr`, over the file memory-mapped the way undouble maps its inputs (with
//! `Advice::Sequential`). Every double-encoded sequence starts with `0xC3`, and undouble's
//! prefilter jumps from one `0xC3` to the next with `memchr`, so on mostly-ASCII input this is
//! as fast as a scan can go.
//!
//! Run with `cargo bench --bench limit_memchr -- FILE`; prints the count.

fn main() {
    let path = std::env::args_os()
        .skip(1)
        .find(|a| a != "--bench")
        .expect("usage: limit_memchr FILE");
    let file = std::fs::File::open(&path).expect("open");
    // SAFETY: the file is only read, and nothing truncates it while the benchmark runs.
    let map = unsafe { memmap2::Mmap::map(&file) }.expect("mmap");
    let _ = map.advise(memmap2::Advice::Sequential);
    let count = memchr::memchr_iter(0xC3, &map).count();
    println!("{count}");
}
