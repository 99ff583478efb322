//! Verbatim checks: a quote counts only if it appears in the stored text of
//! the page it cites, modulo whitespace, quote marks, dashes and case of
//! nothing else.

/// Normalises text for quote matching: curly quotes and dashes folded,
/// invisible characters dropped, whitespace collapsed.
pub fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = false;
    for c in text.chars() {
        if super::clean::is_invisible(c) {
            continue;
        }
        let c = match c {
            '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' | '\u{2032}' | '`' => '\'',
            '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' | '\u{2033}' | '\u{00AB}'
            | '\u{00BB}' => '"',
            '\u{2010}'..='\u{2015}' | '\u{2212}' => '-',
            '\u{00A0}' | '\u{2007}' | '\u{202F}' => ' ',
            '\u{2026}' => {
                out.push_str("...");
                space = false;
                continue;
            }
            c => c,
        };
        if c.is_whitespace() {
            space = true;
            continue;
        }
        if space && !out.is_empty() {
            out.push(' ');
        }
        space = false;
        out.push(c);
    }
    out
}

/// Whether `quote` appears verbatim (after [`normalize`]) in `text`.
pub fn quote_in_text(quote: &str, text: &str) -> bool {
    let q = normalize(quote);
    let q = q.trim_matches(|c: char| c == '"' || c == '\'' || c.is_whitespace());
    q.chars().count() >= 8 && normalize(text).contains(q)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tolerates_whitespace_and_quote_styles() {
        let text = "He said \u{201C}fees are 1.9%\u{201D}\n   for  domestic cards.";
        assert!(quote_in_text(
            "said \"fees are 1.9%\" for domestic cards.",
            text
        ));
        assert!(!quote_in_text("said \"fees are 1.5%\"", text));
        assert!(!quote_in_text("1.9%", text), "too short to be a quote");
    }
}
