//! The one integration-test binary: drives the real `dra` binary with
//! isolated config, data and runs directories, the engine through its queue
//! pair, the model client against a scripted server, the fetcher against
//! loopback servers, and the evidence engine on a real corpus. No test
//! touches the network.
#![expect(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    reason = "tests fail loudly and may print what they saw"
)]

mod cli;
mod engine;
mod evidence;
mod model;
mod web;
