//! Ranked full-text search over a corpus with tantivy (BM25, English
//! stemming): in memory, or on disk for a folder ([`super::cache`]).

use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, Occur, Query, QueryParser};
use tantivy::schema::{Field, Value};
use tantivy::snippet::SnippetGenerator;
use tantivy::{Index, IndexReader, ReloadPolicy, TantivyDocument};

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::pages::{self, PageFields, PassageFields, Writers, bigram_text, err};
use super::rerank::{self, QueryWords};
use super::{CorpusError, RawDocument};
use crate::embed::Embedder;
use crate::embed::store::{Key, VectorStore, key};
use crate::sync::LockExt;

/// Passages searched per page asked for: enough that `limit` distinct
/// pages come back when a page matches in several of its passages.
const PASSAGES_PER_RESULT: usize = 8;

/// BM25's best passages re-ranked ([`rerank`]) before pages are ranked.
const RERANK_POOL: usize = 200;

/// The share of a page's second-best passage added to its best one's score.
const SECOND_PASSAGE: f32 = 0.6;

/// One matching passage: its page, its BM25 score and where tantivy keeps it.
#[derive(Debug, Clone, Copy)]
struct Passage {
    ord: usize,
    score: f32,
    addr: tantivy::DocAddress,
}

/// Pages ranked by their passages, best first: a page's score is its best
/// passage's plus a share of its second best (a page that answers in two
/// places is a better bet than one lucky passage). `passages` come best first.
fn by_page(passages: &[Passage]) -> Vec<(usize, f32, tantivy::DocAddress)> {
    let mut pages: Vec<(usize, f32, Option<f32>, tantivy::DocAddress)> = Vec::new();
    for p in passages {
        match pages.iter_mut().find(|page| page.0 == p.ord) {
            Some(page) => {
                page.2.get_or_insert(p.score);
            }
            None => pages.push((p.ord, p.score, None, p.addr)),
        }
    }
    let mut ranked: Vec<(usize, f32, tantivy::DocAddress)> = pages
        .into_iter()
        .map(|(ord, best, second, addr)| (ord, best + SECOND_PASSAGE * second.unwrap_or(0.0), addr))
        .collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    ranked
}

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
    /// The passages' fields ([`pages`]).
    f: PassageFields,
    /// Every page whole, by id and URL ([`pages`]).
    pages: IndexReader,
    page_fields: PageFields,
    /// Documents that are stubs of a fuller same-titled page ([`super::stubs`]):
    /// never a search result.
    stubs: std::collections::BTreeSet<usize>,
    /// Ranks by meaning as well as words when set ([`CorpusIndex::set_embedder`]).
    dense: Option<Dense>,
}

/// Dense ranking: the embedder, every passage's key (the hash of the text
/// it embeds), and the vectors computed so far (kept between runs when the
/// store has a file).
struct Dense {
    embedder: Arc<dyn Embedder>,
    passages: Vec<(tantivy::DocAddress, usize, Key)>,
    keys: HashMap<tantivy::DocAddress, Key>,
    store: Mutex<VectorStore>,
}

/// Passages (BM25's best) embedded per search when their vectors are not
/// stored yet; with every vector stored (`dra index`), dense ranking covers
/// the whole corpus.
const DENSE_POOL: usize = 24;

/// Reciprocal-rank fusion's constant: a higher one flattens the top ranks.
/// 60 is the usual choice; 5, 20 and weighting the meaning list 1.5x or 2x
/// moved recall@5 on the retrieval bench by at most 2 points either way.
const RRF_K: f32 = 60.0;

impl CorpusIndex {
    /// Indexes `docs` in memory; a document's id is its position.
    pub fn build(docs: &[RawDocument]) -> Result<CorpusIndex, CorpusError> {
        let passages = Index::create_in_ram(pages::passage_schema());
        let pages = Index::create_in_ram(pages::page_schema());
        let mut writers = Writers::new(&passages, &pages)?;
        let mut shapes = Vec::with_capacity(docs.len());
        for (i, d) in docs.iter().enumerate() {
            shapes.push(writers.add(i as u64, &d.url, d)?);
        }
        writers.commit()?;
        writers.finish()?;
        let stubs = super::stubs::stubs(shapes.iter().enumerate().map(|(i, s)| (i as u64, s)));
        CorpusIndex::open(passages, pages, stubs)
    }

    /// Searches the indexes a corpus was written to ([`pages`]), leaving
    /// out `stubs`.
    pub(super) fn open(
        passages: Index,
        pages: Index,
        stubs: std::collections::BTreeSet<u64>,
    ) -> Result<CorpusIndex, CorpusError> {
        let f = PassageFields::of(&passages)?;
        let page_fields = PageFields::of(&pages)?;
        let reader = |index: &Index| {
            index
                .reader_builder()
                .reload_policy(ReloadPolicy::Manual)
                .try_into()
                .map_err(err)
        };
        Ok(CorpusIndex {
            reader: reader(&passages)?,
            pages: reader(&pages)?,
            index: passages,
            f,
            page_fields,
            stubs: stubs.into_iter().map(|id| id as usize).collect(),
            dense: None,
        })
    }

