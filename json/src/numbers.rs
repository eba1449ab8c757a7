//! Exact decimal range automata, as regex text over canonical numerals.
//!
//! Integers are written without leading zeros or `-0`; bounded numbers as `-?I(\.F)?`
//! with no exponent. A bound splits the numerals by length and compares digit strings
//! (the classic digit-by-digit range construction), so `[lo, hi]` is exact for any
//! integer bounds, and for numbers with a fraction the integer part decides.

use crate::decimal::Decimal;

/// A bound on a value: the integer and whether it is included.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Bound {
    pub(crate) value: i128,
    pub(crate) inclusive: bool,
}

/// Regex for the canonical numerals of the integers `n` with `lo <= n <= hi` (`hi`
/// `None`: unbounded), all non-negative; `None` when the range is empty.
pub(crate) fn natural_range(lo: u128, hi: Option<u128>) -> Option<String> {
    if hi.is_some_and(|hi| hi < lo) {
        return None;
    }
    let lo_len = digits(lo);
    let mut alts = Vec::new();
    let top_len = hi.map_or(lo_len, digits);
    for len in lo_len..=top_len {
        let a = if len == lo_len {
            lo
        } else {
            10u128.pow(len - 1)
        };
        let b = match hi {
            Some(hi) if len == top_len => hi,
            _ => 10u128.pow(len) - 1,
        };
        alts.push(same_length(&a.to_string(), &b.to_string()));
    }
    if hi.is_none() {
        alts.push(format!("[1-9][0-9]{{{top_len},}}"));
    }
    Some(format!("(?:{})", alts.join("|")))
}

fn digits(n: u128) -> u32 {
    n.checked_ilog10().unwrap_or(0) + 1
}

/// Digit strings of equal length between `a` and `b` (inclusive, `a <= b`).
fn same_length(a: &str, b: &str) -> String {
    if a.is_empty() {
        return String::new();
    }
    let (x, y) = (a.as_bytes()[0], b.as_bytes()[0]);
    let rest = a.len() - 1;
    if x == y {
        return format!("{}{}", x as char, same_length(&a[1..], &b[1..]));
    }
    let nines = "9".repeat(rest);
    let zeros = "0".repeat(rest);
    let mut alts = Vec::new();
    let (mut from, mut to) = (x, y);
    if a[1..] != zeros {
        alts.push(format!("{}{}", x as char, same_length(&a[1..], &nines)));
        from += 1;
    }
    if b[1..] != nines {
        alts.push(format!("{}{}", y as char, same_length(&zeros, &b[1..])));
        to -= 1;
    }
    if from <= to {
        let class = if from == to {
            (from as char).to_string()
        } else {
            format!("[{}-{}]", from as char, to as char)
        };
        alts.insert(0, format!("{class}[0-9]{{{rest}}}"));
    }
    format!("(?:{})", alts.join("|"))
}

/// Integers in the interval, canonical numerals.
pub(crate) fn integer_range(lo: Option<Bound>, hi: Option<Bound>) -> Option<String> {
    let lo = lo.map(|b| if b.inclusive { b.value } else { b.value + 1 });
    let hi = hi.map(|b| if b.inclusive { b.value } else { b.value - 1 });
    let mut alts = Vec::new();
    // n >= 0.
    if hi.map_or(true, |h| h >= 0) {
        let a = lo.map_or(0, |l| l.max(0)) as u128;
        alts.extend(natural_range(a, hi.map(|h| h as u128)));
    }
    // n < 0, written `-m` with m = -n >= 1.
    if lo.map_or(true, |l| l < 0) {
        let a = hi.map_or(1, |h| (-h).max(1)) as u128;
        if let Some(m) = natural_range(a, lo.map(|l| (-l) as u128)) {
            alts.push(format!("-{m}"));
        }
    }
    join(alts)
}

/// Decimals `I(\.F)?` (no sign) with value `y` in the interval, both bounds non-negative.
fn positive_decimal(lo: Bound, hi: Option<Bound>) -> Option<String> {
    let mut alts = Vec::new();
    // y an integer (no fraction or an all-zero one).
    let a = if lo.inclusive { lo.value } else { lo.value + 1 };
    let b = hi.map(|h| if h.inclusive { h.value } else { h.value - 1 });
    if b.map_or(true, |b| b >= a) {
        if let Some(i) = natural_range(a as u128, b.map(|b| b as u128)) {
            alts.push(format!("{i}(?:\\.0+)?"));
        }
    }
    // y not an integer: lo < y < hi holds exactly when lo <= I <= hi - 1.
    let b = hi.map(|h| h.value - 1);
    if b.map_or(true, |b| b >= lo.value) {
        if let Some(i) = natural_range(lo.value as u128, b.map(|b| b as u128)) {
            alts.push(format!("{i}\\.[0-9]*[1-9][0-9]*"));
        }
    }
    join(alts)
}

