//! Vector searches through bytes that the pure core shares, with what the CPU can do.
//!
//! - [`pairs`]: the positions where two adjacent bytes belong to two sets (a space after a
//!   byte `80..FF`, a letter after a newline), or where a byte follows one of a set and
//!   starts a two-byte character of another (a Cyrillic character a Windows page gives to a
//!   byte `80..BF`, after another non-ASCII one), 64 positions a step with AVX2.
//!
//! The vector paths are taken only where the CPU has their instructions, asked at run time
//! as `memchr` does; each has a portable path that gives the same answers.

pub(crate) mod pairs;

/// Whether the CPU has AVX2 (the answer is cached by the standard library).
#[cfg(target_arch = "x86_64")]
#[inline]
pub(crate) fn has_avx2() -> bool {
    std::arch::is_x86_feature_detected!("avx2")
}

/// Whether the CPU has AVX2: never, off x86-64.
#[cfg(not(target_arch = "x86_64"))]
#[inline]
pub(crate) fn has_avx2() -> bool {
    false
}
