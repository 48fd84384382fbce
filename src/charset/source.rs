//! Where an answer came from.
//!
//! HTML::Encoding's document-level routines return, in list context, a pair: the *source* of
//! the answer and the encodings found there. The source matters as much as the name: a
//! charset from the HTTP header is lost when the file is saved, a BOM is not, and a default
//! is no evidence at all. [`SourcedEncoding`] is that pair; [`Source`] also has the three
//! sources only the policy uses (`sql` from a dump's `SET NAMES` and the like, `detected` from
//! the bytes, `assumed` at the user's request).

use std::fmt;

use serde::{Deserialize, Serialize};

/// The origin of an encoding answer; serialises as its lowercase name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// The `charset` parameter of the HTTP `Content-Type` header.
    Protocol,
    /// A leading byte order mark (U+FEFF).
    Bom,
    /// The `encoding` pseudo-attribute of an XML declaration.
    Xml,
    /// A `<meta>` element (`http-equiv=Content-Type` or HTML5 `charset`).
    Meta,
    /// A SQL dump's connection statement (`SET NAMES`, `SET client_encoding`, ...); only the
    /// policy produces it, and only for a document that looks like a SQL dump.
    Sql,
    /// The bytes themselves (valid UTF-8, UTF-16/32 structure); only the policy produces it.
    Detected,
    /// The default fallback for the document type (ISO-8859-1 for HTML, UTF-8 for XML).
    Default,
    /// A protocol default the caller opted into (US-ASCII for `text/xml`, RFC 3023).
    ProtocolDefault,
    /// An encoding the caller told the policy to assume when nothing else is found.
    Assumed,
}

impl Source {
    /// The lowercase name used in reports and JSON.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Protocol => "protocol",
            Self::Bom => "bom",
            Self::Xml => "xml",
            Self::Meta => "meta",
            Self::Sql => "sql",
            Self::Detected => "detected",
            Self::Default => "default",
            Self::ProtocolDefault => "protocol_default",
            Self::Assumed => "assumed",
        }
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An answer with its source: Perl's list-context `(source => [encodings])`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SourcedEncoding {
    /// Where the answer came from.
    pub source: Source,
    /// The best answer (Perl's scalar-context result).
    pub encoding: String,
    /// Further candidates from the same source, best first.
    pub alternatives: Vec<String>,
}

impl SourcedEncoding {
    /// Builds an answer from candidates ordered best first; `None` if there are none.
    pub(crate) fn from_candidates(source: Source, candidates: Vec<String>) -> Option<Self> {
        let mut candidates = candidates.into_iter();
        let encoding = candidates.next()?;
        Some(Self {
            source,
            encoding,
            alternatives: candidates.collect(),
        })
    }

    /// Every candidate, best first.
    pub fn candidates(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.encoding.as_str()).chain(self.alternatives.iter().map(String::as_str))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_serialise_as_lowercase_names() {
        let all = [
            Source::Protocol,
            Source::Bom,
            Source::Xml,
            Source::Meta,
            Source::Sql,
            Source::Detected,
            Source::Default,
            Source::ProtocolDefault,
            Source::Assumed,
        ];
        for source in all {
            let json = serde_json::to_string(&source).unwrap_or_default();
            assert_eq!(json, format!("\"{}\"", source.as_str()));
        }
    }

    #[test]
    fn candidates_keep_their_order() {
        let answer = SourcedEncoding::from_candidates(Source::Bom, vec!["a".into(), "b".into()]);
        let names: Vec<&str> = answer
            .iter()
            .flat_map(SourcedEncoding::candidates)
            .collect();
        assert_eq!(names, ["a", "b"]);
        assert_eq!(
            SourcedEncoding::from_candidates(Source::Bom, Vec::new()),
            None
        );
    }
}
