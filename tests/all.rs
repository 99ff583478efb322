//! The one integration-test binary: drives the real `dra` binary with
//! isolated config, data and runs directories, and the engine through its
//! queue pair. No test touches the network.

mod cli;
mod engine;
mod evidence;
