//! Text from a client as a log line may carry it: [`LogText`] writes it with every control
//! character, line or paragraph separator and other invisible format character escaped
//! (`\n`, `\u{85}`, `\u{2028}`), and at most [`MAX_CHARS`] characters, so a value can neither
//! start a forged line in the text or JSON logs nor make a log line large.

use std::fmt;

/// The most characters of a client's value a log line shows (the rest is counted, not shown).
pub const MAX_CHARS: usize = 64;

/// A client's text, escaped and bounded when displayed (see the module docs); `{:?}` writes
/// the same in quotes, as a `str` is written (never the wrapper's name: it may reach an answer).
#[derive(Clone, Copy)]
pub struct LogText<'a>(pub &'a str);

impl fmt::Debug for LogText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\"{}\"", self.to_string().replace('"', "\\\""))
    }
}

impl fmt::Display for LogText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut chars = self.0.chars();
        for c in chars.by_ref().take(MAX_CHARS) {
            if c.is_control()
                || matches!(c, '\u{2028}' | '\u{2029}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2064}' | '\u{FEFF}')
            {
                write!(f, "{}", c.escape_unicode())?;
            } else if c == '\\' {
                f.write_str("\\\\")?;
            } else {
                write!(f, "{c}")?;
            }
        }
        let more = chars.count();
        if more > 0 {
            write!(f, "…(+{more} characters)")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_is_the_text_in_quotes() {
        assert_eq!(format!("{:?}", LogText("H\n1")), "\"H\\u{a}1\"");
        assert_eq!(format!("{:?}", LogText("say \"hi\"")), "\"say \\\"hi\\\"\"");
    }

    #[test]
    fn controls_and_separators_are_escaped() {
        assert_eq!(LogText("DEMO").to_string(), "DEMO");
        assert_eq!(
            LogText("a\nb\r\u{85}c\u{2028}d\u{1b}[31m").to_string(),
            "a\\u{a}b\\u{d}\\u{85}c\\u{2028}d\\u{1b}[31m"
        );
        assert_eq!(LogText("back\\slash").to_string(), "back\\\\slash");
        assert_eq!(LogText("é漢字").to_string(), "é漢字");
    }

    #[test]
    fn long_values_are_cut() {
        let long = "x".repeat(500_000);
        let shown = LogText(&long).to_string();
        assert_eq!(shown, format!("{}…(+{} characters)", "x".repeat(MAX_CHARS), 500_000 - MAX_CHARS));
    }
}
