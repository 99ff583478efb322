//! Characters a reader cannot see. The cleaner strips them, page metadata
//! drops them and the injection scan reads past them: one set for all
//! three, in a module of its own so none of them imports another for it.

/// Characters a reader cannot see: zero-width, bidi controls, soft hyphen,
/// and Unicode tag characters (which can smuggle ASCII text).
pub fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{00AD}' | '\u{034F}' | '\u{061C}' | '\u{115F}' | '\u{1160}' | '\u{17B4}' | '\u{17B5}'
        | '\u{180E}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2064}'
        | '\u{2066}'..='\u{206F}' | '\u{FEFF}' | '\u{E0000}'..='\u{E007F}')
}
