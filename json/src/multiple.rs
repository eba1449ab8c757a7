//! `multipleOf`: a remainder automaton over the decimal digits of a number.
//!
//! A multiple of `q = a / 10^k` (`a` a positive integer, `k` fraction digits) is a
//! number `x` with `x · 10^k` an integer multiple of `a`. Reading `I.F` digit by digit
//! keeps `(digits so far) mod a`; after the `k`-th fraction digit only zeros may follow;
//! a numeral ending after `j ≤ k` fraction digits with remainder `r` is accepted when
//! `r · 10^(k-j) ≡ 0 (mod a)`. Numbers are read without exponent (the output form of a
//! number with `multipleOf` has none), and the automaton is intersected with the range
//! and type languages, which fix the other details of the form.

use fstc_core::bytes::{Algebra, ByteDfa};

/// Largest numerator `a` accepted (the automaton has about `a · (k + 3)` states).
pub(crate) const MAX_NUMERATOR: u128 = 100_000;
/// Most fraction digits `k` of `q`.
const MAX_FRACTION_DIGITS: u32 = 12;

/// `q` as `(a, k)` with `q = a / 10^k`, from its JSON text; `Err` says why it is refused.
pub(crate) fn parse(text: &str) -> Result<(u128, u32), String> {
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(i) => (
            &text[..i],
            text[i + 1..].parse::<i32>().map_err(|e| e.to_string())?,
        ),
        None => (text, 0),
    };
    if mantissa.starts_with('-') {
        return Err("must be greater than 0".into());
    }
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let frac = frac.trim_end_matches('0');
    let digits = format!("{int}{frac}");
    let mut a: u128 = digits
        .parse()
        .map_err(|_| format!("{text} is too long a numeral"))?;
    let mut k = frac.len() as i64 - exponent as i64;
    if a == 0 {
        return Err("must be greater than 0".into());
    }
    while k < 0 {
        a = a.checked_mul(10).ok_or("too large")?;
        k += 1;
    }
    while k > 0 && a % 10 == 0 {
        a /= 10;
        k -= 1;
    }
    if a > MAX_NUMERATOR || k > MAX_FRACTION_DIGITS as i64 {
        return Err(format!(
            "{text} is a/10^k with a = {a}, k = {k}; the remainder automaton supports \
             a ≤ {MAX_NUMERATOR} and k ≤ {MAX_FRACTION_DIGITS}"
        ));
    }
    Ok((a, k as u32))
}

/// The numerals `-?I(.F)?` whose value is a multiple of `a / 10^k`.
pub(crate) fn multiples(a: u128, k: u32, state_limit: usize) -> Result<ByteDfa, String> {
    let a32 = a as u32;
    let k32 = k;
    // States: 0 start, 1 after '-', then INT(r), DOT(r), FRAC(r, j) for j in 1..=k,
    // TAIL(r).
    let int = |r: u32| 2 + r;
    let dot = |r: u32| 2 + a32 + r;
    let frac = |r: u32, j: u32| 2 + 2 * a32 + (j - 1) * a32 + r;
    let tail = |r: u32| 2 + 2 * a32 + k32 * a32 + r;
    let n = (2 + a32 * (k32 + 3)) as usize;
    let mut edges = Vec::new();
    let step = |r: u32, d: u32| ((10 * r as u64 + d as u64) % a as u64) as u32;
    for start in [0, 1] {
        edges.push((start, b'0', b'0', int(0)));
        for d in 1..=9u32 {
            edges.push((start, b'0' + d as u8, b'0' + d as u8, int(d % a32)));
        }
    }
    edges.push((0, b'-', b'-', 1));
    let pow = |e: u32| (0..e).fold(1u64, |p, _| p * 10 % a as u64);
    let mut accepting = vec![false; n];
    for r in 0..a32 {
        // INT(r) after a leading 0 must not take more digits: canonical integer parts
        // are the range language's job, so digits after 0 are allowed here.
        for d in 0..=9u32 {
            let b = b'0' + d as u8;
            edges.push((int(r), b, b, int(step(r, d))));
            if k32 >= 1 {
                edges.push((dot(r), b, b, frac(step(r, d), 1)));
            } else if d == 0 {
                edges.push((dot(r), b, b, tail(r)));
            }
            for j in 1..=k32 {
                if j < k32 {
                    edges.push((frac(r, j), b, b, frac(step(r, d), j + 1)));
                } else if d == 0 {
                    edges.push((frac(r, j), b, b, tail(r)));
                }
            }
        }
        edges.push((int(r), b'.', b'.', dot(r)));
        edges.push((tail(r), b'0', b'0', tail(r)));
        accepting[int(r) as usize] = r as u64 * pow(k32) % a as u64 == 0;
        for j in 1..=k32 {
            accepting[frac(r, j) as usize] = r as u64 * pow(k32 - j) % a as u64 == 0;
        }
        accepting[tail(r) as usize] = r == 0;
    }
    let mut algebra = Algebra::new();
    algebra.state_limit(state_limit);
    algebra
        .from_edges(&edges, &accepting)
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multiples_agree_with_exact_arithmetic() {
        for (q, a, k) in [
            ("3", 3, 0),
            ("0.25", 25, 2),
            ("1.5", 15, 1),
            ("7e1", 70, 0),
            ("0.010", 1, 2),
        ] {
            assert_eq!(parse(q).unwrap(), (a, k), "{q}");
            let dfa = multiples(a, k, 100_000).unwrap();
            // Values in units of 10^-4, written with 0..4 fraction digits.
            for units in -3000i64..3000 {
                let text = format!(
                    "{}{}.{:04}",
                    if units < 0 { "-" } else { "" },
                    units.abs() / 10_000,
                    units.abs() % 10_000
                );
                let want = (units as i128 * 10i128.pow(k)) % (a as i128 * 10_000) == 0;
                assert_eq!(
                    dfa.is_match(text.as_bytes()),
                    want,
                    "{text} multiple of {q}"
                );
                let short = text.trim_end_matches('0').trim_end_matches('.');
                if !short.is_empty() && short != "-" {
                    assert_eq!(
                        dfa.is_match(short.as_bytes()),
                        want,
                        "{short} multiple of {q}"
                    );
                }
            }
        }
        assert!(parse("0").is_err() && parse("-2").is_err() && parse("1000001").is_err());
    }
}
