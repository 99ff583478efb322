//! Interactive clarification: on a terminal, the questions of a
//! `clarification` event are asked one by one with dialoguer (live rows
//! hidden meanwhile) and the answers go back into the same run as
//! `Op::Answer`. An empty answer means "no preference".

use std::io::IsTerminal;

use dialoguer::Input;
use dialoguer::console::Term;

use super::GlobalArgs;
use super::render::Renderer;
use crate::protocol::Op;

/// Whether this invocation may ask the user: stdin and stderr are
/// terminals, and neither `--json` nor `--no-input` was given.
pub fn can_prompt(g: &GlobalArgs, no_input: bool) -> bool {
    !g.json && !no_input && std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
}

/// How asking ended.
pub enum Asked {
    /// The answers were sent to the engine.
    Answered,
    /// The user pressed Ctrl-C (or the terminal went away) while answering.
    Interrupted,
}

/// Asks each question on stderr and sends the answers to the run.
pub async fn ask(
    renderer: &Renderer,
    ops: &tokio::sync::mpsc::Sender<Op>,
    questions: &[String],
) -> Asked {
    // dialoguer blocks; the engine waits for the answers meanwhile.
    let answers = tokio::task::block_in_place(|| renderer.suspend(|| prompt_all(questions)));
    match answers {
        Ok(answers) => {
            let _ = ops.send(Op::Answer(answers)).await;
            Asked::Answered
        }
        Err(_) => Asked::Interrupted,
    }
}

fn prompt_all(questions: &[String]) -> std::io::Result<Vec<String>> {
    let term = Term::stderr();
    term.write_line(&format!(
        "dra needs to know more before researching ({} question{}; Enter = no preference):",
        questions.len(),
        if questions.len() == 1 { "" } else { "s" }
    ))?;
    let mut answers = Vec::with_capacity(questions.len());
    for q in questions {
        let a: String = Input::new()
            .with_prompt(printable(q))
            .allow_empty(true)
            .interact_text_on(&term)
            .map_err(|e| std::io::Error::other(e.to_string()))?;
        answers.push(a.trim().to_string());
    }
    Ok(answers)
}

/// A question as shown on the terminal: control characters dropped (a
/// model wrote it; it must not drive the terminal).
pub fn printable(text: &str) -> String {
    text.chars()
        .filter(|c| {
            !c.is_control()
                && !('\u{202a}'..='\u{202e}').contains(c)
                && !('\u{2066}'..='\u{2069}').contains(c)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn questions_lose_control_characters() {
        assert_eq!(
            printable("Which \u{1b}[31mcompany\u{202e}?\n"),
            "Which [31mcompany?"
        );
    }

    proptest::proptest! {
        #[test]
        fn printable_never_keeps_controls(s in "\\PC{0,40}|[\u{0}-\u{1f}\u{7f}-\u{9f}\u{202a}-\u{202e}a]{0,20}") {
            let p = printable(&s);
            proptest::prop_assert!(!p.chars().any(|c| c.is_control()));
        }
    }
}
