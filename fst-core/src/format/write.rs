//! The token FSA writer: canonical parts in, the words of a file out.

use super::classes::{encode_token_classes, fits_narrow};
use super::container::{AutomatonKind, ContainerWriter, Header};
use super::dense::dense_masks;
use super::terminals::pack_names;
use super::*;
use crate::parts::{CanonicalParts, PartsError, PartsErrorKind, StateId};

fn too_large(message: String) -> PartsError {
    PartsError::new(PartsErrorKind::Counts, message)
}

/// Lays out canonical parts as the words of a token FSA file. Fails only when a count
/// does not fit the file's 32-bit words.
pub(crate) fn write_token_fsa(parts: CanonicalParts) -> Result<Vec<u32>, PartsError> {
    write_automaton(parts, AutomatonKind::TokenFsa, &[])
}

/// Lays out canonical parts as a file of `kind` with `extra` sections `(id, words)`
/// after the token FSA's: a token PDA is its finite control plus its stack sections,
/// and its dense masks hold no EOS ids (EOS depends on the stack).
pub(crate) fn write_automaton(
    parts: CanonicalParts,
    kind: AutomatonKind,
    extra: &[(u32, Vec<u32>)],
) -> Result<Vec<u32>, PartsError> {
    let num_states = parts.accepting.len() as u32;
    let num_classes = parts.class_sizes.len() as u32;
    let (num_edges, num_class_edges) = count_edges(&parts.edges, &parts.class_sizes)?;
    let narrow = fits_narrow(
        u64::from(num_classes) + parts.terminals.len() as u64,
        u64::from(num_states),
    );
    let (token_index, token_classes) = encode_token_classes(
        &parts.class_of_token,
        &parts.uniform,
        &parts.final_of_class,
        &parts.class_sizes,
        narrow,
    );
    let never = vec![false; parts.accepting.len()];
    let eos_in_masks = match kind {
        AutomatonKind::TokenPda => &never,
        _ => &parts.accepting,
    };
    let (mask_table, mask_index) = dense_masks(
        parts.vocab_size,
        &parts.eos_ids,
        eos_in_masks,
        &parts.class_sizes,
        (&parts.class_word_offsets, &parts.class_words),
        &parts.edges,
    );
    let terminal_masks: Vec<u32> = (parts.terminals.iter())
        .flat_map(|t| t.mask.iter().copied())
        .collect();
    let terminal_names = pack_names(&parts.terminals);
    let sections = Sections {
        num_class_edges,
        narrow,
        token_index,
        token_classes,
        terminal_masks,
        terminal_names,
        mask_table,
        mask_index,
    };
    let header = Header {
        kind,
        vocab_size: parts.vocab_size,
        vocab_fingerprint: parts.vocab_fingerprint,
        start: parts.start,
        num_states,
        num_edges,
        num_accepting: parts.accepting.iter().filter(|&&a| a).count() as u32,
        num_eos: parts.eos_ids.len() as u32,
        num_terminals: parts.terminals.len() as u32,
    };
    let mut lens = sections.lengths(&parts);
    lens.extend(extra.iter().map(|(id, w)| (*id, w.len() as u64)));
    let mut out = ContainerWriter::new(&header, &lens).map_err(|total| {
        too_large(format!(
            "the automaton needs {total} words; a file holds at most {}",
            u32::MAX
        ))
    })?;
    sections.write(&parts, out.words());
    for (_, w) in extra {
        out.words().extend_from_slice(w);
    }
    Ok(out.finish())
}

/// The header's edge count (the tokens the class edges stand for, plus terminal edges)
/// and the number of class and terminal edges, both checked to fit in a word.
fn count_edges(
    edges: &[Vec<(u32, StateId)>],
    class_sizes: &[u32],
) -> Result<(u32, u64), PartsError> {
    let num_classes = class_sizes.len() as u32;
    let mut num_edges: u64 = 0;
    let mut num_class_edges: u64 = 0;
    for list in edges {
        num_class_edges += list.len() as u64;
        num_edges += (list.iter())
            .map(|&(l, _)| {
                if l < num_classes {
                    u64::from(class_sizes[l as usize])
                } else {
                    1
                }
            })
            .sum::<u64>();
    }
    let too_many = |what: &str, count: u64| {
        too_large(format!(
            "{count} {what}; at most {} fit in a file",
            u32::MAX
        ))
    };
    let num_edges = u32::try_from(num_edges).map_err(|_| too_many("edges", num_edges))?;
    if num_class_edges > u64::from(u32::MAX) {
        return Err(too_many("class edges", num_class_edges));
    }
    Ok((num_edges, num_class_edges))
}

