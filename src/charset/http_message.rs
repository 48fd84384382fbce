//! Splitting a raw HTTP message into start line, headers and body.
//!
//! `encoding_from_http_message` takes an HTTP::Message in Perl; here it takes an
//! [`HttpMessage`], which [`HttpMessage::parse`] builds from the bytes of a saved response
//! (what `curl -i` prints). Parsing follows HTTP::Message's lenient reader rather than a strict
//! RFC 9112 parser, because saved responses are often hand-edited: either line ending, folded
//! (continued) header lines joined to the previous header, duplicate headers kept in order,
//! and the first line that is neither a header nor a continuation starts the body.

/// One header line (continuations joined), with surrounding white space trimmed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpHeader {
    /// The field name as written.
    pub name: Vec<u8>,
    /// The field value, folded lines joined.
    pub value: Vec<u8>,
}

/// An HTTP request or response: what `encoding_from_http_message` needs of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpMessage<'a> {
    /// The status (or request) line, without its line ending.
    pub start_line: &'a [u8],
    /// The header fields in order, duplicates included.
    pub headers: Vec<HttpHeader>,
    /// The entity body.
    pub body: &'a [u8],
}

impl<'a> HttpMessage<'a> {
    /// A message from headers and a body, for callers that already have them apart.
    pub fn new(headers: Vec<HttpHeader>, body: &'a [u8]) -> Self {
        Self {
            start_line: b"",
            headers,
            body,
        }
    }

    /// Splits raw bytes: start line, header lines up to the first empty line, then the body.
    /// Never fails: anything after the start line that is not a header begins the body.
    pub fn parse(raw: &'a [u8]) -> Self {
        let (start_line, mut rest) = split_line(raw);
        let mut headers: Vec<HttpHeader> = Vec::new();
        let body = loop {
            let (line, after) = split_line(rest);
            if line.is_empty() {
                break after;
            }
            if let (Some(last), Some(b' ' | b'\t')) = (headers.last_mut(), line.first()) {
                last.value.extend_from_slice(line);
            } else if let Some(header) = parse_header_line(line) {
                headers.push(header);
            } else {
                break rest;
            }
            rest = after;
        };
        for header in &mut headers {
            header.value = trim_spaces(&header.value).to_vec();
        }
        Self {
            start_line,
            headers,
            body,
        }
    }

    /// The values of every header called `name` (case-insensitive), in order.
    pub fn header_values<'s>(&'s self, name: &'s str) -> impl Iterator<Item = &'s [u8]> + 's {
        self.headers
            .iter()
            .filter(move |header| header.name.eq_ignore_ascii_case(name.as_bytes()))
            .map(|header| header.value.as_slice())
    }

    /// All values of header `name` joined with `", "`, as HTTP::Headers returns a repeated
    /// header in scalar context; `None` if there is no such header.
    pub fn header(&self, name: &str) -> Option<Vec<u8>> {
        let mut values = self.header_values(name);
        let mut joined = values.next()?.to_vec();
        for value in values {
            joined.extend_from_slice(b", ");
            joined.extend_from_slice(value);
        }
        Some(joined)
    }

    /// The media type of the first `Content-Type` header: the part before the first `;`,
    /// white space removed, lowercased (HTTP::Headers' `content_type`); empty if none.
    pub fn media_type(&self) -> String {
        let Some(first) = self.header_values("Content-Type").next() else {
            return String::new();
        };
        let type_part = first.split(|&b| b == b';').next().unwrap_or_default();
        let compact: Vec<u8> = type_part
            .iter()
            .copied()
            .filter(|b| !b.is_ascii_whitespace())
            .collect();
        String::from_utf8_lossy(&compact).to_ascii_lowercase()
    }
}

