//! Reading a file with a cap, and turning its bytes into text: byte-order
//! marks stripped, UTF-8 when it is UTF-8, else the encoding detected
//! (chardetng: Latin-1 and Windows-1252 files read correctly), else lossy.
//! Binary files are refused rather than read as mojibake.

use std::io::Read;
use std::path::Path;

use encoding_rs::Encoding;

/// A file's bytes, at most `cap` of them.
#[derive(Debug)]
pub struct Capped {
    pub bytes: Vec<u8>,
    /// True when the file had more than `cap` bytes (the rest was not read).
    pub cut: bool,
}

/// Reads at most `cap` bytes of `path` (and one more, to know whether it was
/// cut). Never reads an endless file (`/dev/zero`) past the cap.
pub fn read_capped(path: &Path, cap: u64) -> std::io::Result<Capped> {
    let file = std::fs::File::open(path)?;
    let hint = file.metadata().map(|m| m.len()).unwrap_or(0).min(cap);
    let mut bytes = Vec::with_capacity(usize::try_from(hint).unwrap_or(0));
    file.take(cap.saturating_add(1)).read_to_end(&mut bytes)?;
    let cut = bytes.len() as u64 > cap;
    if cut {
        bytes.truncate(usize::try_from(cap).unwrap_or(usize::MAX));
    }
    Ok(Capped { bytes, cut })
}

/// Text decoded from bytes, and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded {
    pub text: String,
    /// The encoding used, when it was not UTF-8 (for a note to the user).
    pub encoding: Option<&'static str>,
    /// True when some bytes could not be decoded and were replaced.
    pub lossy: bool,
    /// True when the encoding was guessed from the bytes (not UTF-8, no
    /// byte-order mark, no declared charset).
    pub guessed: bool,
}

/// Why bytes are not text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotText {
    #[error("the file is empty")]
    Empty,
    #[error("binary data, not text")]
    Binary,
}

/// Decodes an HTML page: as [`decode`], but a page that is not UTF-8 and
/// declares its charset (`<meta charset>`) is read in that charset.
pub fn decode_html(bytes: &[u8], cut: bool) -> Result<Decoded, NotText> {
    if Encoding::for_bom(bytes).is_none()
        && std::str::from_utf8(bytes).is_err()
        && !looks_binary(bytes)
        && let Some(enc) = declared_charset(bytes)
        && enc != encoding_rs::UTF_8
    {
        let (text, _, had_errors) = enc.decode(bytes);
        return finish(text.into_owned(), enc, had_errors, false);
    }
    decode(bytes, cut)
}

/// The charset a page declares in its first 2 KiB.
fn declared_charset(bytes: &[u8]) -> Option<&'static Encoding> {
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(2048)]).to_ascii_lowercase();
    let at = head.find("charset=")? + "charset=".len();
    let label: String = head[at..]
        .trim_start_matches(['"', '\'', ' '])
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':' | '.'))
        .collect();
    Encoding::for_label(label.as_bytes())
}

/// Decodes a document. `cut` says the bytes were cut at a cap, so a
/// multi-byte character may be split at the end (not a reason to go lossy).
pub fn decode(bytes: &[u8], cut: bool) -> Result<Decoded, NotText> {
    if let Some((enc, bom_len)) = Encoding::for_bom(bytes) {
        let (text, had_errors) = enc.decode_without_bom_handling(&bytes[bom_len..]);
        return finish(text.into_owned(), enc, had_errors, false);
    }
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(NotText::Empty);
    }
    if looks_binary(bytes) {
        return Err(NotText::Binary);
    }
    let valid_up_to = match std::str::from_utf8(bytes) {
        Ok(s) => return finish(s.to_string(), encoding_rs::UTF_8, false, false),
        Err(e) => e.valid_up_to(),
    };
    // A character split by the cap is not a reason to doubt the encoding.
    if cut && bytes.len() - valid_up_to < 4 {
        let s = String::from_utf8_lossy(&bytes[..valid_up_to]).into_owned();
        return finish(s, encoding_rs::UTF_8, false, false);
    }
    // ISO-2022-JP is off: it can smuggle markup past a reader (chardetng's advice).
    let mut detector = chardetng::EncodingDetector::new(chardetng::Iso2022JpDetection::Deny);
    detector.feed(bytes, !cut);
    let enc = detector.guess(None, chardetng::Utf8Detection::Allow);
    let (text, _, had_errors) = enc.decode(bytes);
    finish(text.into_owned(), enc, had_errors, true)
}

