//! Converting a legacy file, one that [`classify`](super::classify) tells is in another
//! encoding, to UTF-8: what `fix --transcode` does instead of passing it on unchanged.
//!
//! `transcode_input` streams the file block by block through an `encoding_rs` decoder (or the
//! table of a DOS code page `encoding_rs` lacks) into UTF-8; memory stays at one block and one output buffer. A byte order mark is dropped (the
//! output never has one). Malformed sequences are counted; either the conversion fails with an
//! error naming the file, the byte offset of the first and how many there are (nothing is
//! written after the first), or, with [`OnMalformed::Replace`], each becomes U+FFFD: bytes are
//! never lost silently.

use std::io::{self, Write};
use std::path::Path;

use encoding_rs::{Decoder, DecoderResult};

use super::{EngineOptions, Input};
use crate::charset::{KnownEncoding, OemCodePage};
use crate::error::Error;
use crate::mojibake::Readings;

/// What to do with a sequence the source encoding cannot decode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnMalformed {
    /// Stop, with an error naming the file and the sequence's byte offset.
    Refuse,
    /// Write U+FFFD in its place, and count it.
    Replace,
}

/// What a conversion did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transcoded {
    /// The encoding the input was read in.
    pub from: KnownEncoding,
    /// Bytes read, and bytes of UTF-8 written.
    pub bytes_read: u64,
    pub bytes_written: u64,
    /// Malformed sequences (replaced by U+FFFD), and the input offset of the first.
    pub malformed: u64,
    pub first_malformed_offset: Option<u64>,
}

/// What a conversion of an input to UTF-8 is made with: the encoding it is read in, what to do
/// with bytes that encoding cannot decode, and how the engine reads the input (the readings
/// say where a block may be cut).
#[derive(Clone, Copy)]
pub(crate) struct TranscodePass<'a> {
    pub(crate) from: KnownEncoding,
    pub(crate) on_malformed: OnMalformed,
    pub(crate) readings: &'a Readings,
    pub(crate) engine: &'a EngineOptions,
}

/// Converts `input` to UTF-8 as `pass` says into `out` (named `out_path` in errors), block by
/// block as the engine reads every input, dropping a byte order mark. Malformed input is
/// refused (after counting it all; nothing is written after the first malformed sequence) or
/// replaced, as `pass.on_malformed` says.
pub(crate) fn transcode_input<W: Write>(
    pass: &TranscodePass<'_>,
    input: &Input,
    out: W,
    out_path: &Path,
) -> Result<Transcoded, Error> {
    let TranscodePass {
        from,
        on_malformed,
        readings,
        engine: options,
    } = *pass;
    let decoder = match from {
        KnownEncoding::Whatwg(encoding) => ToUtf8::Whatwg(encoding.new_decoder_with_bom_removal()),
        KnownEncoding::Oem(page) => ToUtf8::Table(page),
        KnownEncoding::Utf32Le | KnownEncoding::Utf32Be => {
            return Err(Error::Usage(format!(
                "{}: there is no UTF-32 decoder to convert it with",
                input.display_path().display()
            )));
        }
    };
    let mut stream = Utf8Stream {
        decoder,
        buffer: vec![0; OUTPUT_CHUNK],
        output: Utf8Output {
            out,
            out_path,
            on_malformed,
            first_malformed_length: 0,
            done: Transcoded {
                from,
                bytes_read: 0,
                bytes_written: 0,
                malformed: 0,
                first_malformed_offset: None,
            },
        },
    };
    super::for_each_block_in_order(input, readings, options, |block, _| {
        stream.feed(block, false)
    })?;
    stream.feed(&[], true)?;
    stream.output.finish(input)
}

/// The UTF-8 written at a time.
const OUTPUT_CHUNK: usize = 64 << 10;

/// A decoder of some encoding into UTF-8.
enum ToUtf8 {
    Whatwg(Decoder),
    /// A single-byte page of its own table: every byte one character, none malformed.
    Table(OemCodePage),
}

