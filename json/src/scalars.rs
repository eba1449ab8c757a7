//! Strings and numbers.

use serde_json::{Map, Value};

use crate::config::Escapes;
use crate::decimal::{Decimal, NumberTexts};
use crate::error::{child, JsonSchemaError};
use crate::lang::Lang;
use crate::numbers::{decimal_range, fractional_side, integer_range, Bound};
use crate::schema::Translator;
use crate::{formats, multiple, pattern, strings};

/// Largest magnitude of a numeric bound handled: 10^30.
const MAX_BOUND_POWER: i64 = 30;

impl Translator<'_> {
    /// `type: string` with `minLength`/`maxLength` (code points), `pattern` or `format`.
    pub(crate) fn string(
        &mut self,
        map: &Map<String, Value>,
        pointer: &str,
    ) -> Result<Lang, JsonSchemaError> {
        let min = count(map, pointer, "minLength")?.unwrap_or(0);
        let max = count(map, pointer, "maxLength")?;
        if max.is_some_and(|max| max < min) {
            return Ok(None);
        }
        let mut parts = Vec::new();
        if let Some(p) = map.get("pattern") {
            let p = p
                .as_str()
                .ok_or_else(|| JsonSchemaError::at(pointer, "pattern", "must be a string"))?;
            let body = pattern::body(p, self.config.get_escapes(), &mut self.automata)
                .map_err(|why| pattern::refused(&self.automata, pointer, "pattern", why))?;
            parts.push(format!("\"{body}\""));
        }
        if let Some(name) = map.get("format").and_then(Value::as_str) {
            match formats::body_regex(name) {
                formats::Format::Exact(regexes) => {
                    if !formats::COMPLETE.contains(&name) {
                        let why = format!("format `{name}` is enforced as a subset of its grammar");
                        self.incomplete.push((None, why));
                    }
                    let canonical = self.config.get_escapes() == Escapes::Canonical;
                    if let Some(body) = canonical.then(|| self.automata.fixed_all(&regexes)) {
                        match body {
                            Some(body) => parts.push(format!("\"{body}\"")),
                            None => parts.extend(
                                regexes
                                    .iter()
                                    .map(|r| format!("\"{}\"", self.automata.fixed(r))),
                            ),
                        }
                    } else if let Some(canonical) = self.automata.intersect(&regexes)? {
                        // Re-spelled once, after the pieces are intersected: each piece
                        // re-spelled alone would make a much larger product.
                        let body = pattern::any_spelling(&canonical, &mut self.automata).map_err(
                            |why| pattern::refused(&self.automata, pointer, "format", why),
                        )?;
                        parts.push(format!("\"{body}\""));
                    } else {
                        return Ok(None);
                    }
                }
                formats::Format::Unknown => {}
                formats::Format::Refused(why) => self.refuse(pointer, "format", why)?,
            }
        }
        if min > 0 || max.is_some() || parts.is_empty() {
            let any = strings::any_char(self.config.get_escapes());
            let body = match max {
                Some(max) => format!("(?:{any}){{{min},{max}}}"),
                // Any string, or at least `min` code points: the body of most string
                // fields, so its automaton is built once per process (`Automata::fixed`;
                // only small `min`, so that the cache stays small).
                None if min <= MAX_FIXED_MIN => {
                    self.automata.fixed(&format!("(?:{any}){{{min},}}"))
                }
                None => format!("(?:{any}){{{min},}}"),
            };
            parts.push(format!("\"{body}\""));
        }
        self.automata.intersect(&parts)
    }

    /// `type: integer` / `number` with `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`.
    pub(crate) fn number(
        &mut self,
        map: &Map<String, Value>,
        pointer: &str,
        integer: bool,
    ) -> Result<Lang, JsonSchemaError> {
        let range = self.number_range(map, pointer, integer)?;
        let Some(q) = map.get("multipleOf") else {
            return Ok(range);
        };
        let (a, k) = match q {
            Value::Number(q) => {
                multiple::parse(&self.numbers.text(q, &child(pointer, "multipleOf")))
                    .map_err(|why| JsonSchemaError::at(pointer, "multipleOf", why))?
            }
            _ => {
                return Err(JsonSchemaError::at(
                    pointer,
                    "multipleOf",
                    "must be a number",
                ))
            }
        };
        let Some(range) = range else { return Ok(None) };
        if integer && k == 0 && a == 1 {
            return Ok(Some(range));
        }
        let dfa = multiple::multiples(a, k, self.config.get_dfa_state_limit())
            .map_err(|why| JsonSchemaError::at(pointer, "multipleOf", why))?;
        let multiples = self.automata.splice(dfa);
        match multiples {
            Some(m) => self.automata.intersect(&[range, m]),
            None => Ok(None),
        }
    }

    /// The numbers of the type within `minimum`/`maximum`/`exclusive*`.
    fn number_range(
        &mut self,
        map: &Map<String, Value>,
        pointer: &str,
        integer: bool,
    ) -> Result<Lang, JsonSchemaError> {
        let bound =
            |keyword: &str, exclusive: bool| bound(map, pointer, keyword, exclusive, self.numbers);
        let lo = tighter(
            bound("minimum", false)?,
            bound("exclusiveMinimum", true)?,
            true,
        );
        let hi = tighter(
            bound("maximum", false)?,
            bound("exclusiveMaximum", true)?,
            false,
        );
        if integer {
            let lo = lo.map(|(x, inclusive)| round(&x, inclusive, true));
            let hi = hi.map(|(x, inclusive)| round(&x, inclusive, false));
            return Ok(match (lo, hi) {
                (None, None) => Some("-?(?:0|[1-9][0-9]*)".into()),
                _ => integer_range(lo, hi),
            });
        }
        if lo.is_none() && hi.is_none() {
            return Ok(Some(self.number_any().into()));
        }
        // Integer bounds by the range construction, others one side at a time, and the
        // sides intersected (with the JSON number form, which the sides do not enforce).
        let mut sides = Vec::new();
        let mut integer_bounds = (None, None);
        for (b, lower) in [(lo, true), (hi, false)] {
            match b {
                Some((x, inclusive)) if x.is_integer() => {
                    let b = Some(Bound {
                        value: x.round(false).expect("within 10^30"),
                        inclusive,
                    });
                    if lower {
                        integer_bounds.0 = b;
                    } else {
                        integer_bounds.1 = b;
                    }
                }
                Some((x, inclusive)) => match fractional_side(&x, inclusive, lower) {
                    Some(side) => sides.push(side),
                    None => return Ok(None),
                },
                None => {}
            }
        }
        if sides.is_empty() {
            return Ok(decimal_range(integer_bounds.0, integer_bounds.1));
        }
        if integer_bounds != (None, None) {
            match decimal_range(integer_bounds.0, integer_bounds.1) {
                Some(range) => sides.push(range),
                None => return Ok(None),
            }
        }
        sides.push(NO_EXPONENT.to_string());
        self.automata.intersect(&sides)
    }
}

