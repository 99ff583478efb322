//! What a corpus index holds, and how a page goes in and comes out.
//!
//! Two tantivy indexes: the passages (what search ranks: a page cut into
//! passages of whole lines, with its title) and the pages (each document
//! whole, as read, by its id and its URL). They are kept apart so the
//! pages never count in BM25's statistics. Both carry the file a page came
//! from, so a changed or deleted file's pages are dropped by one term.

use tantivy::collector::TopDocs;
use tantivy::query::TermQuery;
use tantivy::schema::{
    FAST, Field, INDEXED, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing,
    TextOptions, Value,
};
use tantivy::{Index, IndexWriter, Searcher, TantivyDocument, Term, doc};

use super::stubs::Shape;
use super::{CorpusError, RawDocument};
use crate::embed::store::{Key, key};
use crate::evidence::clean;

/// Words per passage: a page is indexed as passages of about this many
/// words (whole lines, never cut inside one), so a long manual page is
/// found by the part of it that answers, not diluted by the rest.
const PASSAGE_WORDS: usize = 150;

/// A page of up to this many words is one passage.
const WHOLE_PAGE_WORDS: usize = 600;

pub(super) fn err(e: impl std::fmt::Display) -> CorpusError {
    CorpusError::Index(e.to_string())
}

/// The fields of the passages index.
#[derive(Debug, Clone, Copy)]
pub(super) struct PassageFields {
    /// The page's id.
    pub ord: Field,
    pub url: Field,
    pub title: Field,
    pub body: Field,
    /// Adjacent capitalised words written together ("Padma Pay" -> "padmapay"),
    /// so a query for one spelling of a name finds the other, as web search does.
    pub joined: Field,
    /// Character pairs of Chinese and Japanese text, which has no spaces
    /// between words (see [`crate::answer::cjk`]).
    pub cjk: Field,
    /// The file the page came from (its path under the folder).
    pub file: Field,
    pub key_hi: Field,
    pub key_lo: Field,
}

/// The fields of the pages index.
#[derive(Debug, Clone, Copy)]
pub(super) struct PageFields {
    pub id: Field,
    /// The page's normalised URL ([`crate::document::normalize_url`]).
    pub url: Field,
    pub file: Field,
    /// The document as read, as JSON.
    pub raw: Field,
}

pub(super) fn passage_schema() -> Schema {
    let mut schema = Schema::builder();
    let text = TextOptions::default()
        .set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer("en_stem")
                .set_index_option(IndexRecordOption::WithFreqsAndPositions),
        )
        .set_stored();
    schema.add_u64_field("ord", STORED | FAST);
    schema.add_text_field("url", STRING);
    schema.add_text_field("title", text.clone());
    schema.add_text_field("body", text);
    // Searched, never shown: not stored.
    let unstored = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer("en_stem")
            .set_index_option(IndexRecordOption::WithFreqsAndPositions),
    );
    schema.add_text_field("joined", unstored);
    let cjk_options = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer("default")
            .set_index_option(IndexRecordOption::WithFreqsAndPositions),
    );
    schema.add_text_field("cjk", cjk_options);
    schema.add_text_field("file", STRING);
    // The key of the text a passage's vector is of ([`embedded_text`]), as
    // two columns: dense ranking finds every passage's vector without
    // reading the passages.
    schema.add_u64_field("key_hi", FAST);
    schema.add_u64_field("key_lo", FAST);
    schema.build()
}

/// The text of a passage that is embedded: its page title and its words.
pub(super) fn embedded_text(title: &str, body: &str) -> String {
    format!("{title}\n{body}")
}

/// A vector key as the two numbers the index keeps (high, low).
fn key_parts(k: &Key) -> (u64, u64) {
    let n = u128::from_be_bytes(*k);
    ((n >> 64) as u64, n as u64)
}

/// The key [`key_parts`] split.
fn key_of_parts(hi: u64, lo: u64) -> Key {
    ((u128::from(hi) << 64) | u128::from(lo)).to_be_bytes()
}