/// The sections computed from the parts (the others are written straight from them).
struct Sections {
    num_class_edges: u64,
    narrow: bool,
    token_index: Option<Vec<u32>>,
    token_classes: Vec<u32>,
    terminal_masks: Vec<u32>,
    terminal_names: Vec<u32>,
    mask_table: Vec<u32>,
    mask_index: Vec<u32>,
}

impl Sections {
    /// `(id, length)` of each section present, in the order [`write`](Self::write)
    /// appends them.
    fn lengths(&self, parts: &CanonicalParts) -> Vec<(u32, u64)> {
        let num_states = parts.accepting.len() as u64;
        let mut lens = vec![
            (SECTION_EOS_IDS, parts.eos_ids.len() as u64),
            (SECTION_STATE_OFFSETS, num_states + 1),
            (SECTION_STATE_FLAGS, num_states.div_ceil(32)),
        ];
        if self.narrow {
            lens.push((SECTION_EDGES_PACKED, self.num_class_edges));
        } else {
            lens.extend([
                (SECTION_EDGE_LABELS, self.num_class_edges),
                (SECTION_EDGE_TARGETS, self.num_class_edges),
            ]);
        }
        if let Some(index) = &self.token_index {
            lens.push((SECTION_TOKEN_INDEX, index.len() as u64));
        }
        lens.extend([
            (SECTION_TOKEN_CLASSES, self.token_classes.len() as u64),
            (
                SECTION_CLASS_WORD_OFFSETS,
                parts.class_word_offsets.len() as u64,
            ),
            (SECTION_CLASS_WORDS, parts.class_words.len() as u64),
        ]);
        if !parts.terminals.is_empty() {
            lens.extend([
                (SECTION_TERMINAL_MASKS, self.terminal_masks.len() as u64),
                (SECTION_TERMINAL_NAMES, self.terminal_names.len() as u64),
            ]);
        }
        if !self.mask_table.is_empty() {
            lens.extend([
                (SECTION_DENSE_MASKS, self.mask_table.len() as u64),
                (SECTION_STATE_MASK_INDEX, num_states),
            ]);
        }
        lens
    }

    /// Appends the sections to `words` in the order of [`lengths`](Self::lengths).
    fn write(&self, parts: &CanonicalParts, words: &mut Vec<u32>) {
        words.extend_from_slice(&parts.eos_ids);
        let mut running = 0u32;
        words.push(0);
        for list in &parts.edges {
            running += list.len() as u32;
            words.push(running);
        }
        words.extend(parts.accepting.chunks(32).map(|chunk| {
            chunk
                .iter()
                .enumerate()
                .fold(0u32, |w, (i, &a)| w | u32::from(a) << i)
        }));
        write_edges(&parts.edges, self.narrow, words);
        words.extend_from_slice(self.token_index.as_deref().unwrap_or(&[]));
        words.extend_from_slice(&self.token_classes);
        words.extend_from_slice(&parts.class_word_offsets);
        words.extend_from_slice(&parts.class_words);
        if !parts.terminals.is_empty() {
            words.extend_from_slice(&self.terminal_masks);
            words.extend_from_slice(&self.terminal_names);
        }
        if !self.mask_table.is_empty() {
            words.extend_from_slice(&self.mask_table);
            words.extend_from_slice(&self.mask_index);
        }
    }
}

/// The edge sections: packed `label << 16 | target` words when `narrow`, else all labels
/// then all targets.
fn write_edges(edges: &[Vec<(u32, StateId)>], narrow: bool, words: &mut Vec<u32>) {
    if narrow {
        for list in edges {
            words.extend(list.iter().map(|&(label, target)| label << 16 | target));
        }
    } else {
        for list in edges {
            words.extend(list.iter().map(|&(label, _)| label));
        }
        for list in edges {
            words.extend(list.iter().map(|&(_, target)| target));
        }
    }
}