impl ToUtf8 {
    /// Decodes as much of `src` into `dst` as fits, as `encoding_rs`'s
    /// `decode_to_utf8_without_replacement` does: the result, bytes read, bytes written.
    fn decode(&mut self, src: &[u8], dst: &mut [u8], last: bool) -> (DecoderResult, usize, usize) {
        let page = match self {
            Self::Whatwg(decoder) => {
                return decoder.decode_to_utf8_without_replacement(src, dst, last);
            }
            Self::Table(page) => *page,
        };
        let (mut read, mut written) = (0, 0);
        for &byte in src {
            let Some(c) = page.decode_byte(byte) else {
                return (DecoderResult::Malformed(1, 0), read + 1, written);
            };
            let Some(room) = dst
                .get_mut(written..)
                .filter(|room| room.len() >= c.len_utf8())
            else {
                return (DecoderResult::OutputFull, read, written);
            };
            written += c.encode_utf8(room).len();
            read += 1;
        }
        (DecoderResult::InputEmpty, read, written)
    }
}

/// A decoder writing UTF-8 to its output as input is fed to it.
struct Utf8Stream<'p, W> {
    decoder: ToUtf8,
    buffer: Vec<u8>,
    output: Utf8Output<'p, W>,
}

impl<W: Write> Utf8Stream<'_, W> {
    /// Decodes `bytes`, the next part of the input (`last` for the end, which reports a
    /// character left incomplete).
    fn feed(&mut self, mut bytes: &[u8], last: bool) -> Result<(), Error> {
        loop {
            let (result, read, written) = self.decoder.decode(bytes, &mut self.buffer, last);
            bytes = bytes.get(read..).unwrap_or_default();
            self.output.done.bytes_read += read as u64;
            self.output
                .write(self.buffer.get(..written).unwrap_or_default())?;
            match result {
                DecoderResult::InputEmpty => return Ok(()),
                DecoderResult::OutputFull => {}
                DecoderResult::Malformed(length, consumed_after) => {
                    // Everything read so far ends `consumed_after` bytes past the sequence.
                    let past = u64::from(consumed_after) + u64::from(length);
                    let offset = self.output.done.bytes_read.saturating_sub(past);
                    self.output.malformed(offset, length)?;
                }
            }
        }
    }
}

/// Where the UTF-8 goes, and what the conversion did so far.
struct Utf8Output<'p, W> {
    out: W,
    out_path: &'p Path,
    on_malformed: OnMalformed,
    /// The length of the first malformed sequence, for the error that refuses it.
    first_malformed_length: u8,
    done: Transcoded,
}

impl<W: Write> Utf8Output<'_, W> {
    /// Writes decoded text, unless a malformed sequence is to be refused: from the first, the
    /// rest of the input is only read, to count the others.
    fn write(&mut self, bytes: &[u8]) -> Result<(), Error> {
        let refusing = self.on_malformed == OnMalformed::Refuse && self.done.malformed > 0;
        if refusing {
            return Ok(());
        }
        self.out.write_all(bytes).map_err(|source| Error::Write {
            path: self.out_path.to_path_buf(),
            source,
        })?;
        self.done.bytes_written += bytes.len() as u64;
        Ok(())
    }

    /// Counts a malformed sequence, and writes U+FFFD for it (which a refusal drops).
    fn malformed(&mut self, offset: u64, length: u8) -> Result<(), Error> {
        self.done.malformed += 1;
        if self.done.first_malformed_offset.is_none() {
            self.done.first_malformed_offset = Some(offset);
            self.first_malformed_length = length;
        }
        self.write(char::REPLACEMENT_CHARACTER.to_string().as_bytes())
    }

    /// Flushes the output; refuses `input` if it held a malformed sequence and that is refused.
    fn finish(mut self, input: &Input) -> Result<Transcoded, Error> {
        self.out.flush().map_err(|source| Error::Write {
            path: self.out_path.to_path_buf(),
            source,
        })?;
        let (OnMalformed::Refuse, Some(offset)) =
            (self.on_malformed, self.done.first_malformed_offset)
        else {
            return Ok(self.done);
        };
        let length = self.first_malformed_length;
        let message = format!(
            "not valid {}: a malformed sequence of {}, {} in all \
             (--lossy replaces them with U+FFFD)",
            self.done.from.name(),
            crate::format::count(u64::from(length), "byte"),
            crate::format::thousands(self.done.malformed)
        );
        Err(Error::Read {
            path: input.display_path().to_path_buf(),
            offset,
            source: io::Error::new(io::ErrorKind::InvalidData, message),
        })
    }
}