/// Every live passage of a segment: its page id and its vector key.
pub(super) fn passage_keys(
    reader: &tantivy::SegmentReader,
) -> Result<Vec<(tantivy::DocId, u64, Key)>, CorpusError> {
    let ff = reader.fast_fields();
    let (ords, hi, lo) = (
        ff.u64("ord").map_err(err)?,
        ff.u64("key_hi").map_err(err)?,
        ff.u64("key_lo").map_err(err)?,
    );
    let mut out = Vec::new();
    for doc in reader.doc_ids_alive() {
        let (Some(ord), Some(h), Some(l)) = (ords.first(doc), hi.first(doc), lo.first(doc)) else {
            continue;
        };
        out.push((doc, ord, key_of_parts(h, l)));
    }
    Ok(out)
}

pub(super) fn page_schema() -> Schema {
    let mut schema = Schema::builder();
    schema.add_u64_field("id", INDEXED | STORED);
    schema.add_text_field("url", STRING);
    schema.add_text_field("file", STRING);
    schema.add_text_field("raw", STORED);
    schema.build()
}

/// A field of an index by name; an index without it is not one of ours.
fn field(schema: &Schema, name: &str) -> Result<Field, CorpusError> {
    schema
        .get_field(name)
        .map_err(|_| CorpusError::Index(format!("the index has no field `{name}`")))
}

/// An index's schema when it is `want`; another is not trusted.
fn schema_of(index: &Index, want: Schema, what: &str) -> Result<Schema, CorpusError> {
    let s = index.schema();
    if s != want {
        return Err(CorpusError::Index(format!(
            "the {what} index was written by another version"
        )));
    }
    Ok(s)
}

impl PassageFields {
    pub fn of(index: &Index) -> Result<Self, CorpusError> {
        let s = schema_of(index, passage_schema(), "passage")?;
        Ok(PassageFields {
            ord: field(&s, "ord")?,
            url: field(&s, "url")?,
            title: field(&s, "title")?,
            body: field(&s, "body")?,
            joined: field(&s, "joined")?,
            cjk: field(&s, "cjk")?,
            file: field(&s, "file")?,
            key_hi: field(&s, "key_hi")?,
            key_lo: field(&s, "key_lo")?,
        })
    }
}

impl PageFields {
    pub fn of(index: &Index) -> Result<Self, CorpusError> {
        let s = schema_of(index, page_schema(), "page")?;
        Ok(PageFields {
            id: field(&s, "id")?,
            url: field(&s, "url")?,
            file: field(&s, "file")?,
            raw: field(&s, "raw")?,
        })
    }
}

/// Segments of more documents than this are never merged. Merging a big
/// folder's segments reads them all back (through memory maps) and doubled
/// the peak memory of indexing a 50,000-file tree (359 MB against 141 MB);
/// the small segments a refresh adds are still merged together.
const MERGE_MAX_DOCS: usize = 5_000;

fn merge_policy() -> tantivy::merge_policy::LogMergePolicy {
    let mut policy = tantivy::merge_policy::LogMergePolicy::default();
    policy.set_max_docs_before_merge(MERGE_MAX_DOCS);
    policy
}

/// The two writers of a corpus index.
pub(super) struct Writers {
    pub passages: IndexWriter,
    pub pages: IndexWriter,
    pub passage_fields: PassageFields,
    pub page_fields: PageFields,
}

/// A writer's memory for its documents before it writes a segment.
const WRITER_BYTES: usize = 32_000_000;

impl Writers {
    pub fn new(passages: &Index, pages: &Index) -> Result<Writers, CorpusError> {
        let writer = |index: &Index| {
            let w = index
                .writer_with_num_threads::<TantivyDocument>(1, WRITER_BYTES)
                .map_err(err)?;
            w.set_merge_policy(Box::new(merge_policy()));
            Ok::<_, CorpusError>(w)
        };
        Ok(Writers {
            passages: writer(passages)?,
            pages: writer(pages)?,
            passage_fields: PassageFields::of(passages)?,
            page_fields: PageFields::of(pages)?,
        })
    }

