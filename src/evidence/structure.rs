//! Structure a page's text keeps: what tables, definition lists and code
//! blocks mean survives as lines of text. A table row is one line, its
//! cells separated by ` | `, a line break inside a cell is a space; an
//! entry of a definition list (its term, then its definition) is one line;
//! a code block has no blank lines, so it reads as one block. Only
//! separators and line breaks change: every word is the page's own, so a
//! quote of a row or a code block verifies against the stored text like
//! any sentence.

use dom_query::{Document, NodeRef};

/// What separates the cells of a table row in a page's text.
pub const CELL_SEPARATOR: &str = " | ";

/// Rewrites `doc` in place so its formatted text keeps rows and cells
/// apart (see the module documentation).
pub fn mark(doc: &Document) {
    // A line break inside a cell is not the end of the row.
    for br in doc.select("td br, th br").nodes() {
        br.replace_with_html(" ");
    }
    for row in doc.select("tr").nodes() {
        let cells: Vec<NodeRef> = row
            .children_it(false)
            .filter(|c| {
                c.node_name()
                    .is_some_and(|n| n.eq_ignore_ascii_case("td") || n.eq_ignore_ascii_case("th"))
            })
            .collect();
        if let Some((_, rest)) = cells.split_last() {
            for cell in rest {
                cell.append_html(CELL_SEPARATOR.trim_end());
            }
        }
    }
    // An entry of a definition list (its term, then its definition) ends
    // its line: the next term is not part of the definition's last sentence.
    for item in doc.select("dd").nodes() {
        item.append_html("<br>");
    }
    // A list item is one line, even when its text is a paragraph: the
    // items of a list follow the sentence that introduces them with no
    // blank line between, so the sentence carries them all.
    for para in doc.select("li > p").nodes() {
        let inner = para.inner_html();
        para.replace_with_html(format!("{inner} "));
    }
    // A code block is one block: its blank lines are not paragraph breaks.
    for pre in doc.select("pre").nodes() {
        let text = pre.text();
        if text.lines().any(|l| l.trim().is_empty()) {
            let kept: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
            pre.set_text(kept.join("\n"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text_of(html: &str) -> String {
        let doc = Document::from(html);
        mark(&doc);
        doc.body()
            .map(|b| b.formatted_text().to_string())
            .unwrap_or_default()
    }

    #[test]
    fn rows_are_lines_and_cells_are_separated() {
        let t = text_of(
            "<table><tr><th>Code</th><th>Meaning</th></tr><tr><td>%q</td><td></td><td>week<br>of year</td></tr></table>",
        );
        assert!(t.contains("Code | Meaning\n"), "{t:?}");
        assert!(t.contains("%q | | week of year"), "{t:?}");
    }

    #[test]
    fn a_definition_reads_after_its_term() {
        let t = text_of(
            "<dl>\n<dt>tide_mark (integer)</dt>\n<dd>Sets the mark. The default is 7.</dd></dl>",
        );
        assert!(t.contains("tide_mark (integer) Sets the mark."), "{t:?}");
        let t = text_of("<dl><dt>a</dt> <dd>b c.</dd><dt>d</dt> <dd>e</dd></dl>");
        assert!(t.contains("a b c.\nd e"), "{t:?}");
    }

    #[test]
    fn list_items_are_lines_even_when_they_are_paragraphs() {
        let t = text_of(
            "<p>Four modes:</p><ul><li><p>PLAIN stores.</p></li><li><p>MAIN packs.</p><p>Rarely.</p></li></ul><p>Done.</p>",
        );
        assert!(t.contains("PLAIN stores.\nMAIN packs. Rarely."), "{t:?}");
        // The sentence that introduces the list carries all its items.
        let units = crate::evidence::sentences::split(&t);
        let carried = "Four modes:\n\nPLAIN stores.\nMAIN packs. Rarely.";
        assert!(units.contains(&carried), "{units:?}");
    }

    #[test]
    fn a_code_block_keeps_its_lines_without_blank_ones() {
        let t = text_of("<p>Set it so:</p><pre>[a]\nx = 1\n\n  [b]\nx = 2\n</pre><p>Done.</p>");
        assert!(t.contains("[a]\nx = 1\n  [b]\nx = 2"), "{t:?}");
    }
}
