//! The page store and the mechanical numbering of sources. Every page read
//! is stored (cleaned, judged); accepted pages get a number in order of
//! first read. The report is renumbered later in order of first citation.
//! A resumed run keeps the numbers the earlier invocations gave
//! ([`PageStore::keep_numbers`]): parallel sub-researchers may read in
//! another order, and a page view with another number is another request.

use crate::sync::LockExt;
use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;

use crate::document::{normalize_url, sanitize_line, sanitize_text};
use crate::evidence::injection::InjectionHit;
use crate::evidence::{EvidenceItem, Page};
use crate::protocol::Verdict;

#[derive(Default)]
struct Inner {
    pages: Vec<Page>,
    by_url: HashMap<String, usize>,
    /// Source number (1-based) → page index, accepted pages only.
    numbered: BTreeMap<usize, usize>,
    /// Numbers given by an earlier invocation of this run (normalised URL →
    /// number), kept for those pages and skipped for the others.
    kept: HashMap<String, usize>,
    evidence: Vec<EvidenceItem>,
}

impl Inner {
    fn number_of(&self, page: usize) -> Option<usize> {
        self.numbered
            .iter()
            .find(|&(_, &p)| p == page)
            .map(|(&n, _)| n)
    }

    /// The number for a newly accepted page: its kept one, else the lowest
    /// number neither used nor kept for another page.
    fn next_number(&self, key: &str) -> usize {
        if let Some(&n) = self.kept.get(key)
            && !self.numbered.contains_key(&n)
        {
            return n;
        }
        let kept: std::collections::HashSet<usize> = self.kept.values().copied().collect();
        (1..)
            .find(|n| !self.numbered.contains_key(n) && !kept.contains(n))
            .unwrap_or(usize::MAX)
    }
}

#[derive(Default)]
pub struct PageStore {
    inner: Mutex<Inner>,
}

/// What storing a page yields.
#[derive(Debug, Clone)]
pub struct Stored {
    pub page: Page,
    /// The source number, for accepted pages.
    pub number: Option<usize>,
    /// Whether this URL had been read before in this run.
    pub seen_before: bool,
}

impl PageStore {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock_or_recover()
    }

    /// Keeps the source numbers an earlier invocation of the run gave
    /// (URL → number, from its `source` events).
    pub fn keep_numbers(&self, numbers: impl IntoIterator<Item = (String, usize)>) {
        let mut inner = self.lock();
        for (url, n) in numbers {
            inner.kept.insert(normalize_url(&url), n);
        }
    }

    /// Stores a judged page once per URL; a second read returns the first.
    pub fn insert(&self, mut page: Page) -> Stored {
        // What a page says reaches the model, rows and reports from here:
        // no control sequence or bidi override gets past this point.
        page.title = sanitize_line(&page.title).into_owned();
        page.text = sanitize_text(&page.text).into_owned();
        for a in &mut page.authors {
            *a = sanitize_line(a).into_owned();
        }
        if let Some(p) = &mut page.publisher {
            *p = sanitize_line(p).into_owned();
        }
        let mut inner = self.lock();
        let key = normalize_url(&page.url);
        if let Some(&i) = inner.by_url.get(&key) {
            let page = inner.pages[i].clone();
            let number = inner.number_of(i);
            return Stored {
                page,
                number,
                seen_before: true,
            };
        }
        let i = inner.pages.len();
        inner.by_url.insert(key.clone(), i);
        let number = if page.verdict == Verdict::Accepted {
            let n = inner.next_number(&key);
            inner.numbered.insert(n, i);
            Some(n)
        } else {
            None
        };
        inner.pages.push(page.clone());
        Stored {
            page,
            number,
            seen_before: false,
        }
    }

    pub fn get(&self, url: &str) -> Option<(Page, Option<usize>)> {
        let inner = self.lock();
        let &i = inner.by_url.get(&normalize_url(url))?;
        let number = inner.number_of(i);
        Some((inner.pages[i].clone(), number))
    }

    /// The accepted page with this source number.
    pub fn by_number(&self, n: usize) -> Option<Page> {
        let inner = self.lock();
        let &i = inner.numbered.get(&n)?;
        Some(inner.pages[i].clone())
    }

    pub fn source_count(&self) -> usize {
        self.lock().numbered.len()
    }

    /// The source numbers given, in order (contiguous from 1 unless a
    /// resumed run kept a number for a page it has not read again).
    pub fn numbers(&self) -> Vec<usize> {
        self.lock().numbered.keys().copied().collect()
    }

    /// The numbered pages, by number.
    pub fn numbered_pages(&self) -> Vec<(usize, Page)> {
        let inner = self.lock();
        inner
            .numbered
            .iter()
            .map(|(&n, &i)| (n, inner.pages[i].clone()))
            .collect()
    }

    pub fn pages(&self) -> Vec<Page> {
        self.lock().pages.clone()
    }

    /// Adds an evidence item, numbering it; returns its id.
    pub fn add_evidence(&self, mut item: EvidenceItem) -> String {
        let mut inner = self.lock();
        item.id = format!("e{:03}", inner.evidence.len() + 1);
        let id = item.id.clone();
        inner.evidence.push(item);
        id
    }

    /// Quarantines a page found hostile after it was accepted (a sentence of
    /// it, quoted as evidence, reads as an instruction aimed at AI agents):
    /// it keeps its number, so citations elsewhere do not shift, but it is
    /// no longer a source, and every claim drawn from it is withdrawn.
    /// Returns the page when this changed its verdict.
    pub fn quarantine(&self, url: &str, hits: Vec<InjectionHit>, reason: String) -> Option<Page> {
        let mut inner = self.lock();
        let &i = inner.by_url.get(&normalize_url(url))?;
        let page = &mut inner.pages[i];
        if page.verdict == Verdict::Quarantined {
            return None;
        }
        page.verdict = Verdict::Quarantined;
        page.reason = Some(reason);
        page.injection.extend(hits);
        let page = page.clone();
        for e in inner
            .evidence
            .iter_mut()
            .filter(|e| e.accepted && e.source.url == page.url)
        {
            e.accepted = false;
            e.flags
                .push("page quarantined: it carries instructions aimed at AI agents".into());
        }
        Some(page)
    }

    pub fn evidence(&self) -> Vec<EvidenceItem> {
        self.lock().evidence.clone()
    }
}