/// Numbers without exponent in the interval (integer bounds), canonical integer parts.
pub(crate) fn decimal_range(lo: Option<Bound>, hi: Option<Bound>) -> Option<String> {
    let mut alts = Vec::new();
    // x >= 0: y = x.
    if hi.map_or(true, |h| h.value > 0 || (h.value == 0 && h.inclusive)) {
        let from = match lo {
            Some(l) if l.value >= 0 => l,
            _ => Bound {
                value: 0,
                inclusive: true,
            },
        };
        alts.extend(positive_decimal(from, hi));
    }
    // x < 0: `-y` with y = -x > 0; x >= lo becomes y <= -lo.
    if lo.map_or(true, |l| l.value < 0) {
        let from = match hi {
            Some(h) if h.value < 0 => Bound {
                value: -h.value,
                inclusive: h.inclusive,
            },
            _ => Bound {
                value: 0,
                inclusive: false,
            },
        };
        let to = lo.map(|l| Bound {
            value: -l.value,
            inclusive: l.inclusive,
        });
        if let Some(y) = positive_decimal(from, to) {
            alts.push(format!("-{y}"));
        }
    }
    join(alts)
}

/// How a magnitude compares with a bound.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Cmp {
    Ge,
    Gt,
    Le,
    Lt,
}

/// Digit strings `F` (possibly empty) with `0.F cmp 0.f`, `f` without trailing zeros;
/// `None` when there is none.
fn fraction_cmp(f: &[u8], cmp: Cmp) -> Option<String> {
    let Some((&d, rest)) = f.split_first() else {
        return match cmp {
            Cmp::Ge => Some("[0-9]*".into()),
            Cmp::Gt => Some("[0-9]*[1-9][0-9]*".into()),
            Cmp::Le => Some("0*".into()),
            Cmp::Lt => None,
        };
    };
    let d = d - b'0';
    let mut alts = Vec::new();
    let (greater, above) = (matches!(cmp, Cmp::Ge | Cmp::Gt), d < 9);
    if greater && above {
        alts.push(format!("[{}-9][0-9]*", d + 1));
    }
    if !greater {
        // The empty rest is 0, below `0.f` (which has a non-zero digit).
        alts.push(String::new());
        if d > 0 {
            alts.push(format!("[0-{}][0-9]*", d - 1));
        }
    }
    alts.extend(fraction_cmp(rest, cmp).map(|r| format!("{d}{r}")));
    Some(format!("(?:{})", alts.join("|")))
}

/// Unsigned numerals `I(.F)?` whose value compares with the decimal `int.frac` (`frac`
/// non-empty, no trailing zeros) as `cmp` says.
fn magnitude(int: u128, frac: &[u8], cmp: Cmp) -> Option<String> {
    let any_fraction = "(?:\\.[0-9]+)?";
    let mut alts = Vec::new();
    let others = match cmp {
        Cmp::Ge | Cmp::Gt => natural_range(int + 1, None),
        _ if int == 0 => None,
        _ => natural_range(0, Some(int - 1)),
    };
    alts.extend(others.map(|i| format!("{i}{any_fraction}")));
    if let Some(f) = fraction_cmp(frac, cmp) {
        // `Le`/`Lt` admit the empty fraction, which is no `.` at all.
        let f = match cmp {
            Cmp::Le | Cmp::Lt => format!("(?:\\.{f})?"),
            _ => format!("\\.{f}"),
        };
        alts.push(format!("{int}{f}"));
    }
    join(alts)
}

/// Numerals `-?I(.F)?` (no exponent; the caller intersects with the JSON number form)
/// on one side of the non-integer bound `x`: `lower` (x is a minimum) or upper,
/// `inclusive` or strict.
pub(crate) fn fractional_side(x: &Decimal, inclusive: bool, lower: bool) -> Option<String> {
    let (int, frac) = x.parts();
    let int: u128 = int.parse().ok()?;
    let frac = frac.as_bytes();
    let unsigned = "(?:0|[1-9][0-9]*)(?:\\.[0-9]+)?";
    // On the magnitude y = |value|: a lower bound on a positive x is a lower bound on y,
    // on a negative x an upper bound on y; mirrored for upper bounds.
    let (positive_cmp, negative_cmp) = match (lower, inclusive) {
        (true, true) => (Cmp::Ge, Cmp::Le),
        (true, false) => (Cmp::Gt, Cmp::Lt),
        (false, true) => (Cmp::Le, Cmp::Ge),
        (false, false) => (Cmp::Lt, Cmp::Gt),
    };
    let mut alts = Vec::new();
    if !x.is_negative() {
        alts.extend(magnitude(int, frac, positive_cmp));
        if !lower {
            alts.push(format!("-{unsigned}"));
        }
    } else {
        alts.extend(magnitude(int, frac, negative_cmp).map(|m| format!("-{m}")));
        if lower {
            alts.push(unsigned.to_string());
        }
    }
    join(alts)
}

