//! Payment-card numbers found in text: a run of 13 to 19 digits (single spaces or dashes
//! between them allowed) that passes the Luhn check. The gateway takes no card (a
//! `PaymentCard` is refused or never read), but partners type card numbers into free text; a
//! booking's comments and guests' names are stored, answered and delivered to the hotel, so a
//! card number in them is kept only as PCI DSS allows, its last four digits
//! ([`without_card_numbers`]), and the transaction log's masking tells them the same way.

use std::borrow::Cow;
use std::ops::Range;

/// The byte ranges of the card numbers in `text`, first to last.
fn card_numbers(text: &str) -> Vec<Range<usize>> {
    let b = text.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if !b[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let mut digits: Vec<u8> = Vec::new();
        let mut j = i;
        while j < b.len() {
            if b[j].is_ascii_digit() {
                digits.push(b[j] - b'0');
            } else if !(matches!(b[j], b' ' | b'-') && b.get(j + 1).is_some_and(u8::is_ascii_digit)) {
                break;
            }
            j += 1;
        }
        if (13..=19).contains(&digits.len()) && luhn(&digits) {
            found.push(i..j);
        }
        i = j;
    }
    found
}

/// True when `text` holds a card number.
pub fn has_card_number(text: &str) -> bool {
    !card_numbers(text).is_empty()
}

/// `text` with every digit of each card number in it but the last four replaced by `X`
/// (`pay with 4111 1111 1111 1111` becomes `pay with XXXX XXXX XXXX 1111`); the rest as it
/// was. Borrowed when there is none.
pub fn without_card_numbers(text: &str) -> Cow<'_, str> {
    let found = card_numbers(text);
    if found.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for run in found {
        out.push_str(&text[at..run.start]);
        let run_text = &text[run.clone()];
        let digits = run_text.bytes().filter(u8::is_ascii_digit).count();
        let mut seen = 0;
        for c in run_text.chars() {
            if c.is_ascii_digit() {
                seen += 1;
                out.push(if seen > digits - 4 { c } else { 'X' });
            } else {
                out.push(c);
            }
        }
        at = run.end;
    }
    out.push_str(&text[at..]);
    Cow::Owned(out)
}

/// [`without_card_numbers`] of an owned text (taken back as it is when it holds none).
pub fn owned_without_card_numbers(text: String) -> String {
    match without_card_numbers(&text) {
        Cow::Borrowed(_) => text,
        Cow::Owned(masked) => masked,
    }
}

fn luhn(digits: &[u8]) -> bool {
    let sum: u32 = digits
        .iter()
        .rev()
        .enumerate()
        .map(|(i, &d)| {
            let d = u32::from(d);
            if i % 2 == 1 { if d * 2 > 9 { d * 2 - 9 } else { d * 2 } } else { d }
        })
        .sum();
    sum % 10 == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn card_numbers_are_told_by_what_they_are() {
        assert!(
            has_card_number("4111111111111111")
                && has_card_number("pay 4111 1111 1111 1111 now")
                && has_card_number("4111-1111-1111-1111")
        );
        assert!(
            !has_card_number("4111111111111112")
                && !has_card_number("2030-01-01")
                && !has_card_number("DEMO-2030-0001")
                && !has_card_number("+34 600 123 456")
        );
    }

    #[test]
    fn only_the_card_numbers_lose_their_digits() {
        assert_eq!(
            without_card_numbers("pay with 4111 1111 1111 1111 please, room 12, or 5500-0000-0000-0004"),
            "pay with XXXX XXXX XXXX 1111 please, room 12, or XXXX-XXXX-XXXX-0004"
        );
        assert_eq!(without_card_numbers("call +34 600 123 456 at 18:00"), "call +34 600 123 456 at 18:00");
        assert!(matches!(without_card_numbers("no card"), Cow::Borrowed(_)));
        assert_eq!(owned_without_card_numbers("4111111111111111".into()), "XXXXXXXXXXXX1111");
    }
}
