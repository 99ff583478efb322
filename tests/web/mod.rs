//! Web search backends and the SSRF-guarded fetcher against loopback
//! servers; the hostile-URL table inside a private network namespace.

pub mod common;
mod fetch;
mod search;
mod ssrf_netns;
