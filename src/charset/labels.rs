//! Comparing charset labels by what they mean, not how they are spelled.
//!
//! `ISO-8859-1` in a header and `windows-1252` in a `<meta>` are the same decoder in every
//! browser; `utf8` and `UTF-8` too. Labels are therefore resolved through the WHATWG label
//! table (`encoding_rs::Encoding::for_label`) before they are compared, and reports show both
//! the label as declared and the canonical name. Two additions: UTF-32, which the WHATWG table
//! omits but a BOM can reveal, so a UTF-32 file is reported as what it is; and the
//! byte-order-agnostic labels (`utf-16`, `unicode`, `utf-32`), which the table maps to little
//! endian but which agree with either byte order of their family. And the DOS code pages
//! `encoding_rs` lacks ([`OemCodePage`]), which old text files are still written in.

use encoding_rs::Encoding;

use super::oem::OemCodePage;

/// An encoding a label resolves to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KnownEncoding {
    /// An encoding of the WHATWG Encoding Standard.
    Whatwg(&'static Encoding),
    /// UTF-32, little endian (also what a bare `utf-32` label resolves to).
    Utf32Le,
    /// UTF-32, big endian.
    Utf32Be,
    /// A DOS code page of its own tables.
    Oem(OemCodePage),
}

impl KnownEncoding {
    /// Resolves a label (surrounding white space and case ignored); `None` if unknown.
    pub(crate) fn for_label(label: &str) -> Option<Self> {
        if let Some(encoding) = Encoding::for_label(label.trim().as_bytes()) {
            return Some(Self::Whatwg(encoding));
        }
        match label.trim().to_ascii_lowercase().as_str() {
            "utf-32" | "utf-32le" => Some(Self::Utf32Le),
            "utf-32be" => Some(Self::Utf32Be),
            _ => OemCodePage::for_label(label).map(Self::Oem),
        }
    }

    /// The canonical name (the WHATWG name, `UTF-32LE`/`UTF-32BE`, or the DOS page's).
    pub fn name(self) -> &'static str {
        match self {
            Self::Whatwg(encoding) => encoding.name(),
            Self::Utf32Le => "UTF-32LE",
            Self::Utf32Be => "UTF-32BE",
            Self::Oem(page) => page.name(),
        }
    }

    /// Whether ASCII bytes mean ASCII characters in this encoding.
    pub(crate) fn is_ascii_compatible(self) -> bool {
        match self {
            Self::Whatwg(encoding) => encoding.is_ascii_compatible(),
            Self::Utf32Le | Self::Utf32Be => false,
            Self::Oem(_) => true,
        }
    }

    pub(crate) fn unicode_width(self) -> Option<u8> {
        match self {
            Self::Whatwg(encoding)
                if encoding == encoding_rs::UTF_16LE || encoding == encoding_rs::UTF_16BE =>
            {
                Some(16)
            }
            Self::Utf32Le | Self::Utf32Be => Some(32),
            Self::Whatwg(_) | Self::Oem(_) => None,
        }
    }
}

/// What a declared label means. Most labels name an encoding or nothing known; SQL adds a
/// third answer, "no encoding": MySQL's `binary` and PostgreSQL's `SQL_ASCII` tell the server
/// to take bytes as they come, which says nothing about what the bytes are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LabelMeaning {
    /// The label names this encoding.
    Encoding(KnownEncoding),
    /// The label declares that bytes are not interpreted (MySQL `binary`, PostgreSQL
    /// `SQL_ASCII`).
    Uninterpreted,
    /// The label is not one this crate knows.
    Unknown,
}

impl LabelMeaning {
    /// The meaning of a WHATWG (or UTF-32) label, as [`KnownEncoding::for_label`] reads it.
    pub(crate) fn of_label(label: &str) -> Self {
        KnownEncoding::for_label(label).map_or(Self::Unknown, Self::Encoding)
    }

    /// The encoding, if the label names one.
    pub(crate) fn encoding(self) -> Option<KnownEncoding> {
        match self {
            Self::Encoding(encoding) => Some(encoding),
            Self::Uninterpreted | Self::Unknown => None,
        }
    }
}

/// Whether a label names a UTF-16/UTF-32 family without choosing a byte order.
pub(crate) fn leaves_byte_order_open(label: &str, encoding: KnownEncoding) -> bool {
    let lower = label.trim().to_ascii_lowercase();
    encoding.unicode_width().is_some()
        && !lower.ends_with("le")
        && !lower.ends_with("be")
        && lower != "unicodefffe"
}

/// Whether two labels, already resolved, mean the same encoding.
pub fn labels_agree(a: (&str, KnownEncoding), b: (&str, KnownEncoding)) -> bool {
    a.1 == b.1
        || (a.1.unicode_width() == b.1.unicode_width()
            && (leaves_byte_order_open(a.0, a.1) || leaves_byte_order_open(b.0, b.1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolve(label: &str) -> (&str, KnownEncoding) {
        (
            label,
            KnownEncoding::for_label(label).unwrap_or(KnownEncoding::Utf32Be),
        )
    }

    #[test]
    fn resolves_through_the_whatwg_table() {
        let name = |label: &str| KnownEncoding::for_label(label).map(KnownEncoding::name);
        assert_eq!(name(" ISO-8859-1 "), Some("windows-1252"));
        assert_eq!(name("utf8"), Some("UTF-8"));
        assert_eq!(name("utf-16"), Some("UTF-16LE"));
        assert_eq!(name("UTF-32BE"), Some("UTF-32BE"));
        assert_eq!(name("utf\\-8"), None);
        assert_eq!(name("cp855"), Some("IBM855"));
    }

    #[test]
    fn agreement() {
        assert!(labels_agree(resolve("ISO-8859-1"), resolve("windows-1252")));
        assert!(!labels_agree(resolve("ISO-8859-1"), resolve("UTF-8")));
        assert!(labels_agree(resolve("utf-16"), resolve("UTF-16BE")));
        assert!(labels_agree(resolve("UTF-16LE"), resolve("unicode")));
        assert!(!labels_agree(resolve("UTF-16LE"), resolve("UTF-16BE")));
        assert!(labels_agree(resolve("utf-32"), resolve("UTF-32BE")));
        assert!(!labels_agree(resolve("utf-16"), resolve("UTF-32LE")));
    }

    #[test]
    fn ascii_compatibility() {
        let compatible =
            |label: &str| KnownEncoding::for_label(label).map(KnownEncoding::is_ascii_compatible);
        assert_eq!(compatible("latin1"), Some(true));
        assert_eq!(compatible("utf-16"), Some(false));
        assert_eq!(compatible("utf-32"), Some(false));
    }
}