    /// Adds a page as its passages and as itself, under id `id` and file
    /// `file`; returns its shape.
    pub fn add(&mut self, id: u64, file: &str, d: &RawDocument) -> Result<Shape, CorpusError> {
        // Index what a reader sees: hidden text must not make a page findable.
        let page = match d.content_type {
            super::ContentType::Html => clean::clean_html(&d.content),
            _ => clean::clean_text(&d.content),
        };
        let t = d.title.clone().or(page.title).unwrap_or_default();
        let f = self.passage_fields;
        for passage in passages(&page.text) {
            let compounds = joined_names(&format!("{t}\n{passage}"));
            let pairs = bigram_text(&format!("{t}\n{passage}"));
            let (hi, lo) = key_parts(&key(&embedded_text(&t, &passage)));
            self.passages
                .add_document(doc!(f.ord => id, f.url => d.url.clone(), f.title => t.clone(), f.body => passage, f.joined => compounds, f.cjk => pairs, f.file => file, f.key_hi => hi, f.key_lo => lo))
                .map_err(err)?;
        }
        let p = self.page_fields;
        let raw = serde_json::to_string(d).map_err(err)?;
        self.pages
            .add_document(doc!(p.id => id, p.url => crate::document::normalize_url(&d.url), p.file => file, p.raw => raw))
            .map_err(err)?;
        Ok(Shape {
            title: super::stubs::title_key(&t),
            chars: page.text.chars().count(),
            moved: super::stubs::says_moved(&page.text),
        })
    }

    /// Drops every page of `file`.
    pub fn delete_file(&mut self, file: &str) {
        self.passages
            .delete_term(Term::from_field_text(self.passage_fields.file, file));
        self.pages
            .delete_term(Term::from_field_text(self.page_fields.file, file));
    }

    /// Commits both indexes; returns their opstamps (passages, pages).
    pub fn commit(&mut self) -> Result<(u64, u64), CorpusError> {
        let a = self.passages.commit().map_err(err)?;
        let b = self.pages.commit().map_err(err)?;
        Ok((a, b))
    }

    /// Waits for the writers' merges, so nothing is left half-written.
    pub fn finish(self) -> Result<(), CorpusError> {
        self.passages.wait_merging_threads().map_err(err)?;
        self.pages.wait_merging_threads().map_err(err)
    }
}

/// The one page matching `term`, read back as the document it was.
fn page_by(
    searcher: &Searcher,
    fields: &PageFields,
    term: Term,
) -> Result<Option<RawDocument>, CorpusError> {
    let q = TermQuery::new(term, IndexRecordOption::Basic);
    let top = searcher
        .search(&q, &TopDocs::with_limit(1).order_by_score())
        .map_err(err)?;
    let Some((_, addr)) = top.into_iter().next() else {
        return Ok(None);
    };
    let d: TantivyDocument = searcher.doc(addr).map_err(err)?;
    let raw = d
        .get_first(fields.raw)
        .and_then(|v| v.as_str())
        .unwrap_or_default();
    serde_json::from_str(raw).map(Some).map_err(err)
}

/// The page with id `id`.
pub(super) fn page(
    searcher: &Searcher,
    fields: &PageFields,
    id: u64,
) -> Result<Option<RawDocument>, CorpusError> {
    page_by(searcher, fields, Term::from_field_u64(fields.id, id))
}

/// The page at `url` (any spelling [`crate::document::normalize_url`] equates).
pub(super) fn page_at(
    searcher: &Searcher,
    fields: &PageFields,
    url: &str,
) -> Result<Option<RawDocument>, CorpusError> {
    let key = crate::document::normalize_url(url);
    page_by(searcher, fields, Term::from_field_text(fields.url, &key))
}

/// Every page's id, in id order.
pub(super) fn ids(searcher: &Searcher, fields: &PageFields) -> Result<Vec<u64>, CorpusError> {
    let mut ids = Vec::new();
    for reader in searcher.segment_readers() {
        let store = reader.get_store_reader(1).map_err(err)?;
        for doc in reader.doc_ids_alive() {
            let d: TantivyDocument = store.get(doc).map_err(err)?;
            if let Some(id) = d.get_first(fields.id).and_then(|v| v.as_u64()) {
                ids.push(id);
            }
        }
    }
    ids.sort_unstable();
    Ok(ids)
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
pub(super) fn bigram_text(text: &str) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_split_in_two_numbers_comes_back_whole() {
        let k = key("Title\nA passage.");
        let (hi, lo) = key_parts(&k);
        assert_eq!(key_of_parts(hi, lo), k);
        assert_eq!(hi.to_be_bytes(), k[..8]);
    }
}
