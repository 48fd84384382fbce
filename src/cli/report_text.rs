//! A report's text, made on the thread that processed an input and written by the thread that
//! reports them in order.
//!
//! glibc's allocator takes a lock on a thread's heap to free memory another thread allocated
//! there (once that thread's cache of freed blocks is full, which a thread that only frees
//! fills at once). A tree of small files hands one report a file from the pool to the
//! reporting thread, and freeing each on arrival made the two threads wait on each other's
//! heaps. So a report short enough is held in place, copied out of the string it was made in
//! (freed on the thread that made it), and crosses to the reporting thread with no memory of
//! its own; a longer one keeps its string.

/// The bytes a report holds in place: a line of `scan` or `detect` on a file of a tree.
const IN_PLACE: usize = 256;

/// A report's text ([`ReportText::from`] a string, [`ReportText::as_bytes`] to write it).
#[expect(
    clippy::large_enum_variant,
    reason = "the text is held in place so that handing it over allocates nothing"
)]
pub(crate) enum ReportText {
    InPlace { bytes: [u8; IN_PLACE], len: u16 },
    Allocated(String),
}

impl From<String> for ReportText {
    fn from(text: String) -> ReportText {
        match text.len() <= IN_PLACE {
            true => {
                let mut bytes = [0; IN_PLACE];
                bytes[..text.len()].copy_from_slice(text.as_bytes());
                ReportText::InPlace {
                    bytes,
                    len: text.len() as u16,
                }
            }
            false => ReportText::Allocated(text),
        }
    }
}

impl ReportText {
    pub(crate) fn as_bytes(&self) -> &[u8] {
        match self {
            ReportText::InPlace { bytes, len } => &bytes[..usize::from(*len)],
            ReportText::Allocated(text) => text.as_bytes(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_and_long_texts_are_given_back_whole() {
        for len in [0, 1, IN_PLACE - 1, IN_PLACE, IN_PLACE + 1, 10 * IN_PLACE] {
            let text: String = "é∑x".chars().cycle().take(len).collect();
            let held = ReportText::from(text.clone());
            assert_eq!(held.as_bytes(), text.as_bytes());
            assert_eq!(
                matches!(held, ReportText::InPlace { .. }),
                text.len() <= IN_PLACE
            );
        }
    }
}
