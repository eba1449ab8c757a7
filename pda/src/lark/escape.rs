//! Lark's reading of the text inside `"..."` and `/.../`, step for step as Python Lark
//! 1.x does it (`load_grammar.eval_escaping`, then `str.replace` for strings), so that a
//! grammar means here what it means to Lark (`testdata/lark/literals.json` holds Lark's
//! own readings, compared by the `lark_literals` tests).
//!
//! Lark evaluates only `\n \t \r \f \xHH \uHHHH \UHHHHHHHH` and `\"`; any other backslash
//! stays in the text with the character after it (`"\a"` is the two characters `\a`, and
//! a regex `/\d/` reaches the regex engine as `\d`). Two Lark quirks follow from how it
//! builds a Python literal to evaluate: a run of `\\` right before an unescaped `"` (only
//! possible in a regex) loses one backslash, and a string literal's result then has each
//! pair of backslashes made one (so `"\\"` is one backslash, and so is `"\x5c\x5c"`).
//! Python keeps a lone surrogate (`\ud800`), which no UTF-8 text holds: refused.

use crate::gbnf::hex_scalar;

/// Reads the raw text between a literal's delimiters as Lark does; `Err((i, message))`
/// names the raw offset `i` at fault. Returns the text and, for each of its bytes, the raw
/// offset it came from.
pub(super) fn eval(raw: &str) -> Result<(String, Vec<usize>), (usize, String)> {
    let mut out = String::new();
    let mut from = Vec::new();
    let mut push = |out: &mut String, c: char, at: usize| {
        out.push(c);
        from.resize(out.len(), at);
    };
    let b = raw.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let at = i;
        if b[i] != b'\\' {
            let c = raw[i..].chars().next().expect("in bounds");
            push(&mut out, c, at);
            i += c.len_utf8();
            continue;
        }
        let Some(e) = raw[i + 1..].chars().next() else {
            return Err((at, "a `\\` ends the literal".to_string()));
        };
        i += 1 + e.len_utf8();
        let digits = match e {
            '\\' => {
                // A run of `\\`: two backslashes each, one fewer before a plain `"`.
                let mut run = 1;
                while raw[i..].starts_with("\\\\") {
                    run += 1;
                    i += 2;
                }
                let lost = usize::from(b.get(i) == Some(&b'"'));
                for _ in 0..2 * run - lost {
                    push(&mut out, '\\', at);
                }
                continue;
            }
            '"' => {
                push(&mut out, '"', at);
                continue;
            }
            'n' | 't' | 'r' | 'f' => {
                let c = match e {
                    'n' => '\n',
                    't' => '\t',
                    'r' => '\r',
                    _ => '\u{c}',
                };
                push(&mut out, c, at);
                continue;
            }
            'x' => 2,
            'u' => 4,
            'U' => 8,
            _ => {
                push(&mut out, '\\', at);
                push(&mut out, e, at);
                continue;
            }
        };
        let c = hex_scalar(raw, i, e, digits).map_err(|m| (at, m))?;
        push(&mut out, c, at);
        i += digits;
    }
    Ok((out, from))
}

/// A regex terminal's pattern for the regex compiler: `eval`, then the escapes Python's
/// `re` reads otherwise than the regex crate rewritten: `\` before a non-ASCII character,
/// `<` or `>` is that character; `\0`, `\0o`, `\0oo` and `\ooo` are octal. Offsets as
/// `eval`'s.
pub(super) fn regex(raw: &str) -> Result<(String, Vec<usize>), (usize, String)> {
    let (text, from) = eval(raw)?;
    let (mut out, mut out_from) = (String::with_capacity(text.len()), Vec::new());
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let mut put = |c: char, at: usize| {
            out.push(c);
            out_from.resize(out.len(), from[at]);
        };
        match (c, chars.peek().copied()) {
            ('\\', Some((j, e))) if !e.is_ascii() || e == '<' || e == '>' => {
                chars.next();
                put(e, j);
            }
            ('\\', Some((_, '0'..='7'))) if octal(&text[i + 1..]).is_some() => {
                let (value, len) = octal(&text[i + 1..]).expect("just checked");
                for c in format!("\\x{{{value:x}}}").chars() {
                    put(c, i);
                }
                for _ in 0..len {
                    chars.next();
                }
            }
            ('\\', Some((j, e))) => {
                chars.next();
                put('\\', i);
                put(e, j);
            }
            _ => put(c, i),
        }
    }
    Ok((out, out_from))
}

/// Python `re`'s octal escape at the start of `digits` (after the backslash): `0` and up
/// to two more octal digits, or three octal digits up to `377`; its value and length.
fn octal(digits: &str) -> Option<(u32, usize)> {
    let len = digits
        .bytes()
        .take(3)
        .take_while(|b| (b'0'..=b'7').contains(b))
        .count();
    let value = |n: usize| u32::from_str_radix(&digits[..n], 8).ok();
    match digits.as_bytes()[0] {
        b'0' => Some((value(len)?, len)),
        _ if len == 3 => value(3).filter(|&v| v <= 0o377).map(|v| (v, 3)),
        _ => None,
    }
}

/// A string literal's text: `eval`, then each pair of backslashes made one (Lark's
/// `s.replace('\\\\', '\\')`).
pub(super) fn string(raw: &str) -> Result<String, (usize, String)> {
    let (text, _) = eval(raw)?;
    Ok(text.replace("\\\\", "\\"))
}

/// The one character a range end `"c"` stands for (`eval` gives exactly one), or an error.
/// Lark writes the two raw ends into a regex `[lo-hi]`, so an end that changes what that
/// class means is refused by name.
pub(super) fn range_end(raw: &str, low: bool) -> Result<char, String> {
    let (text, _) = eval(raw).map_err(|(_, m)| m)?;
    let mut chars = text.chars();
    let Some(c) = chars.next().filter(|_| chars.next().is_none()) else {
        return Err("a range `\"a\"..\"z\"` takes one character on each side".to_string());
    };
    match (low, raw) {
        (true, "^") => Err("Lark writes a range from `\"^\"` as the class `[^-…]` (negated); write it as a /regex/".to_string()),
        (false, "]") => Err("Lark writes a range to `\"]\"` as `[…-]]`, a class and a `]`; write it as a /regex/".to_string()),
        _ => Ok(c),
    }
}