/// Largest `minLength` (without `maxLength`) whose string body is a shared automaton.
const MAX_FIXED_MIN: u64 = 4;

/// JSON numbers without exponent.
const NO_EXPONENT: &str = "-?(?:0|[1-9][0-9]*)(?:\\.[0-9]+)?";

/// A non-negative integer keyword.
pub(crate) fn count(
    map: &Map<String, Value>,
    pointer: &str,
    keyword: &str,
) -> Result<Option<u64>, JsonSchemaError> {
    match map.get(keyword) {
        None => Ok(None),
        Some(v) => match v.as_u64().or_else(|| {
            v.as_f64()
                .filter(|f| *f >= 0.0 && f.fract() == 0.0)
                .map(|f| f as u64)
        }) {
            Some(n) => Ok(Some(n)),
            None => Err(JsonSchemaError::at(
                pointer,
                keyword,
                "must be a non-negative integer",
            )),
        },
    }
}

/// A numeric bound: its exact value and whether it is inclusive.
fn bound(
    map: &Map<String, Value>,
    pointer: &str,
    keyword: &str,
    exclusive: bool,
    numbers: &NumberTexts,
) -> Result<Option<(Decimal, bool)>, JsonSchemaError> {
    let Some(v) = map.get(keyword) else {
        return Ok(None);
    };
    let Value::Number(n) = v else {
        return Err(JsonSchemaError::at(
            pointer,
            keyword,
            "must be a number (draft-04 boolean forms are not supported)",
        ));
    };
    let x = numbers.decimal(n, &child(pointer, keyword));
    if !x.within(MAX_BOUND_POWER) {
        return Err(JsonSchemaError::at(
            pointer,
            keyword,
            "bounds beyond 1e30 in magnitude are not supported",
        ));
    }
    Ok(Some((x, !exclusive)))
}

/// The tighter of two bounds on the same side (`lower`: the larger one).
fn tighter(
    a: Option<(Decimal, bool)>,
    b: Option<(Decimal, bool)>,
    lower: bool,
) -> Option<(Decimal, bool)> {
    match (a, b) {
        (Some(a), Some(b)) => {
            let a_tighter = if lower { a.0 > b.0 } else { a.0 < b.0 };
            Some(if a_tighter || (a.0 == b.0 && !a.1) {
                a
            } else {
                b
            })
        }
        (a, b) => a.or(b),
    }
}

/// An integer bound equivalent to a real one for integers.
fn round(x: &Decimal, inclusive: bool, lower: bool) -> Bound {
    let (up, step) = match (lower, inclusive || !x.is_integer()) {
        (true, true) => (true, 0),
        (true, false) => (true, 1),
        (false, true) => (false, 0),
        (false, false) => (false, -1),
    };
    Bound {
        value: x.round(up).expect("within 10^30") + step,
        inclusive: true,
    }
}
