//! Validome's example documents, built byte for byte: shared by the policy tests
//! (`charset_validome.rs`) and the `detect` command tests (`cli_detect.rs`).
//!
//! Each document is validome's listing (lines 1-10, `\n` line ends) in the encoding the
//! example describes: ISO-8859-1 where the document is Latin-1, UTF-8 with or without its BOM,
//! UTF-16LE with or without `FF FE`.

/// How a listing is turned into bytes.
#[derive(Clone, Copy)]
pub enum Bytes {
    Latin1,
    Utf8,
    Utf8WithBom,
    Utf16Le,
    Utf16LeWithBom,
}

/// The umlauts most examples carry in their body.
pub const UMLAUTS: &str = "\u{E4}\u{F6}\u{FC}\u{C4}\u{D6}\u{DC}\u{DF}";

fn listing(title: &str, meta_charset: Option<&str>, body: &str) -> String {
    let meta = meta_charset
        .map(|charset| {
            format!(
                "    <meta http-equiv=\"Content-Type\" content=\"text/html; charset={charset}\">\n"
            )
        })
        .unwrap_or_default();
    format!(
        "<!DOCTYPE HTML PUBLIC \"-//W3C//DTD HTML 4.01 Transitional//EN\"\n     \
         \"http://www.w3.org/TR/html4/loose.dtd\">\n\n<html>\n  <head>\n    \
         <title>{title}</title>\n{meta}  </head>\n  <body>{body}</body>\n</html>\n"
    )
}

fn encode(text: &str, bytes: Bytes) -> Vec<u8> {
    let utf16le =
        |text: &str| -> Vec<u8> { text.encode_utf16().flat_map(u16::to_le_bytes).collect() };
    match bytes {
        Bytes::Latin1 => text
            .chars()
            .map(|c| u8::try_from(u32::from(c)).expect("Latin-1 text"))
            .collect(),
        Bytes::Utf8 => text.as_bytes().to_vec(),
        Bytes::Utf8WithBom => [&[0xEF, 0xBB, 0xBF][..], text.as_bytes()].concat(),
        Bytes::Utf16Le => utf16le(text),
        Bytes::Utf16LeWithBom => [vec![0xFF, 0xFE], utf16le(text)].concat(),
    }
}

/// The listing with `title`, `<meta>` charset and body, encoded as `bytes`.
pub fn document(title: &str, meta_charset: Option<&str>, body: &str, bytes: Bytes) -> Vec<u8> {
    encode(&listing(title, meta_charset, body), bytes)
}
