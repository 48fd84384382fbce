//! The integrity chain of an audit log: every record after the header ends with a `prev` field,
//! the SHA-256 of the line before it exactly as it was written (its newline included).
//!
//! The header starts the chain, each `file` record closes the changes of its file, and the `end`
//! record closes the run. A line edited, removed, added or moved breaks the link of the line
//! after it (or, for the last line, leaves the log without its `end` record), so `undo` names
//! the first line where the log stops being the one the fix wrote. The chain proves nothing about
//! who wrote the log: anyone can write a whole new one whose links hold. It detects damage; what
//! keeps a crafted log from writing where it should not is the roots `undo` is given.
//!
//! The link is written as the last field of the record's JSON object, so a record is serialised
//! once, then closed with its link: nothing is serialised twice, and a reader that does not know
//! the chain reads the record as before.

use std::io::{self, Write};

use serde::de::Error as _;
use serde::{Deserialize, Deserializer};
use sha2::{Digest, Sha256};

use super::record::{Checksum, Record};

/// A writer of records that links each to the line before it.
pub struct ChainedLog<W> {
    out: W,
    /// The hash of the last line written; `None` before the header.
    last: Option<Checksum>,
    /// The line being written, kept to spare an allocation a record.
    line: Vec<u8>,
}

impl<W: Write> ChainedLog<W> {
    /// A log whose first record (the header) starts the chain.
    pub(crate) fn new(out: W) -> ChainedLog<W> {
        ChainedLog {
            out,
            last: None,
            line: Vec::new(),
        }
    }

    /// Writes `record` as one line, linked to the line before it.
    pub(crate) fn write(&mut self, record: &Record) -> io::Result<()> {
        self.line.clear();
        serde_json::to_writer(&mut self.line, record)?;
        if let Some(prev) = self.last {
            // Every record is a JSON object: its link goes in before the closing brace.
            if self.line.pop() != Some(b'}') {
                return Err(io::Error::other("an audit record is not a JSON object"));
            }
            write!(self.line, ",\"prev\":\"{prev}\"}}")?;
        }
        self.line.push(b'\n');
        self.out.write_all(&self.line)?;
        self.last = Some(line_hash(&self.line));
        Ok(())
    }

    /// A writer that goes on with a chain whose last line hashed to `last`: its lines are
    /// written elsewhere first, then appended after that line ([`ChainedLog::append`]).
    pub(crate) fn continuing(out: W, last: Option<Checksum>) -> ChainedLog<W> {
        ChainedLog {
            out,
            last,
            line: Vec::new(),
        }
    }

    /// The hash of the last line written (or continued from).
    pub(crate) fn last(&self) -> Option<Checksum> {
        self.last
    }

    /// Appends the lines `from` holds, written by a [`ChainedLog::continuing`] this log's last
    /// line, whose own last line hashed to `last`.
    pub(crate) fn append(
        &mut self,
        from: &mut impl io::Read,
        last: Option<Checksum>,
    ) -> io::Result<()> {
        io::copy(from, &mut self.out)?;
        self.last = last;
        Ok(())
    }

    pub(crate) fn get_ref(&self) -> &W {
        &self.out
    }

    pub(crate) fn get_mut(&mut self) -> &mut W {
        &mut self.out
    }

    pub fn into_inner(self) -> W {
        self.out
    }
}

/// The hash a record carries of the line before it: of its exact bytes, newline included.
pub fn line_hash(line: &[u8]) -> Checksum {
    Checksum(Sha256::digest(line).into())
}

/// The link of a line, read apart from its record (every other field is skipped).
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Link {
    #[serde(default, deserialize_with = "written_checksum")]
    pub prev: Option<Checksum>,
}

/// A link exactly as a writer writes it: 64 lower-case hexadecimal digits, so that a line whose
/// bytes differ from what was written never reads as the same link.
fn written_checksum<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Checksum>, D::Error> {
    let text = String::deserialize(deserializer)?;
    let lower_hex = |b: &u8| b.is_ascii_digit() || (b'a'..=b'f').contains(b);
    if text.len() != 64 || !text.as_bytes().iter().all(lower_hex) {
        return Err(D::Error::custom(
            "a link is 64 lower-case hexadecimal digits",
        ));
    }
    let checksum =
        serde_json::from_value(serde_json::Value::String(text)).map_err(D::Error::custom)?;
    Ok(Some(checksum))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::record::End;

    fn end(files: u64) -> Record {
        Record::End(End {
            files,
            rewritten: 0,
        })
    }

    #[test]
    fn each_line_carries_the_hash_of_the_one_before() {
        let mut log = ChainedLog::new(Vec::new());
        for files in 0..3 {
            log.write(&end(files)).unwrap();
        }
        let text = log.into_inner();
        let lines: Vec<&[u8]> = text.split_inclusive(|&b| b == b'\n').collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(
            lines[0],
            b"{\"type\":\"end\",\"files\":0,\"rewritten\":0}\n"
        );
        let links: Vec<Link> = lines
            .iter()
            .map(|line| serde_json::from_slice(line).unwrap())
            .collect();
        assert_eq!(links[0].prev, None);
        assert_eq!(links[1].prev, Some(line_hash(lines[0])));
        assert_eq!(links[2].prev, Some(line_hash(lines[1])));
        // The record itself reads as if there were no link.
        let back: Record = serde_json::from_slice(lines[2]).unwrap();
        assert_eq!(back, end(2));
    }

    #[test]
    fn a_link_is_read_only_as_written() {
        let digits = "ab".repeat(32);
        let link = |text: &str| serde_json::from_str::<Link>(text).map(|link| link.prev);
        let written = link(&format!(r#"{{"prev":"{digits}"}}"#)).unwrap();
        assert_eq!(written, Some(Checksum([0xab; 32])));
        assert_eq!(link("{}").unwrap(), None);
        let upper = digits.to_uppercase();
        assert!(link(&format!(r#"{{"prev":"{upper}"}}"#)).is_err());
        assert!(link(r#"{"prev":"abcd"}"#).is_err());
        assert!(link(r#"{"prev":null}"#).is_err());
    }
}
