//! What the CPU can do, asked once at run time (the answer is cached by the standard library):
//! the vector paths of the byte searches are taken only where it has their instructions.

/// Whether the CPU has AVX2.
#[cfg(target_arch = "x86_64")]
#[inline]
pub(super) fn has_avx2() -> bool {
    std::arch::is_x86_feature_detected!("avx2")
}

/// Whether the CPU has AVX2: never, off x86-64.
#[cfg(not(target_arch = "x86_64"))]
#[inline]
pub(super) fn has_avx2() -> bool {
    false
}
