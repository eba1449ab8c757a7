//! Numbers by their exact decimal value: what the schema wrote, not the double serde_json
//! reads.
//!
//! serde_json reads every number as a u64, i64 or f64, so `123456789012345678901234567890`
//! becomes 1.2345678901234568e29 and `235.85714285714286` the double whose shortest spelling
//! is `235.8571428571429`. A schema means the decimal it wrote, so the compiler reads the
//! schema text a second time for the texts of its numbers ([`NumberTexts`], by JSON
//! pointer) and takes bounds, `multipleOf` and listed values from them. serde_json's
//! `arbitrary_precision` feature would keep the texts too, but it is one switch for every
//! crate in a build: every number parsed anywhere (the token ids of a `tokenizer.json`)
//! would become a string, and `Value`s would compare numbers by their text.

use std::cmp::Ordering;
use std::collections::HashMap;

use serde_json::Number;

use crate::error::child;

/// A decimal number: `±digits × 10^exponent`, `digits` without leading or trailing zeros
/// (empty for zero, which is never negative), so equal values are equal structs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Decimal {
    negative: bool,
    digits: String,
    exponent: i64,
}

/// Exponents beyond this are refused (their numerals would be too long to write out).
const MOST_EXPONENT: i64 = 100_000;

impl Decimal {
    /// The value of a JSON number text; `None` if it is not one or its exponent is
    /// beyond ±100,000.
    pub(crate) fn parse(text: &str) -> Option<Decimal> {
        let (negative, rest) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let (mantissa, exponent) = match rest.split_once(['e', 'E']) {
            Some((m, e)) => (m, e.strip_prefix('+').unwrap_or(e).parse::<i64>().ok()?),
            None => (rest, 0),
        };
        let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
        if int.is_empty() || !all_digits(int) || !all_digits(frac) || exponent.abs() > MOST_EXPONENT
        {
            return None;
        }
        let joined = format!("{int}{frac}");
        let trimmed = joined.trim_start_matches('0');
        let digits = trimmed.trim_end_matches('0');
        if digits.is_empty() {
            return Some(Decimal::zero());
        }
        let trailing = (trimmed.len() - digits.len()) as i64;
        Some(Decimal {
            negative,
            digits: digits.to_string(),
            exponent: exponent - frac.len() as i64 + trailing,
        })
    }

    fn zero() -> Decimal {
        Decimal {
            negative: false,
            digits: String::new(),
            exponent: 0,
        }
    }

    /// The value serde_json holds: integers exactly, doubles as their shortest spelling
    /// (Rust's `Display`, which reads back as the same double).
    pub(crate) fn of_number(n: &Number) -> Decimal {
        let text = match n.as_f64() {
            Some(x) if n.is_f64() => format!("{x}"),
            _ => n.to_string(),
        };
        Decimal::parse(&text).expect("serde_json writes JSON numbers")
    }

    pub(crate) fn is_negative(&self) -> bool {
        self.negative
    }

    pub(crate) fn is_integer(&self) -> bool {
        self.exponent >= 0
    }

    /// Digits of the integer part and of the fraction (no trailing zeros) of `|self|`.
    pub(crate) fn parts(&self) -> (String, String) {
        let point = self.digits.len() as i64 + self.exponent;
        if self.exponent >= 0 {
            let zeros = "0".repeat(self.exponent as usize);
            let int = format!("{}{zeros}", self.digits);
            (if int.is_empty() { "0".into() } else { int }, String::new())
        } else if point > 0 {
            let (i, f) = self.digits.split_at(point as usize);
            (i.to_string(), f.to_string())
        } else {
            let zeros = "0".repeat((-point) as usize);
            ("0".into(), format!("{zeros}{}", self.digits))
        }
    }

    /// The one spelling the output form gives the value: an integer without fraction,
    /// exponent or `-0`; else a plain decimal without trailing zeros.
    pub(crate) fn canonical(&self) -> String {
        let (int, frac) = self.parts();
        let sign = if self.negative { "-" } else { "" };
        match frac.as_str() {
            "" => format!("{sign}{int}"),
            _ => format!("{sign}{int}.{frac}"),
        }
    }

    /// The integer nearest below (`up` false) or above, as an `i128`; `None` beyond it.
    pub(crate) fn round(&self, up: bool) -> Option<i128> {
        let (int, frac) = self.parts();
        let mut value: i128 = int.parse().ok()?;
        if self.negative {
            value = -value;
        }
        let toward = match (up, self.negative) {
            (true, false) => 1,
            (false, true) => -1,
            _ => 0,
        };
        Some(if frac.is_empty() {
            value
        } else {
            value + toward
        })
    }

    /// Whether `|self| <= 10^power`.
    pub(crate) fn within(&self, power: i64) -> bool {
        self.digits.is_empty()
            || self.digits.len() as i64 + self.exponent <= power
            || (self.digits == "1" && self.exponent == power)
    }

