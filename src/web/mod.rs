//! The open web: search backends, and a fetcher behind an SSRF guard.
//!
//! - [`search`]: Tavily, SearXNG and Brave as `SearchBackend`s, and
//!   [`search_backend_from_settings`] to pick the configured one.
//! - [`ssrf`]: the guard every fetched URL and redirect hop passes.
//! - [`fetch`]: [`HttpFetcher`], the `Fetcher` for the open web.
//! - [`extract`]: main text of HTML (readability) and text of PDF.
//! - [`metadata`]: dates, authors, publisher and source type from JSON-LD,
//!   OpenGraph and `<time>`.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod fetch;
pub mod search;
pub mod ssrf;

pub use fetch::{FetchOptions, Fetched, HttpFetcher};
pub use search::{Brave, SearchOptions, SearxNg, Tavily, search_backend_from_settings};
pub use ssrf::{Allowlist, HostResolver, SsrfError, SsrfGuard, StaticResolver, SystemResolver};
