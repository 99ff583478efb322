//! The one integration-test binary: drives the real `dra` binary with
//! isolated config, data and runs directories. No test touches the network.

mod cli;
