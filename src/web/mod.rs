//! The open web: search backends, and a fetcher behind an SSRF guard.
//!
//! - [`search`]: Tavily, SearXNG and Brave as `SearchBackend`s, described in
//!   one table ([`BACKENDS`]), and [`search_backend_from_settings`] to pick
//!   the configured one.
//! - [`ssrf`]: the guard every fetched URL and redirect hop passes.
//! - [`fetch`]: [`HttpFetcher`], the `Fetcher` for the open web.
//!
//! What a fetched page's text and metadata are is decided in
//! `crate::evidence` (`extract`, `metadata`), not here.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod fetch;
pub mod search;
pub mod ssrf;

pub use fetch::{FetchOptions, Fetched, HttpFetcher};
pub use search::{
    BACKENDS, BackendSpec, Brave, SearchOptions, SearxNg, Tavily, any_backend, backend_keys_hint,
    search_backend_from_settings,
};
pub use ssrf::{Allowlist, HostResolver, SsrfError, SsrfGuard, StaticResolver, SystemResolver};