    /// How many pages there are.
    pub fn len(&self) -> usize {
        self.pages.searcher().num_docs() as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The page with id `id` (a [`Hit::doc`]).
    pub fn document(&self, id: usize) -> Result<Option<RawDocument>, CorpusError> {
        pages::page(&self.pages.searcher(), &self.page_fields, id as u64)
    }

    /// The page at `url`.
    pub fn document_at(&self, url: &str) -> Result<Option<RawDocument>, CorpusError> {
        pages::page_at(&self.pages.searcher(), &self.page_fields, url)
    }

    /// Every page, in id order (for tests and small corpora: it reads all).
    pub fn documents(&self) -> Result<Vec<RawDocument>, CorpusError> {
        let searcher = self.pages.searcher();
        let mut out = Vec::new();
        for id in pages::ids(&searcher, &self.page_fields)? {
            out.extend(pages::page(&searcher, &self.page_fields, id)?);
        }
        Ok(out)
    }

    /// Search ranks by meaning as well as words from now on, with the
    /// vectors `store` holds and adds.
    pub fn set_embedder(
        &mut self,
        embedder: Arc<dyn Embedder>,
        store: VectorStore,
    ) -> Result<(), CorpusError> {
        let searcher = self.reader.searcher();
        let mut passages = Vec::new();
        for (segment, reader) in searcher.segment_readers().iter().enumerate() {
            for (doc, ord, k) in pages::passage_keys(reader)? {
                if !self.stubs.contains(&(ord as usize)) {
                    let addr = tantivy::DocAddress::new(segment as u32, doc);
                    passages.push((addr, ord as usize, k));
                }
            }
        }
        let keys = passages.iter().map(|p| (p.0, p.2)).collect();
        self.dense = Some(Dense {
            embedder,
            passages,
            keys,
            store: Mutex::new(store),
        });
        Ok(())
    }

    /// The text of a passage that is embedded ([`pages::embedded_text`]).
    fn embedded_text(&self, d: &TantivyDocument) -> String {
        let field = |f: Field| d.get_first(f).and_then(|v| v.as_str()).unwrap_or_default();
        pages::embedded_text(field(self.f.title), field(self.f.body))
    }

    /// Passages there are, and how many of them have a vector.
    pub fn dense_coverage(&self) -> Option<(usize, usize)> {
        let dense = self.dense.as_ref()?;
        let store = dense.store.lock_or_recover();
        let known = dense
            .passages
            .iter()
            .filter(|p| store.get(&p.2).is_some())
            .count();
        Some((dense.passages.len(), known))
    }

    /// Embeds every passage that has no vector yet, `batch` at a time,
    /// telling `progress` (done, all) after each batch.
    pub fn embed_all(
        &self,
        batch: usize,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<(), CorpusError> {
        let Some(dense) = &self.dense else {
            return Ok(());
        };
        let searcher = self.reader.searcher();
        let missing: Vec<Passage> = {
            let store = dense.store.lock_or_recover();
            dense
                .passages
                .iter()
                .filter(|p| store.get(&p.2).is_none())
                .map(|p| Passage {
                    ord: p.1,
                    score: 0.0,
                    addr: p.0,
                })
                .collect()
        };
        let all = missing.len();
        for (i, chunk) in missing.chunks(batch.max(1)).enumerate() {
            self.passage_vectors(dense, &searcher, chunk)?;
            progress((i * batch.max(1) + chunk.len()).min(all), all);
        }
        Ok(())
    }

    pub fn search(&self, query: &str, limit: usize) -> Result<Vec<Hit>, CorpusError> {
        let searcher = self.reader.searcher();
        let mut parser = QueryParser::for_index(
            &self.index,
            vec![self.f.title, self.f.body, self.f.joined, self.f.cjk],
        );
        parser.set_field_boost(self.f.title, 2.0);
        parser.set_field_boost(self.f.joined, 0.5);
        // User and model text is not query syntax: lenient parsing never fails.
        // Chinese and Japanese queries are matched by character pairs.
        let pairs = bigram_text(query);
        let text = if pairs.is_empty() {
            query.to_string()
        } else {
            format!("{query} {pairs}")
        };
        let (parsed, _errors) = parser.parse_query_lenient(&text);
        let mut analyzer = self.index.tokenizer_for_field(self.f.body).map_err(err)?;
        let words = QueryWords::of(query, &mut analyzer, &searcher, self.f.body);
        // The query's words and their families (at a lower weight).
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = vec![(Occur::Should, parsed)];
        clauses.extend(
            rerank::family_queries(words.family_terms(self.f.body))
                .into_iter()
                .map(|q| (Occur::Should, q)),
        );
        let q = BooleanQuery::new(clauses);
        // Stubs are asked for and left out, so `limit` real pages come back;
        // a page is ranked by its best passage, BM25's best re-ranked by
        // how much of the query they hold and how close together.
        let limit = limit.max(1);
        let mut wanted = (limit + self.stubs.len().min(limit)) * PASSAGES_PER_RESULT;
        if self.dense.is_some() {
            wanted = wanted.max(DENSE_POOL);
        }
        let top = searcher
            .search(
                &q,
                &TopDocs::with_limit(wanted.max(RERANK_POOL)).order_by_score(),
            )
            .map_err(err)?;
        let mut passages: Vec<Passage> = Vec::with_capacity(top.len());
        for (score, addr) in top {
            let d: TantivyDocument = searcher.doc(addr).map_err(err)?;
            let Some(ord) = d.get_first(self.f.ord).and_then(|v| v.as_u64()) else {
                continue;
            };
            let ord = ord as usize;
            if self.stubs.contains(&ord) {
                continue;
            }
            let field = |f: Field| d.get_first(f).and_then(|v| v.as_str()).unwrap_or_default();
            let title = rerank::stems(&mut analyzer, field(self.f.title));
            let body = rerank::stems(&mut analyzer, field(self.f.body));
            let score = score * words.fit(&title, &body);
            passages.push(Passage { ord, score, addr });
        }
        passages.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.ord.cmp(&b.ord)));
        passages.truncate(wanted);
        let mut ranked = by_page(&passages);
        if let Some(dense) = &self.dense {
            match self.fuse(dense, &searcher, query, &passages, &ranked) {
                Ok(fused) => ranked = fused,
                Err(e) => tracing::warn!("dense ranking skipped: {e}"),
            }
        }
        ranked.truncate(limit);
        let mut snippets = SnippetGenerator::create(&searcher, &q, self.f.body).map_err(err)?;
        snippets.set_max_num_chars(240);
        let mut hits = Vec::with_capacity(ranked.len());
        for (ord, score, addr) in ranked {
            let d: TantivyDocument = searcher.doc(addr).map_err(err)?;
            let snippet = snippets.snippet_from_doc(&d);
            let mut text = snippet.fragment().to_string();
            if text.is_empty() {
                text = d
                    .get_first(self.f.body)
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

    /// BM25's page ranking fused with dense similarity over the same
    /// passages by reciprocal rank: a page high in either list rises.
    fn fuse(
        &self,
        dense: &Dense,
        searcher: &tantivy::Searcher,
        query: &str,
        passages: &[Passage],
        bm25: &[(usize, f32, tantivy::DocAddress)],
    ) -> Result<Vec<(usize, f32, tantivy::DocAddress)>, CorpusError> {
        let pool = &passages[..passages.len().min(DENSE_POOL)];
        self.passage_vectors(dense, searcher, pool)?;
        let asked = dense
            .embedder
            .embed(&[query])
            .map_err(err)?
            .pop()
            .unwrap_or_default();
        // A page's dense score is its closest passage's, over every passage
        // with a vector.
        let mut by_meaning: Vec<(usize, f32, tantivy::DocAddress)> = Vec::new();
        let store = dense.store.lock_or_recover();
        let mut best: HashMap<usize, (f32, tantivy::DocAddress)> = HashMap::new();
        for (addr, ord, k) in &dense.passages {
            let Some(v) = store.get(k) else { continue };
            let sim = crate::embed::similarity(&asked, &v);
            let entry = best.entry(*ord).or_insert((f32::MIN, *addr));
            if sim > entry.0 {
                *entry = (sim, *addr);
            }
        }
        drop(store);
        by_meaning.extend(best.into_iter().map(|(ord, (sim, addr))| (ord, sim, addr)));
        by_meaning.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let mut fused: Vec<(usize, f32, tantivy::DocAddress)> = Vec::new();
        for list in [bm25, &by_meaning[..]] {
            for (rank, &(ord, _, addr)) in list.iter().enumerate() {
                let share = 1.0 / (RRF_K + rank as f32 + 1.0);
                match fused.iter_mut().find(|page| page.0 == ord) {
                    Some(page) => page.1 += share,
                    None => fused.push((ord, share, addr)),
                }
            }
        }
        fused.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        Ok(fused)
    }

    /// Embeds the passages of `pool` that have no vector yet.
    fn passage_vectors(
        &self,
        dense: &Dense,
        searcher: &tantivy::Searcher,
        pool: &[Passage],
    ) -> Result<(), CorpusError> {
        let mut missing: Vec<(Key, String)> = Vec::new();
        {
            let store = dense.store.lock_or_recover();
            for p in pool {
                let known = dense
                    .keys
                    .get(&p.addr)
                    .is_some_and(|k| store.get(k).is_some());
                if !known {
                    let d: TantivyDocument = searcher.doc(p.addr).map_err(err)?;
                    let text = self.embedded_text(&d);
                    let k = key(&text);
                    if !missing.iter().any(|m| m.0 == k) {
                        missing.push((k, text));
                    }
                }
            }
        }
        if missing.is_empty() {
            return Ok(());
        }
        let texts: Vec<&str> = missing.iter().map(|m| m.1.as_str()).collect();
        let vectors = dense.embedder.embed(&texts).map_err(err)?;
        let new = missing.into_iter().map(|m| m.0).zip(vectors).collect();
        if let Err(e) = dense.store.lock_or_recover().insert(new) {
            tracing::warn!("embedding vectors not saved: {e}");
        }
        Ok(())
    }
}
