//! The dense mask sections: the mask table and the per-state mask index. The writer's
//! table and the reader's check against the edges, side by side.

use super::error::{err, FormatError, FormatErrorKind};
use super::{dense_mask_wanted, flag_set, NO_DENSE_MASK};
use crate::fast_hash::FastMap;
use crate::parts::StateId;

/// The dense mask table and per-state mask index of canonical class parts; both empty
/// when no state wants a mask. Identical masks are stored once, numbered in order of
/// first use.
pub(crate) fn dense_masks(
    vocab_size: u32,
    eos_ids: &[u32],
    accepting: &[bool],
    class_sizes: &[u32],
    (word_offsets, class_words): (&[u32], &[u32]),
    edges: &[Vec<(u32, StateId)>],
) -> (Vec<u32>, Vec<u32>) {
    let width = (vocab_size as usize).div_ceil(32);
    let num_classes = class_sizes.len() as u32;
    let mut table: Vec<u32> = Vec::new();
    let mut index = vec![NO_DENSE_MASK; edges.len()];
    // Classes are disjoint and non-empty and EOS ids are in none, so two states have the
    // same mask exactly when they have the same classes and acceptance: key on those
    // instead of hashing masks.
    let mut seen: FastMap<(Vec<u32>, bool), u32> = FastMap::default();
    for (state, list) in edges.iter().enumerate() {
        let eos: &[u32] = if accepting[state] { eos_ids } else { &[] };
        let class_edges = &list[..list.partition_point(|&(l, _)| l < num_classes)];
        let tokens: usize = class_edges
            .iter()
            .map(|&(c, _)| class_sizes[c as usize] as usize)
            .sum();
        if !dense_mask_wanted(tokens + eos.len(), width) {
            continue;
        }
        let key = (
            class_edges.iter().map(|&(c, _)| c).collect::<Vec<u32>>(),
            accepting[state],
        );
        let next = seen.len() as u32;
        let id = *seen.entry(key).or_insert_with(|| {
            let start = table.len();
            table.resize(start + width, 0);
            let classes = class_edges.iter().map(|&(c, _)| c);
            or_allowed(
                &mut table[start..],
                classes,
                (word_offsets, class_words),
                eos,
            );
            next
        });
        index[state] = id;
    }
    if table.is_empty() {
        index.clear();
    }
    (table, index)
}

/// What the dense mask check reads from the already validated sections.
pub(crate) struct DenseCheck<'w, 'f> {
    pub(crate) vocab_size: u32,
    pub(crate) num_states: u32,
    pub(crate) num_classes: u32,
    pub(crate) eos_ids: &'w [u32],
    pub(crate) csr: &'w [u32],
    pub(crate) word_csr: &'w [u32],
    pub(crate) class_words: &'w [u32],
    pub(crate) flag_words: &'w [u32],
    pub(crate) label_of: &'f dyn Fn(usize) -> u32,
}

