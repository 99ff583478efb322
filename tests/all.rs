//! The one integration-test binary: drives the real `dra` binary with
//! isolated config, data and runs directories, the engine through its queue
//! pair, the model client against a scripted server, and the fetcher against
//! loopback servers. No test touches the network.

mod cli;
mod engine;
mod model;
mod web;