fn join(alts: Vec<String>) -> Option<String> {
    match alts.len() {
        0 => None,
        _ => Some(format!("(?:{})", alts.join("|"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn re(r: &Option<String>) -> regex::Regex {
        regex::Regex::new(&format!("^(?:{})$", r.as_deref().unwrap_or("[^\\s\\S]"))).unwrap()
    }

    fn b(value: i128, inclusive: bool) -> Option<Bound> {
        Some(Bound { value, inclusive })
    }

    #[test]
    fn integer_ranges_are_exact() {
        let cases = [
            (None, b(-3, true)),
            (b(-17, false), b(205, true)),
            (b(0, true), None),
            (b(7, true), b(7, true)),
            (b(8, true), b(7, true)),
            (b(-1000, true), b(-10, false)),
            (b(99, false), b(1001, false)),
            (None, None),
        ];
        for (lo, hi) in cases {
            let r = re(&integer_range(lo, hi));
            for n in -1500i128..1500 {
                let want = lo.map_or(true, |l| {
                    if l.inclusive {
                        n >= l.value
                    } else {
                        n > l.value
                    }
                }) && hi.map_or(true, |h| {
                    if h.inclusive {
                        n <= h.value
                    } else {
                        n < h.value
                    }
                });
                assert_eq!(r.is_match(&n.to_string()), want, "{n} {lo:?} {hi:?}");
            }
            assert!(!r.is_match("-0") && !r.is_match("01"));
        }
    }

    #[test]
    fn fractional_bounds_are_exact() {
        for x in [2.5, -2.5, 0.25, -0.05, 13.125, -7.9, 0.5] {
            for (lower, inclusive) in [(true, true), (true, false), (false, true), (false, false)] {
                let bound = Decimal::parse(&x.to_string()).unwrap();
                let r = re(&fractional_side(&bound, inclusive, lower));
                for thousandths in -20_000i64..20_000 {
                    let y = thousandths as f64 / 1000.0;
                    let want = match (lower, inclusive) {
                        (true, true) => y >= x,
                        (true, false) => y > x,
                        (false, true) => y <= x,
                        (false, false) => y < x,
                    };
                    let sign = if thousandths < 0 { "-" } else { "" };
                    let (i, f) = (thousandths.abs() / 1000, thousandths.abs() % 1000);
                    let text = format!("{sign}{i}.{f:03}");
                    assert_eq!(r.is_match(&text), want, "{text} vs {x} {lower} {inclusive}");
                    let short = text.trim_end_matches('0').trim_end_matches('.');
                    if short != "-" && !short.is_empty() && short != "-0" {
                        assert_eq!(r.is_match(short), want, "{short} vs {x}");
                    }
                }
            }
        }
    }

    #[test]
    fn decimal_ranges_are_exact() {
        let cases = [
            (b(0, true), None),
            (b(0, false), b(10, true)),
            (b(-5, true), b(5, false)),
            (None, b(-2, false)),
            (b(-3, false), b(-1, true)),
            (b(1, false), b(1, true)),
        ];
        for (lo, hi) in cases {
            let r = re(&decimal_range(lo, hi));
            for tenths in -80i128..120 {
                let x = tenths as f64 / 10.0;
                let want = lo.map_or(true, |l| {
                    if l.inclusive {
                        x >= l.value as f64
                    } else {
                        x > l.value as f64
                    }
                }) && hi.map_or(true, |h| {
                    if h.inclusive {
                        x <= h.value as f64
                    } else {
                        x < h.value as f64
                    }
                });
                let (i, f) = (tenths.abs() / 10, tenths.abs() % 10);
                let sign = if tenths < 0 { "-" } else { "" };
                for text in [format!("{sign}{i}.{f}"), format!("{sign}{i}.{f}0")] {
                    assert_eq!(r.is_match(&text), want, "{text} {lo:?} {hi:?}");
                }
                if f == 0 && tenths != 0 {
                    assert_eq!(r.is_match(&format!("{sign}{i}")), want, "{x}");
                }
            }
        }
    }
}