fn finish(
    text: String,
    enc: &'static Encoding,
    lossy: bool,
    guessed: bool,
) -> Result<Decoded, NotText> {
    let text = match text.strip_prefix('\u{feff}') {
        Some(rest) => rest.trim_start_matches('\u{feff}').to_string(),
        None => text,
    };
    if text.trim().is_empty() {
        return Err(NotText::Empty);
    }
    Ok(Decoded {
        text,
        encoding: (enc != encoding_rs::UTF_8).then(|| enc.name()),
        lossy,
        guessed: guessed && enc != encoding_rs::UTF_8,
    })
}

/// NUL bytes, or many control bytes, in the first 8 KiB: not a text file.
/// (UTF-16 without a byte-order mark is rare enough to call binary.)
fn looks_binary(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(8192)];
    if head.contains(&0) {
        return true;
    }
    let controls = head
        .iter()
        .filter(|&&b| b < 0x20 && !matches!(b, b'\n' | b'\r' | b'\t' | 0x0c | 0x1b))
        .count();
    controls * 10 > head.len()
}

/// Strips a leading UTF-8 byte-order mark from text.
pub fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn utf8_latin1_and_windows_1252() {
        let d = decode("Café crème".as_bytes(), false).unwrap();
        assert_eq!(d.text, "Café crème");
        assert_eq!(d.encoding, None);
        // Latin-1 / Windows-1252 bytes: é = 0xE9, the curly quotes 0x93/0x94.
        let latin = b"Le caf\xe9 de la gare est ouvert depuis 1998. Il a \xe9t\xe9 r\xe9nov\xe9 \x93enti\xe8rement\x94 en 2021.";
        let d = decode(latin, false).unwrap();
        assert!(
            d.text.contains("café") && d.text.contains("rénové"),
            "{d:?}"
        );
        assert!(d.text.contains('\u{201c}'), "{d:?}");
        assert_eq!(d.encoding, Some("windows-1252"));
        assert!(!d.lossy);
    }

    #[test]
    fn html_declared_charset_is_used() {
        let page = b"<html><head><meta charset=\"iso-8859-1\"></head><body>Z\xfcrich</body></html>";
        let d = decode_html(page, false).unwrap();
        assert!(d.text.contains("Zürich"), "{d:?}");
    }

    #[test]
    fn boms_are_stripped_and_utf16_is_read() {
        let d = decode(b"\xef\xbb\xbf{\"a\":1}", false).unwrap();
        assert_eq!(d.text, "{\"a\":1}");
        let utf16: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain("Hi there".encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        assert_eq!(decode(&utf16, false).unwrap().text, "Hi there");
        assert_eq!(strip_bom("\u{feff}x"), "x");
    }

    #[test]
    fn binary_and_empty_are_refused() {
        assert_eq!(
            decode(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", false),
            Err(NotText::Binary)
        );
        assert_eq!(decode(b"", false), Err(NotText::Empty));
        assert_eq!(decode(b"  \n\t ", false), Err(NotText::Empty));
    }

    #[test]
    fn a_character_split_by_the_cap_is_not_lossy() {
        let bytes = "naïve".as_bytes();
        let cut = &bytes[..3]; // "na" + the first byte of "ï"
        let d = decode(cut, true).unwrap();
        assert_eq!(d.text, "na");
        assert!(!d.lossy && d.encoding.is_none());
    }

    #[test]
    fn read_capped_stops_at_the_cap() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("big.txt");
        std::fs::write(&p, "x".repeat(1000)).unwrap();
        let c = read_capped(&p, 100).unwrap();
        assert!(c.cut && c.bytes.len() == 100);
        let c = read_capped(&p, 1000).unwrap();
        assert!(!c.cut && c.bytes.len() == 1000);
        if Path::new("/dev/zero").exists() {
            let c = read_capped(Path::new("/dev/zero"), 4096).unwrap();
            assert!(c.cut && c.bytes.len() == 4096);
        }
    }

    proptest! {
        #[test]
        fn decode_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..600), cut in any::<bool>()) {
            if let Ok(d) = decode(&bytes, cut) {
                prop_assert!(!d.text.trim().is_empty());
                let bom = '\u{feff}';
                prop_assert!(!d.text.starts_with(bom));
            }
        }

        #[test]
        fn valid_utf8_text_round_trips(s in "[a-zA-Z0-9 éüß€\n]{1,200}") {
            prop_assume!(!s.trim().is_empty());
            let d = decode(s.as_bytes(), false).unwrap();
            prop_assert_eq!(d.text, s);
            prop_assert_eq!(d.encoding, None);
        }
    }
}
