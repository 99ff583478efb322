//! report.md never carries a control sequence or bidi override, whatever
//! bytes a quote, a title or the model's text held.

use proptest::prelude::*;

use super::finalize;

proptest! {
    #[test]
    fn report_md_is_free_of_control_sequences(quote in proptest::collection::vec(any::<u8>(), 0..200),
                                              title in proptest::collection::vec(any::<u8>(), 0..80)) {
        let quote = String::from_utf8_lossy(&quote);
        let title = String::from_utf8_lossy(&title);
        let md = format!("# {title}\n\n**Question:** \u{1b}]0;pwned\u{7}{title}\n\n## Findings\n\n- \"{quote}\u{1b}[2J\u{202e}\" [1]\n");
        let fin = finalize(&md, &[], &[], &[], &format!("footer {quote}"));
        prop_assert!(
            !fin.markdown.contains('\u{1b}') && crate::document::sanitize::is_clean(&fin.markdown),
            "{:?}", fin.markdown
        );
    }
}
