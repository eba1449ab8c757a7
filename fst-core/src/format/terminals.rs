//! The terminal sections: masks and names. The writer's packing and the reader's checks,
//! side by side.

use super::error::{err, FormatError, FormatErrorKind};
use crate::parts::{terminal_mask_fault, Terminal, MAX_TERMINAL_NAME};

/// The terminal names section: lengths, then the bytes packed little-endian, zero-padded.
pub(crate) fn pack_names(terminals: &[Terminal]) -> Vec<u32> {
    let mut words: Vec<u32> = terminals.iter().map(|t| t.name.len() as u32).collect();
    let bytes: Vec<u8> = terminals.iter().flat_map(|t| t.name.bytes()).collect();
    words.extend(bytes.chunks(4).map(|c| {
        let mut w = [0u8; 4];
        w[..c.len()].copy_from_slice(c);
        u32::from_le_bytes(w)
    }));
    words
}

/// The byte range `(start, end)` of each terminal name within the names section's packed
/// bytes, checked: lengths in range, bytes UTF-8, padding zero.
fn validate_terminal_names(
    section: &[u32],
    count: usize,
    at: usize,
) -> Result<Vec<(usize, usize)>, FormatError> {
    let bad = |message: String| err(FormatErrorKind::Terminals, message);
    if section.len() < count {
        return Err(bad(format!(
            "section 'terminal names' (word {at}) has {} words, fewer than its {count} lengths",
            section.len()
        )));
    }
    let (lens, packed) = section.split_at(count);
    let mut ranges = Vec::with_capacity(count);
    let mut total = 0usize;
    for (k, &len) in lens.iter().enumerate() {
        let len = len as usize;
        if len == 0 || len > MAX_TERMINAL_NAME {
            return Err(bad(format!(
                "section 'terminal names' word {}: terminal {k} has a name of {len} bytes; \
                 names have 1 to {MAX_TERMINAL_NAME}",
                at + k
            )));
        }
        ranges.push((total, total + len));
        total += len;
    }
    if packed.len() != total.div_ceil(4) {
        return Err(bad(format!(
            "section 'terminal names' holds {} words of name bytes but the lengths add up \
             to {total} bytes ({} words)",
            packed.len(),
            total.div_ceil(4)
        )));
    }
    let bytes: Vec<u8> = packed.iter().flat_map(|w| w.to_le_bytes()).collect();
    if bytes[total..].iter().any(|&b| b != 0) {
        return Err(bad(
            "section 'terminal names': padding bytes are not zero".into()
        ));
    }
    for (k, &(a, b)) in ranges.iter().enumerate() {
        match std::str::from_utf8(&bytes[a..b]) {
            Err(_) => {
                return Err(bad(format!(
                    "section 'terminal names': the name of terminal {k} is not UTF-8"
                )))
            }
            Ok(name) if name.chars().any(char::is_control) => {
                return Err(bad(format!(
                    "section 'terminal names': the name of terminal {k} has control characters"
                )))
            }
            Ok(_) => {}
        }
    }
    Ok(ranges)
}

/// Reads the terminal sections `(masks, names)` of `count` terminals: the mask section's
/// length, (when `all`) each mask's bits, and the names. Returns where the masks start.
pub(crate) fn read_terminals(
    words: &[u32],
    (masks, names): ((usize, usize), (usize, usize)),
    count: u32,
    (vocab_size, eos_ids): (u32, &[u32]),
    all: bool,
) -> Result<usize, FormatError> {
    let t = count as usize;
    let mask_words = (vocab_size as usize).div_ceil(32);
    if masks.1 != t * mask_words {
        return Err(err(
            FormatErrorKind::Counts,
            format!(
                "section 'terminal masks' has {} words but {t} terminals of \
                 {mask_words}-word masks need {}",
                masks.1,
                t * mask_words
            ),
        ));
    }
    if all {
        for k in 0..t {
            let mask = &words[masks.0 + k * mask_words..masks.0 + (k + 1) * mask_words];
            if let Some(why) = terminal_mask_fault(mask, vocab_size, eos_ids) {
                return Err(err(
                    FormatErrorKind::Terminals,
                    format!("section 'terminal masks', terminal {k}: {why}"),
                ));
            }
        }
    }
    validate_terminal_names(&words[names.0..names.0 + names.1], t, names.0)?;
    Ok(masks.0)
}
