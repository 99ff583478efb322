//! Whether the run's sources could be reached. Every search and fetch is
//! counted as it is answered; a run that read nothing because every search
//! (or every fetch) failed for network or backend reasons is an outage,
//! not a question for the user: it ends `error` with its own reason.

use std::sync::Mutex;

use crate::ports::WebError;
use crate::protocol::StatusReason;
use crate::sync::LockExt;

#[derive(Debug, Default)]
struct Counts {
    searches_ok: u32,
    searches_failed: u32,
    fetches_ok: u32,
    fetches_failed: u32,
    last_search_error: String,
    last_fetch_error: String,
}

/// The searches and fetches of one run, answered and failed.
#[derive(Debug, Default)]
pub struct Reach {
    counts: Mutex<Counts>,
}

/// Why nothing could be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outage {
    pub reason: StatusReason,
    /// What failed and how, for the status detail and the report.
    pub detail: String,
}

/// A failure of the network or of the backend (not a page that is not
/// there, nor one the guard refused).
pub fn is_outage<T>(result: &Result<T, WebError>) -> bool {
    matches!(result, Err(WebError::Failed(_)))
}

impl Reach {
    pub fn search<T>(&self, result: &Result<T, WebError>) {
        let mut c = self.counts.lock_or_recover();
        match result {
            Ok(_) => c.searches_ok += 1,
            Err(e) if is_outage(result) => {
                c.searches_failed += 1;
                c.last_search_error = e.to_string();
            }
            Err(_) => {}
        }
    }

    pub fn fetch<T>(&self, result: &Result<T, WebError>) {
        let mut c = self.counts.lock_or_recover();
        match result {
            Ok(_) => c.fetches_ok += 1,
            Err(e) if is_outage(result) => {
                c.fetches_failed += 1;
                c.last_fetch_error = e.to_string();
            }
            Err(_) => {}
        }
    }

    /// The outage, when every search failed, or searches answered but
    /// every page fetch failed.
    pub fn outage(&self, backend: &str) -> Option<Outage> {
        let c = self.counts.lock_or_recover();
        if c.searches_ok == 0 && c.searches_failed > 0 {
            return Some(Outage {
                reason: StatusReason::SearchUnavailable,
                detail: format!(
                    "the search backend ({backend}) could not be reached: all {} searches failed; the last error: {}",
                    c.searches_failed, c.last_search_error
                ),
            });
        }
        if c.fetches_ok == 0 && c.fetches_failed > 0 {
            return Some(Outage {
                reason: StatusReason::SourcesUnreachable,
                detail: format!(
                    "no page could be fetched: all {} fetches failed; the last error: {}",
                    c.fetches_failed, c.last_fetch_error
                ),
            });
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_outage_is_every_search_or_every_fetch_failing_for_the_network() {
        let r = Reach::default();
        assert_eq!(r.outage("tavily"), None);
        r.search::<()>(&Err(WebError::Failed("cannot connect: dns error".into())));
        let o = r.outage("tavily").unwrap();
        assert_eq!(o.reason, StatusReason::SearchUnavailable);
        assert!(
            o.detail.contains("tavily") && o.detail.contains("dns error"),
            "{o:?}"
        );
        // One search answered: the backend is up; every fetch failing is.
        r.search(&Ok(()));
        assert_eq!(r.outage("tavily"), None);
        r.fetch::<()>(&Err(WebError::NotFound("404".into())));
        assert_eq!(r.outage("tavily"), None, "a missing page is no outage");
        r.fetch::<()>(&Err(WebError::Failed("connection refused".into())));
        assert_eq!(
            r.outage("tavily").unwrap().reason,
            StatusReason::SourcesUnreachable
        );
        r.fetch(&Ok(()));
        assert_eq!(r.outage("tavily"), None);
    }
}
