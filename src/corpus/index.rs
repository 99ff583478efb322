//! Ranked full-text search over a corpus with tantivy (BM25, English
//! stemming), in memory.

use tantivy::collector::TopDocs;
use tantivy::query::QueryParser;
use tantivy::schema::{
    Field, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing, TextOptions, Value,
};
use tantivy::snippet::SnippetGenerator;
use tantivy::{Index, IndexReader, TantivyDocument, doc};

use super::{CorpusError, RawDocument};
use crate::evidence::clean;

/// Words per passage: a page is indexed as passages of about this many
/// words (whole lines, never cut inside one), so a long manual page is
/// found by the part of it that answers, not diluted by the rest.
const PASSAGE_WORDS: usize = 150;

/// A page of up to this many words is one passage.
const WHOLE_PAGE_WORDS: usize = 600;

/// Passages searched per page asked for: enough that `limit` distinct
/// pages come back when a page matches in several of its passages.
const PASSAGES_PER_RESULT: usize = 8;

/// The share of a page's second-best passage added to its best one's score.
const SECOND_PASSAGE: f32 = 0.6;

/// A search hit: the document's position in the corpus and a snippet.
#[derive(Debug, Clone)]
pub struct Hit {
    pub doc: usize,
    pub score: f32,
    pub snippet: String,
}

pub struct CorpusIndex {
    index: Index,
    reader: IndexReader,
    ord: Field,
    title: Field,
    body: Field,
    /// Adjacent capitalised words written together ("Padma Pay" -> "padmapay"),
    /// so a query for one spelling of a name finds the other, as web search does.
    joined: Field,
    /// Character pairs of Chinese and Japanese text, which has no spaces
    /// between words (see [`crate::answer::cjk`]).
    cjk: Field,
    /// Documents that are stubs of a fuller same-titled page ([`super::stubs`]):
    /// never a search result.
    stubs: std::collections::BTreeSet<usize>,
}

/// Adjacent capitalised words joined: the compound spellings of names.
fn joined_names(text: &str) -> String {
    let words: Vec<&str> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let mut out = Vec::new();
    for pair in words.windows(2) {
        let cap = |w: &str| w.chars().next().is_some_and(char::is_uppercase);
        if cap(pair[0]) && cap(pair[1]) {
            out.push(format!("{}{}", pair[0], pair[1]).to_lowercase());
        }
    }
    out.join(" ")
}