/// The first line of `bytes` without its line ending, and what follows it.
fn split_line(bytes: &[u8]) -> (&[u8], &[u8]) {
    match memchr::memchr(b'\n', bytes) {
        Some(newline) => {
            let (line, rest) = bytes.split_at(newline);
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            (line, rest.get(1..).unwrap_or_default())
        }
        None => (bytes.strip_suffix(b"\r").unwrap_or(bytes), &[]),
    }
}

/// `name: value`, where the name has no white space or colon and may be followed by
/// spaces or tabs before the colon.
fn parse_header_line(line: &[u8]) -> Option<HttpHeader> {
    let name_length = line
        .iter()
        .take_while(|&&b| b != b':' && !b.is_ascii_whitespace())
        .count();
    if name_length == 0 {
        return None;
    }
    let (name, rest) = line.split_at(name_length);
    let after_blanks = rest
        .iter()
        .position(|&b| b != b' ' && b != b'\t')
        .and_then(|at| rest.get(at..))
        .unwrap_or_default();
    let value = after_blanks.strip_prefix(b":")?;
    Some(HttpHeader {
        name: name.to_vec(),
        value: value.to_vec(),
    })
}

fn trim_spaces(bytes: &[u8]) -> &[u8] {
    let is_space = |b: &u8| matches!(b, b' ' | b'\t' | b'\r' | b'\n');
    let start = bytes
        .iter()
        .position(|b| !is_space(b))
        .unwrap_or(bytes.len());
    let end = bytes
        .iter()
        .rposition(|b| !is_space(b))
        .map_or(start, |at| at + 1);
    bytes.get(start..end).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_headers_and_body() {
        let message = HttpMessage::parse(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nX-A:  b \r\n\r\n<p>body\r\n\r\nmore",
        );
        assert_eq!(message.start_line, b"HTTP/1.1 200 OK");
        assert_eq!(
            message.header("content-type").as_deref(),
            Some(&b"text/html"[..])
        );
        assert_eq!(message.header("x-a").as_deref(), Some(&b"b"[..]));
        assert_eq!(message.body, b"<p>body\r\n\r\nmore");
    }

    #[test]
    fn unfolds_continuation_lines() {
        let message = HttpMessage::parse(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n ;\r\n\tcharset=x\r\n\r\n",
        );
        assert_eq!(
            message.header("Content-Type").as_deref(),
            Some(&b"text/html ;\tcharset=x"[..])
        );
        assert!(message.body.is_empty());
    }

    #[test]
    fn keeps_duplicates_and_joins_them() {
        let message =
            HttpMessage::parse(b"HTTP/1.0 200 OK\nContent-Type: a\nContent-Type: b;charset=c\n\nx");
        let values: Vec<&[u8]> = message.header_values("CONTENT-TYPE").collect();
        assert_eq!(values, [&b"a"[..], &b"b;charset=c"[..]]);
        assert_eq!(
            message.header("Content-Type").as_deref(),
            Some(&b"a, b;charset=c"[..])
        );
        assert_eq!(message.media_type(), "a");
        assert_eq!(message.body, b"x");
    }

    #[test]
    fn a_line_that_is_not_a_header_starts_the_body() {
        let message = HttpMessage::parse(b"HTTP/1.1 200 OK\nContent-Type: text/html\n<html>\n");
        assert_eq!(message.headers.len(), 1);
        assert_eq!(message.body, b"<html>\n");
    }

    #[test]
    fn no_headers_no_body() {
        let message = HttpMessage::parse(b"HTTP/1.1 200 OK\r\n\r\n");
        assert!(message.headers.is_empty());
        assert_eq!(message.header("Content-Type"), None);
        assert_eq!(message.media_type(), "");
        let empty = HttpMessage::parse(b"");
        assert!(empty.start_line.is_empty() && empty.headers.is_empty() && empty.body.is_empty());
    }

    #[test]
    fn media_type_is_normalised() {
        let message =
            HttpMessage::parse(b"HTTP/1.1 200 OK\r\nContent-Type: Text/HTML ; charset=x\r\n\r\n");
        assert_eq!(message.media_type(), "text/html");
    }
}