#[cfg(test)]
mod tests {
    use encoding_rs::Encoding;

    use super::*;

    fn transcode(
        bytes: &[u8],
        from: &'static Encoding,
        on_malformed: OnMalformed,
    ) -> Result<(Vec<u8>, Transcoded), Error> {
        transcode_from(bytes, KnownEncoding::Whatwg(from), on_malformed)
    }

    fn transcode_from(
        bytes: &[u8],
        from: KnownEncoding,
        on_malformed: OnMalformed,
    ) -> Result<(Vec<u8>, Transcoded), Error> {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let path = dir.path().join("in");
        std::fs::write(&path, bytes).expect("the input is written");
        let mut out = Vec::new();
        let pass = TranscodePass {
            from,
            on_malformed,
            readings: &Readings::western(),
            engine: &EngineOptions::default(),
        };
        let done = transcode_input(&pass, &Input::File(path), &mut out, Path::new("out"))?;
        Ok((out, done))
    }

    #[test]
    fn transcoding_drops_the_bom_and_counts_or_refuses_malformed_input() {
        let utf16: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain("Grüße €".encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        let result = transcode(&utf16, encoding_rs::UTF_16LE, OnMalformed::Refuse);
        let (out, done) = result.expect("transcoded");
        assert_eq!(out, "Grüße €".as_bytes());
        assert_eq!((done.bytes_read, done.malformed), (utf16.len() as u64, 0));

        // 0xFF is undefined in windows-1253.
        let greek = b"\xe1\xe2\xe3 \xff \xe4\xff";
        let refused = transcode(greek, encoding_rs::WINDOWS_1253, OnMalformed::Refuse);
        let message = refused.as_ref().err().map(ToString::to_string);
        assert!(
            matches!(refused, Err(Error::Read { offset: 4, .. })),
            "{refused:?}"
        );
        assert!(
            message.is_some_and(|m| m.contains("a malformed sequence of 1 byte, 2 in all")),
            "{refused:?}"
        );
        let (out, done) =
            transcode(greek, encoding_rs::WINDOWS_1253, OnMalformed::Replace).expect("transcoded");
        assert_eq!(String::from_utf8_lossy(&out), "αβγ \u{FFFD} δ\u{FFFD}");
        assert_eq!((done.malformed, done.first_malformed_offset), (2, Some(4)));

        // A UTF-16 file cut in the middle of a code unit ends in a malformed sequence.
        let cut = &utf16[..utf16.len() - 1];
        let refused = transcode(cut, encoding_rs::UTF_16LE, OnMalformed::Refuse);
        let expected_offset = cut.len() as u64 - 1;
        assert!(
            matches!(refused, Err(Error::Read { offset, .. }) if offset == expected_offset),
            "{refused:?}"
        );
    }

    #[test]
    fn a_dos_page_is_converted_by_its_table_across_output_chunks() {
        let russian = "Программа установки не смогла найти файл. ".repeat(4000);
        let page = OemCodePage::Ibm855;
        let bytes = page.encode(&russian).expect("Russian is in IBM855");
        let (out, done) = transcode_from(&bytes, KnownEncoding::Oem(page), OnMalformed::Refuse)
            .expect("transcoded");
        assert_eq!(String::from_utf8_lossy(&out), russian);
        assert_eq!(done.bytes_read, bytes.len() as u64);
        assert_eq!(done.bytes_written, russian.len() as u64);
        assert_eq!(done.malformed, 0);
    }
}