/// Checks the dense mask sections against the (already validated) edges and returns the
/// number of masks.
///
/// A mask is right when it has one bit per allowed token (its popcount, computed once per
/// mask) and every allowed token's bit is set: then it holds nothing else, padding
/// included. States sharing a mask usually have the same class edges: those are checked
/// once.
pub(crate) fn validate_dense_masks(
    words: &[u32],
    check: DenseCheck<'_, '_>,
    table: (usize, usize),
    index: (usize, usize),
) -> Result<u32, FormatError> {
    let DenseCheck {
        vocab_size,
        num_states,
        num_classes,
        eos_ids,
        csr,
        word_csr,
        class_words,
        flag_words,
        label_of,
    } = check;
    let width = (vocab_size as usize).div_ceil(32);
    let bad = |message: String| err(FormatErrorKind::DenseMask, message);
    if index.1 != num_states as usize {
        return Err(err(
            FormatErrorKind::Counts,
            format!(
                "section 'state mask index' has {} words but the header says {num_states} states",
                index.1
            ),
        ));
    }
    if width == 0 || table.1 % width != 0 || table.1 == 0 {
        return Err(bad(format!(
            "section 'dense masks' has {} words, not a positive multiple of the mask width \
             {width} words (vocab_size {vocab_size})",
            table.1
        )));
    }
    let num_masks = table.1 / width;
    let masks = &words[table.0..table.0 + table.1];
    let mut expected = vec![0u32; width];
    let mut next_new = 0usize;
    // Per mask, the class labels and EOS ids of the state that verified it.
    let mut verified: Vec<Option<(Vec<u32>, bool)>> = vec![None; num_masks];
    for (s, &id) in words[index.0..index.0 + index.1].iter().enumerate() {
        if id == NO_DENSE_MASK {
            continue;
        }
        let at = index.0 + s;
        let id = id as usize;
        if id > next_new || id >= num_masks {
            return Err(bad(format!(
                "section 'state mask index' word {at} (state {s}): mask {id} does not exist \
                 or is out of order ({num_masks} masks, numbered by first use; the next new \
                 one would be {next_new})"
            )));
        }
        if id == next_new {
            next_new += 1;
        }
        let mask = &masks[id * width..(id + 1) * width];
        let classes: Vec<u32> = (csr[s] as usize..csr[s + 1] as usize)
            .map(label_of)
            .take_while(|&l| l < num_classes)
            .collect();
        let accepts = flag_set(flag_words, s);
        if verified[id]
            .as_ref()
            .is_some_and(|(c, a)| *c == classes && *a == accepts)
        {
            continue;
        }
        expected.fill(0);
        let eos: &[u32] = if accepts { eos_ids } else { &[] };
        let words = (word_csr, class_words);
        or_allowed(&mut expected, classes.iter().copied(), words, eos);
        if let Some(why) = mask_fault(&expected, mask, (vocab_size, eos_ids), accepts) {
            return Err(bad(format!(
                "section 'dense masks' mask {id} (state {s}): {why}"
            )));
        }
        if verified[id].is_none() {
            verified[id] = Some((classes, accepts));
        }
    }
    if next_new != num_masks {
        return Err(bad(format!(
            "section 'dense masks' holds {num_masks} masks but states use only {next_new}"
        )));
    }
    Ok(num_masks as u32)
}

/// ORs the allowed set of a state into `mask`: the mask words of its `classes` (a word per
/// OR) and its `eos` ids. What the writer stores and the reader expects.
fn or_allowed(
    mask: &mut [u32],
    classes: impl Iterator<Item = u32>,
    (word_offsets, class_words): (&[u32], &[u32]),
    eos: &[u32],
) {
    for c in classes {
        let c = c as usize;
        let pairs = &class_words[2 * word_offsets[c] as usize..2 * word_offsets[c + 1] as usize];
        for pair in pairs.chunks_exact(2) {
            mask[pair[0] as usize] |= pair[1];
        }
    }
    for &t in eos {
        mask[(t / 32) as usize] |= 1 << (t % 32);
    }
}

/// How a stored dense `mask` differs from the `expected` one at its first differing bit,
/// if it does.
fn mask_fault(
    expected: &[u32],
    mask: &[u32],
    (vocab_size, eos_ids): (u32, &[u32]),
    accepts: bool,
) -> Option<String> {
    let i = (0..expected.len()).find(|&i| expected[i] != mask[i])?;
    let diff = expected[i] ^ mask[i];
    let t = i as u32 * 32 + diff.trailing_zeros();
    Some(if expected[i] & diff != 0 {
        let what = if accepts && eos_ids.binary_search(&t).is_ok() {
            "an EOS id of the accepting state"
        } else {
            "an edge"
        };
        format!("token {t} is {what} but its bit is 0")
    } else if t >= vocab_size {
        format!("padding bit {t} (past vocab_size {vocab_size}) is set")
    } else if eos_ids.binary_search(&t).is_ok() {
        format!("it allows EOS id {t} but the state does not accept")
    } else {
        format!("it allows token {t}, which is not an edge of the state")
    })
}