    /// The magnitudes compared.
    fn cmp_magnitude(&self, other: &Decimal) -> Ordering {
        match (self.digits.is_empty(), other.digits.is_empty()) {
            (true, true) => return Ordering::Equal,
            (true, false) => return Ordering::Less,
            (false, true) => return Ordering::Greater,
            _ => {}
        }
        // Digits before the point (the leading digit's place), then digit by digit.
        let places = |d: &Decimal| d.digits.len() as i64 + d.exponent;
        places(self).cmp(&places(other)).then_with(|| {
            let (a, b) = (self.digits.as_bytes(), other.digits.as_bytes());
            let n = a.len().max(b.len());
            let at = |s: &[u8], i: usize| s.get(i).copied().unwrap_or(b'0');
            (0..n)
                .map(|i| at(a, i).cmp(&at(b, i)))
                .find(|o| o.is_ne())
                .unwrap_or(Ordering::Equal)
        })
    }
}

impl Ord for Decimal {
    fn cmp(&self, other: &Decimal) -> Ordering {
        match (self.negative, other.negative) {
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
            (false, false) => self.cmp_magnitude(other),
            (true, true) => other.cmp_magnitude(self),
        }
    }
}

impl PartialOrd for Decimal {
    fn partial_cmp(&self, other: &Decimal) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// The texts of a schema document's numbers, by JSON pointer.
#[derive(Clone, Debug, Default)]
pub(crate) struct NumberTexts(HashMap<String, String>);

impl NumberTexts {
    /// The numbers of `text`, a JSON text serde_json has read (so well-formed). A member
    /// name repeated in one object keeps its last value, as serde_json does.
    pub(crate) fn scan(text: &str) -> NumberTexts {
        let mut out = HashMap::new();
        // serde_json has read `text`, so its nesting (and this recursion) is within its limit.
        let mut scanner = Scanner::new(text, usize::MAX);
        scanner.value("", &mut out);
        NumberTexts(out)
    }

    /// The pointer of the first array or object of `text` nested `depth + 1` deep, for a
    /// JSON text serde_json refused at its nesting limit (well-formed up to there).
    pub(crate) fn pointer_past_depth(text: &str, depth: usize) -> Option<String> {
        let mut scanner = Scanner::new(text, depth);
        scanner.value("", &mut HashMap::new());
        scanner.past
    }

    /// The text of the number `n` at `pointer` as the schema wrote it, or serde_json's
    /// (for documents not read from text, and schemas the compiler builds itself: a text
    /// is taken only where serde_json reads it as `n`; serde_json's reading, since its
    /// fast float parser may differ from Rust's in the last bit).
    pub(crate) fn text(&self, n: &Number, pointer: &str) -> String {
        match self.0.get(pointer) {
            Some(text) if serde_json::from_str::<Number>(text).ok().as_ref() == Some(n) => {
                text.clone()
            }
            _ => n.to_string(),
        }
    }

    /// Adds the numbers of a document placed at `prefix` in this one.
    pub(crate) fn embed(&mut self, prefix: &str, other: NumberTexts) {
        let moved = other
            .0
            .into_iter()
            .map(|(p, t)| (format!("{prefix}{p}"), t));
        self.0.extend(moved);
    }

    /// The exact value of the number `n` at `pointer` (see [`NumberTexts::text`]).
    pub(crate) fn decimal(&self, n: &Number, pointer: &str) -> Decimal {
        Decimal::parse(&self.text(n, pointer)).unwrap_or_else(|| Decimal::of_number(n))
    }
}

/// A reader of well-formed JSON that records each number's text by pointer; it stops at
/// the first array or object nested past `max_depth` (its recursion is bounded by it).
struct Scanner<'a> {
    text: &'a str,
    at: usize,
    depth: usize,
    max_depth: usize,
    /// The pointer of the container where it stopped.
    past: Option<String>,
}

