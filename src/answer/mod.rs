//! Answers as values. A (sub-)question asks for a kind of value
//! ([`AnswerType`]: a person, a date, an amount of money...); candidate
//! answers are the spans of that kind in sentences about the question
//! ([`spans`]), normalised so that "$10.4 billion" and "US$10.4bn" are one
//! value; the answer is the value most independent sources state, in the
//! sentences most about the question ([`vote`]). When no sentence about the
//! question states a value of the kind asked for, the sources do not say.
//!
//! It knows words, numbers and dates (and the calendar words of
//! [`crate::document`]), nothing of runs, pages or reports, so the offline
//! model, the merge and the report all read answers the same way.

pub mod acronym;
pub mod cjk;
mod kind;
mod mention;
pub mod release;
pub mod spans;
pub mod vote;

pub use kind::{AUXILIARIES, AnswerType, asks_for_list, expected, is_phrased_as_question};
pub use spans::{Span, SpanContext, is_english_word};
pub use vote::{Ballot, Outcome, Passage, Voted};
