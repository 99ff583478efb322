//! Chinese and Japanese text has no spaces between words: it is searched
//! and matched by overlapping character pairs (bigrams), the standard
//! segmentation-free unit for CJK retrieval.

/// Whether a character is a CJK ideograph or kana (not punctuation).
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF     // hiragana, katakana
        | 0x3400..=0x4DBF   // CJK extension A
        | 0x4E00..=0x9FFF   // CJK unified ideographs
        | 0xF900..=0xFAFF   // compatibility ideographs
        | 0x20000..=0x2FA1F)
}

/// Whether a text has CJK characters.
pub fn has_cjk(text: &str) -> bool {
    text.chars().any(is_cjk)
}

/// The overlapping character pairs of each run of CJK characters (a run of
/// one character is kept as it is), in order.
pub fn bigrams(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut run: Vec<char> = Vec::new();
    let flush = |run: &mut Vec<char>, out: &mut Vec<String>| {
        match run.len() {
            0 => {}
            1 => out.push(run[0].to_string()),
            _ => out.extend(run.windows(2).map(|w| w.iter().collect::<String>())),
        }
        run.clear();
    };
    for c in text.chars() {
        if is_cjk(c) {
            run.push(c);
        } else {
            flush(&mut run, &mut out);
        }
    }
    flush(&mut run, &mut out);
    out
}

/// Bigrams that carry no content: particles and question words, so "的时间"
/// does not match every sentence with "的".
pub fn is_function_bigram(b: &str) -> bool {
    const FUNCTION_CHARS: &[char] = &[
        '的', '了', '是', '在', '和', '与', '及', '或', '吗', '呢', '什', '么', '哪', '谁', '几',
        '多', '少', '何', '为', '有', '这', '那', '个', '其', '之', '也', '就', '都', '而', '被',
        '把', '对', '将', '从', '由', '于', '以', '等', '一', '次',
    ];
    b.chars().all(|c| FUNCTION_CHARS.contains(&c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bigrams_cover_runs_and_skip_other_scripts() {
        assert_eq!(bigrams("香港立法会"), vec!["香港", "港立", "立法", "法会"]);
        assert_eq!(bigrams("A股 上涨"), vec!["股", "上涨"]);
        assert!(bigrams("plain English").is_empty());
        assert!(has_cjk("会议 meeting"));
        assert!(!has_cjk("Zürich"));
        assert!(is_function_bigram("的了"));
        assert!(!is_function_bigram("时间"));
    }
}
