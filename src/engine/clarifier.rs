//! Clarifying questions, the run's side: whether the lead may ask, the
//! answers the front end sends in, and the user message that carries them
//! back (written here, read back by the offline model). The tool the lead
//! asks with is `tools::clarify`.

use crate::sync::LockExt;

use crate::protocol::ClarificationAnswer;

/// The first line of the user message that carries the answers.
pub const ANSWERS_HEADER: &str = "Answers to your clarifying questions:";
/// What an empty answer is sent as.
pub const NO_PREFERENCE: &str = "no preference";

/// What a run does when its request is ambiguous.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ClarifyMode {
    /// Never ask (`--no-clarify`): the tool is not offered; the run goes
    /// on and states its assumption.
    Never,
    /// Ask, and end the run `awaiting_clarification` (headless).
    #[default]
    Stop,
    /// Ask, and wait for the answers (`Op::Answer`) in the same run.
    Wait,
}

/// The run's side of clarification: its mode, the answers sent in by the
/// front end, and the reply to put in front of the lead as a user message.
pub struct Clarifier {
    pub mode: ClarifyMode,
    tx: tokio::sync::mpsc::UnboundedSender<Vec<String>>,
    rx: tokio::sync::Mutex<tokio::sync::mpsc::UnboundedReceiver<Vec<String>>>,
    reply: std::sync::Mutex<Option<String>>,
}

impl Clarifier {
    pub fn new(mode: ClarifyMode) -> Self {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        Clarifier {
            mode,
            tx,
            rx: tokio::sync::Mutex::new(rx),
            reply: std::sync::Mutex::new(None),
        }
    }

    /// Answers from the front end (`Op::Answer`); kept until asked for.
    pub fn answer(&self, answers: Vec<String>) {
        let _ = self.tx.send(answers);
    }

    /// Waits for the answers, however long the user takes; `None` when
    /// `cancelled` resolves first (the run's Ctrl-C or budget halt).
    pub async fn wait(&self, cancelled: impl Future<Output = ()>) -> Option<Vec<String>> {
        let mut rx = self.rx.lock().await;
        tokio::select! {
            a = rx.recv() => a,
            _ = cancelled => None,
        }
    }

    /// Keeps the answers message for the lead until [`Self::take_reply`].
    pub fn set_reply(&self, message: String) {
        *self.reply.lock_or_recover() = Some(message);
    }

    /// The answers message for the lead, once (the agent loop takes it
    /// after the tool results and sends it as the next user message).
    pub fn take_reply(&self) -> Option<String> {
        self.reply.lock_or_recover().take()
    }
}

/// Pairs each answer with its question, in order; missing or empty
/// answers are "no preference".
pub fn pair_answers(questions: &[String], answers: &[String]) -> Vec<ClarificationAnswer> {
    questions
        .iter()
        .enumerate()
        .map(|(i, q)| ClarificationAnswer {
            question: q.clone(),
            answer: answers
                .get(i)
                .map(|a| one_line(a))
                .filter(|a| !a.is_empty())
                .unwrap_or_else(|| NO_PREFERENCE.to_string()),
        })
        .collect()
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The user message that carries the answers: each restates its question
/// (`1. Q: ... A: ...`), so "the first" never loses its meaning.
pub fn answers_message(pairs: &[ClarificationAnswer]) -> String {
    let mut s = format!("{ANSWERS_HEADER}\n");
    for (i, p) in pairs.iter().enumerate() {
        s.push_str(&format!(
            "{}. Q: {} A: {}\n",
            i + 1,
            one_line(&p.question),
            p.answer
        ));
    }
    s
}

/// The answers in a message written by [`answers_message`] for these
/// questions, in order ("no preference" read back as empty); `None` when
/// the message is not one.
pub fn parse_answers(message: &str, questions: &[String]) -> Option<Vec<String>> {
    let mut lines = message.lines();
    if lines.next()?.trim() != ANSWERS_HEADER {
        return None;
    }
    let mut answers = Vec::new();
    for (i, q) in questions.iter().enumerate() {
        let prefix = format!("{}. Q: {} A: ", i + 1, one_line(q));
        let line = lines.next()?;
        let a = line.strip_prefix(&prefix)?.trim();
        answers.push(if a == NO_PREFERENCE {
            String::new()
        } else {
            a.to_string()
        });
    }
    Some(answers)
}

/// Questions narrated in prose: lines (or sentences) that end with `?`.
/// Used when a model asks in plain text instead of calling the tool.
pub fn questions_in_prose(text: &str) -> Vec<String> {
    text.lines()
        .flat_map(|l| l.split_inclusive('?'))
        .map(|s| s.trim().trim_start_matches(['-', '*', '•']).trim())
        .map(|s| {
            // "1. Which market?" -> "Which market?"
            let s = s.trim_start_matches(|c: char| c.is_ascii_digit());
            s.trim_start_matches(['.', ')']).trim().to_string()
        })
        .filter(|s| s.ends_with('?') && s.split_whitespace().count() >= 3)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_pair_with_their_questions() {
        let qs = vec!["Which company?".to_string(), "Which year?".to_string()];
        let pairs = pair_answers(&qs, &["PadmaPay".into()]);
        assert_eq!(pairs[1].answer, NO_PREFERENCE);
        let m = answers_message(&pairs);
        assert_eq!(
            m,
            "Answers to your clarifying questions:\n1. Q: Which company? A: PadmaPay\n2. Q: Which year? A: no preference\n"
        );
        assert_eq!(
            parse_answers(&m, &qs),
            Some(vec!["PadmaPay".to_string(), String::new()])
        );
        assert_eq!(parse_answers("PadmaPay", &qs), None);
    }

    proptest::proptest! {
        #[test]
        fn any_answers_survive_the_message(
            qs in proptest::collection::vec("\\PC{1,40}", 1..4),
            answers in proptest::collection::vec("\\PC{0,40}|\\s*\n\\s*x", 0..5),
        ) {
            let pairs = pair_answers(&qs, &answers);
            let back = parse_answers(&answers_message(&pairs), &qs);
            proptest::prop_assert!(back.is_some());
            let back = back.unwrap_or_default();
            proptest::prop_assert_eq!(back.len(), qs.len());
            for (i, b) in back.iter().enumerate() {
                let want = answers.get(i).map(|a| one_line(a)).unwrap_or_default();
                let want = if want == NO_PREFERENCE { String::new() } else { want };
                proptest::prop_assert_eq!(b, &want);
            }
        }
    }

    #[test]
    fn finds_narrated_questions() {
        let q = questions_in_prose(
            "Before I start, a few questions:\n1. Which PadmaPay do you mean, India or UK?\n- What timeframe matters? Also budget.\nThanks",
        );
        assert_eq!(
            q,
            vec![
                "Which PadmaPay do you mean, India or UK?",
                "What timeframe matters?"
            ]
        );
        assert!(questions_in_prose("PadmaPay is a payment gateway in Kochi.").is_empty());
    }
}
