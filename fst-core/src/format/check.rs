//! Checks several sections share: a section's length against a count, CSR offsets.

use super::error::{err, FormatError, FormatErrorKind};
use super::section_name;

/// Checks that section `id` (at `(offset, len)`) has `want` words, `what` naming the
/// count that needs them.
pub(crate) fn expect_len(
    id: u32,
    (_, len): (usize, usize),
    want: u64,
    what: String,
) -> Result<(), FormatError> {
    if len as u64 != want {
        return Err(err(
            FormatErrorKind::Counts,
            format!(
                "section '{}' has {len} words but {what} need {want}",
                section_name(id)
            ),
        ));
    }
    Ok(())
}

/// Checks CSR offsets: from 0, monotone (strictly when `strict`: no empty entry), ending
/// at `total`.
pub(crate) fn check_csr(
    csr: &[u32],
    at: usize,
    (section, entry): (&str, &str),
    (total, of): (usize, &str),
    strict: bool,
) -> Result<(), FormatError> {
    let kind = if strict {
        FormatErrorKind::TokenClasses
    } else {
        FormatErrorKind::StateOffsets
    };
    if csr.first() != Some(&0) {
        return Err(err(
            kind,
            format!(
                "section '{section}' word {at}: the first offset is {}, must be 0",
                csr.first().copied().unwrap_or(0)
            ),
        ));
    }
    for (i, pair) in csr.windows(2).enumerate() {
        if pair[1] < pair[0] || (strict && pair[1] == pair[0]) {
            return Err(err(
                kind,
                format!(
                    "section '{section}' word {} ({entry} {i}): offset {} after {} {}",
                    at + i + 1,
                    pair[1],
                    pair[0],
                    if strict {
                        "must be larger (no empty entry)"
                    } else {
                        "must not be smaller"
                    }
                ),
            ));
        }
    }
    if csr.last().map(|&l| l as usize) != Some(total) {
        return Err(err(
            kind,
            format!(
                "section '{section}' word {}: the last offset is {}, must equal the number of \
                 {of} {total}",
                at + csr.len() - 1,
                csr.last().copied().unwrap_or(0)
            ),
        ));
    }
    Ok(())
}