/// The content bigrams of a text's CJK runs, space-separated.
fn bigram_text(text: &str) -> String {
    crate::answer::cjk::bigrams(text)
        .into_iter()
        .filter(|b| !crate::answer::cjk::is_function_bigram(b))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A page's text as passages of whole lines, about [`PASSAGE_WORDS`] words
/// each; a page of up to [`WHOLE_PAGE_WORDS`] is one passage.
fn passages(text: &str) -> Vec<String> {
    if text.split_whitespace().count() <= WHOLE_PAGE_WORDS {
        return vec![text.to_string()];
    }
    let mut out = Vec::new();
    let mut current = String::new();
    let mut count = 0usize;
    for line in text.lines() {
        let n = line.split_whitespace().count();
        if count > 0 && count + n > PASSAGE_WORDS {
            out.push(std::mem::take(&mut current));
            count = 0;
        }
        current.push_str(line);
        current.push('\n');
        count += n;
    }
    if count > 0 || out.is_empty() {
        out.push(current);
    }
    out
}

fn err(e: impl std::fmt::Display) -> CorpusError {
    CorpusError::Index(e.to_string())
}

impl CorpusIndex {
    pub fn build(docs: &[RawDocument]) -> Result<CorpusIndex, CorpusError> {
        let mut schema = Schema::builder();
        let text = TextOptions::default()
            .set_indexing_options(
                TextFieldIndexing::default()
                    .set_tokenizer("en_stem")
                    .set_index_option(IndexRecordOption::WithFreqsAndPositions),
            )
            .set_stored();
        let ord = schema.add_u64_field("ord", STORED);
        let _url = schema.add_text_field("url", STRING);
        let title = schema.add_text_field("title", text.clone());
        let body = schema.add_text_field("body", text.clone());
        let joined = schema.add_text_field("joined", text);
        let cjk_options = TextOptions::default().set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer("default")
                .set_index_option(IndexRecordOption::WithFreqsAndPositions),
        );
        let cjk = schema.add_text_field("cjk", cjk_options);
        let index = Index::create_in_ram(schema.build());
        let mut writer = index
            .writer_with_num_threads::<TantivyDocument>(1, 15_000_000)
            .map_err(err)?;
        let mut seen: Vec<(String, String)> = Vec::with_capacity(docs.len());
        for (i, d) in docs.iter().enumerate() {
            // Index what a reader sees: hidden text must not make a page findable.
            let page = match d.content_type {
                super::ContentType::Html => clean::clean_html(&d.content),
                _ => clean::clean_text(&d.content),
            };
            let t = d.title.clone().or(page.title).unwrap_or_default();
            seen.push((t.clone(), page.text.clone()));
            for passage in passages(&page.text) {
                let compounds = joined_names(&format!("{t}\n{passage}"));
                let pairs = bigram_text(&format!("{t}\n{passage}"));
                writer
                    .add_document(doc!(ord => i as u64, _url => d.url.clone(), title => t.clone(), body => passage, joined => compounds, cjk => pairs))
                    .map_err(err)?;
            }
        }
        writer.commit().map_err(err)?;
        let reader = index.reader().map_err(err)?;
        Ok(CorpusIndex {
            index,
            reader,
            ord,
            title,
            body,
            joined,
            cjk,
            stubs: super::stubs::stubs(&seen),
        })
    }

    pub fn search(&self, query: &str, limit: usize) -> Result<Vec<Hit>, CorpusError> {
        let searcher = self.reader.searcher();
        let mut parser = QueryParser::for_index(
            &self.index,
            vec![self.title, self.body, self.joined, self.cjk],
        );
        parser.set_field_boost(self.title, 2.0);
        parser.set_field_boost(self.joined, 0.5);
        // User and model text is not query syntax: lenient parsing never fails.
        // Chinese and Japanese queries are matched by character pairs.
        let pairs = bigram_text(query);
        let query = if pairs.is_empty() {
            query.to_string()
        } else {
            format!("{query} {pairs}")
        };
        let (q, _errors) = parser.parse_query_lenient(&query);
        // Stubs are asked for and left out, so `limit` real pages come back;
        // a page is ranked by its best passage.
        let wanted = (limit.max(1) + self.stubs.len().min(limit.max(1))) * PASSAGES_PER_RESULT;
        let top = searcher
            .search(&q, &TopDocs::with_limit(wanted).order_by_score())
            .map_err(err)?;
        // A page's passages in score order: its score is its best passage's
        // plus a share of its second best (a page that answers in two places
        // is a better bet than one lucky passage).
        let mut pages: Vec<(usize, f32, Option<f32>, tantivy::DocAddress)> = Vec::new();
        for (score, addr) in top {
            let d: TantivyDocument = searcher.doc(addr).map_err(err)?;
            let Some(ord) = d.get_first(self.ord).and_then(|v| v.as_u64()) else {
                continue;
            };
            let ord = ord as usize;
            if self.stubs.contains(&ord) {
                continue;
            }
            // Scores come best first: a page's first passage is its best,
            // the next one its second best.
            match pages.iter_mut().find(|p| p.0 == ord) {
                Some(p) => {
                    p.2.get_or_insert(score);
                }
                None => pages.push((ord, score, None, addr)),
            }
        }
        let mut ranked: Vec<(usize, f32, tantivy::DocAddress)> = pages
            .into_iter()
            .map(|(ord, best, second, addr)| {
                (ord, best + SECOND_PASSAGE * second.unwrap_or(0.0), addr)
            })
            .collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        ranked.truncate(limit.max(1));
        let mut snippets = SnippetGenerator::create(&searcher, &*q, self.body).map_err(err)?;
        snippets.set_max_num_chars(240);
        let mut hits = Vec::with_capacity(ranked.len());
        for (ord, score, addr) in ranked {
            let d: TantivyDocument = searcher.doc(addr).map_err(err)?;
            let snippet = snippets.snippet_from_doc(&d);
            let mut text = snippet.fragment().to_string();
            if text.is_empty() {
                text = d
                    .get_first(self.body)
                    .and_then(|v| v.as_str())
                    .map(|s| s.chars().take(240).collect())
                    .unwrap_or_default();
            }
            hits.push(Hit {
                doc: ord,
                score,
                snippet: text.split_whitespace().collect::<Vec<_>>().join(" "),
            });
        }
        Ok(hits)
    }
}