impl Scanner<'_> {
    fn new(text: &str, max_depth: usize) -> Scanner<'_> {
        Scanner {
            text,
            at: 0,
            depth: 0,
            max_depth,
            past: None,
        }
    }

    fn skip_ws(&mut self) {
        let rest = &self.text[self.at..];
        self.at += rest.len() - rest.trim_start_matches([' ', '\t', '\n', '\r']).len();
    }

    fn byte(&self) -> u8 {
        self.text.as_bytes().get(self.at).copied().unwrap_or(b'\0')
    }

    fn value(&mut self, pointer: &str, out: &mut HashMap<String, String>) {
        self.skip_ws();
        match self.byte() {
            b'{' | b'[' if self.depth == self.max_depth => self.past = Some(pointer.to_string()),
            b'{' => {
                (self.at, self.depth) = (self.at + 1, self.depth + 1);
                while self.next_item(b'}') {
                    let key = self.string();
                    self.skip_ws();
                    self.at += 1; // `:`
                    self.value(&child(pointer, &key), out);
                }
                self.depth -= 1;
            }
            b'[' => {
                (self.at, self.depth) = (self.at + 1, self.depth + 1);
                let mut i = 0;
                while self.next_item(b']') {
                    self.value(&child(pointer, &i.to_string()), out);
                    i += 1;
                }
                self.depth -= 1;
            }
            b'"' => {
                self.string();
            }
            b'-' | b'0'..=b'9' => {
                let rest = &self.text[self.at..];
                let len = rest
                    .find(|c: char| !(c.is_ascii_digit() || "+-.eE".contains(c)))
                    .unwrap_or(rest.len());
                out.insert(pointer.to_string(), rest[..len].to_string());
                self.at += len;
            }
            // `true`, `false`, `null`.
            _ => {
                self.at += self.text[self.at..]
                    .find(|c: char| !c.is_ascii_alphabetic())
                    .unwrap_or(0)
            }
        }
    }

    /// Past a `,` or an opening bracket: whether an item follows (else past `close`; none
    /// once the scan stopped past its depth).
    fn next_item(&mut self, close: u8) -> bool {
        if self.past.is_some() {
            return false;
        }
        self.skip_ws();
        if self.byte() == b',' {
            self.at += 1;
            self.skip_ws();
        }
        if self.byte() == close || self.at >= self.text.len() {
            self.at += 1;
            return false;
        }
        true
    }

    /// The string at the cursor, decoded.
    fn string(&mut self) -> String {
        let start = self.at;
        let bytes = self.text.as_bytes();
        self.at += 1;
        while self.at < bytes.len() && bytes[self.at] != b'"' {
            self.at += if bytes[self.at] == b'\\' { 2 } else { 1 };
        }
        self.at += 1;
        let literal = self
            .text
            .get(start..self.at.min(self.text.len()))
            .unwrap_or("\"\"");
        serde_json::from_str(literal).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(text: &str) -> Decimal {
        Decimal::parse(text).unwrap()
    }

    #[test]
    fn spellings_of_one_value_are_one_decimal() {
        for (a, b) in [
            ("1", "1.0"),
            ("100", "1e2"),
            ("0.5", "5E-1"),
            ("0", "-0.0e7"),
            (
                "123456789012345678901234567890",
                "1.2345678901234567890123456789e29",
            ),
        ] {
            assert_eq!(d(a), d(b), "{a} {b}");
            assert_eq!(d(b).canonical(), a);
        }
        assert_ne!(d("235.85714285714286"), d("235.8571428571429"));
        assert_eq!(d("-0.0012300").canonical(), "-0.00123");
        assert_eq!(Decimal::parse("1e100001"), None);
    }

    #[test]
    fn order_and_rounding_are_exact() {
        let sorted = [
            "-1e30",
            "-2.5",
            "-2",
            "-0.001",
            "0",
            "1e-30",
            "0.1",
            "1",
            "1.0000000000000000000001",
            "10",
            "1e30",
        ];
        for (i, a) in sorted.iter().enumerate() {
            for (j, b) in sorted.iter().enumerate() {
                assert_eq!(d(a).cmp(&d(b)), i.cmp(&j), "{a} {b}");
            }
        }
        assert_eq!(d("-2.5").round(true), Some(-2));
        assert_eq!(d("-2.5").round(false), Some(-3));
        assert_eq!(d("2.5").round(true), Some(3));
        assert_eq!(
            d("18446744073709551615").round(false),
            Some(18446744073709551615)
        );
        assert!(d("1e30").within(30) && d("-999.9").within(3) && !d("1.0000001e30").within(30));
    }

    #[test]
    fn texts_are_found_by_pointer() {
        let text =
            r#"{"a/b": [1.50, {"x": -2e400}], "c~": 123456789012345678901234567890, "s": "1"}"#;
        let texts = NumberTexts::scan(text);
        assert_eq!(texts.0.get("/a~1b/0").map(String::as_str), Some("1.50"));
        assert_eq!(texts.0.get("/a~1b/1/x").map(String::as_str), Some("-2e400"));
        assert_eq!(
            texts.0.get("/c~0").map(String::as_str),
            Some("123456789012345678901234567890")
        );
        assert_eq!(texts.0.len(), 3);
        let value: serde_json::Value =
            serde_json::from_str(r#"123456789012345678901234567890"#).unwrap();
        let n = value.as_number().unwrap();
        assert_eq!(
            texts.decimal(n, "/c~0").canonical(),
            "123456789012345678901234567890"
        );
        // A different number at the pointer (a schema the compiler built) keeps its own value.
        assert_eq!(texts.decimal(&Number::from(7), "/c~0").canonical(), "7");
        assert_eq!(
            texts.decimal(n, "/elsewhere").canonical(),
            "123456789012345680000000000000"
        );
    }
}
