//! A speed limit for reading a file as text (benches/compare.sh): validates a memory-mapped
//! file as UTF-8 with `simdutf8` (the SIMD validator crate undouble itself uses), mapped the way
//! undouble maps its inputs (with `Advice::Sequential`).
//!
//! Run with `cargo bench --bench limit_utf8 -- FILE`; prints `valid` or `invalid`.

fn main() {
    let path = std::env::args_os()
        .skip(1)
        .find(|a| a != "--bench")
        .expect("usage: limit_utf8 FILE");
    let file = std::fs::File::open(&path).expect("open");
    // SAFETY: the file is only read, and nothing truncates it while the benchmark runs.
    let map = unsafe { memmap2::Mmap::map(&file) }.expect("mmap");
    let _ = map.advise(memmap2::Advice::Sequential);
    let valid = simdutf8::basic::from_utf8(&map).is_ok();
    println!("{}", if valid { "valid" } else { "invalid" });
}
