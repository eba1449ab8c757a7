//! The token FSA reader: each phase reads and checks its sections and returns its part of
//! the [`Layout`], in file order of dependence (header, section table, counts, EOS ids,
//! state offsets, flags, classes, terminals, edges, dense masks).

use super::check::{check_csr, expect_len};
use super::classes::{read_classes, ClassSections};
use super::container::{read_header, AutomatonKind, Header, SectionTable};
use super::dense::{validate_dense_masks, DenseCheck};
use super::error::{err, FormatError, FormatErrorKind};
use super::layout::Layout;
use super::terminals::read_terminals;
use super::*;
use crate::parts::MAX_TERMINALS;
use crate::vocab::MAX_VOCAB_SIZE;

/// How much of a file [`validate`] checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Checks {
    /// Everything: what loading a file needs.
    All,
    /// The header, section table, counts, CSR offsets and edges, but not the checksum
    /// nor the O(tokens) tables (token index, class words, terminal and dense masks): for
    /// words this module's writer just produced from checked parts.
    Structure,
}

/// The section ids of the finite control, which token FSA and token PDA files share.
const CONTROL_SECTIONS: [u32; 12] = [
    SECTION_EOS_IDS,
    SECTION_STATE_OFFSETS,
    SECTION_STATE_FLAGS,
    SECTION_EDGE_LABELS,
    SECTION_EDGE_TARGETS,
    SECTION_EDGES_PACKED,
    SECTION_TOKEN_INDEX,
    SECTION_TOKEN_CLASSES,
    SECTION_CLASS_WORD_OFFSETS,
    SECTION_CLASS_WORDS,
    SECTION_DENSE_MASKS,
    SECTION_STATE_MASK_INDEX,
];

/// The section ids a token FSA file has beside the finite control's: its terminals.
const FSA_ONLY_SECTIONS: [u32; 2] = [SECTION_TERMINAL_MASKS, SECTION_TERMINAL_NAMES];

/// The section ids a token PDA file has beside the finite control's: its stack.
const PDA_ONLY_SECTIONS: [u32; 8] = [
    SECTION_ALTERNATIVE_OFFSETS,
    SECTION_ALTERNATIVES,
    SECTION_STACK_OPS,
    SECTION_STACK_SYMBOLS,
    SECTION_POP_OFFSETS,
    SECTION_POP_EDGES,
    SECTION_PUSH_OFFSETS,
    SECTION_PUSH_SYMBOLS,
];

/// Where a token FSA's sections are, `(offset, length)` each.
struct FsaSections {
    eos: (usize, usize),
    offsets: (usize, usize),
    flags: (usize, usize),
    /// The edge labels, or the packed edges when `classes.narrow`.
    labels: (usize, usize),
    targets: (usize, usize),
    classes: ClassSections,
    terminals: Option<((usize, usize), (usize, usize))>,
    dense: Option<((usize, usize), (usize, usize))>,
}

/// Validates a whole token FSA file given as words and returns where everything is.
pub(crate) fn validate(words: &[u32], checks: Checks) -> Result<Layout, FormatError> {
    validate_kind(words, checks, AutomatonKind::TokenFsa).map(|(layout, _)| layout)
}

/// Validates a file of `kind` as a token FSA: the whole of a token FSA file, or a token
/// PDA's finite control (whose dense masks hold no EOS ids: EOS depends on the stack).
/// Returns the layout and the section table, where a PDA's other sections are.
pub(crate) fn validate_kind(
    words: &[u32],
    checks: Checks,
    kind: AutomatonKind,
) -> Result<(Layout, SectionTable), FormatError> {
    let all = checks == Checks::All;
    let pda = kind == AutomatonKind::TokenPda;
    let header = read_header(words, all, &[kind])?;
    let own: &[u32] = if pda {
        &PDA_ONLY_SECTIONS
    } else {
        &FSA_ONLY_SECTIONS
    };
    let known: Vec<u32> = CONTROL_SECTIONS.iter().chain(own).copied().collect();
    let table = SectionTable::read(words, &known)?;
    let s = fsa_sections(&table, header.num_terminals)?;
    check_counts(&header, &s)?;
    let eos_ids = read_eos_ids(words, s.eos, header.vocab_size)?;
    let csr = &words[s.offsets.0..s.offsets.0 + s.offsets.1];
    check_csr(
        csr,
        s.offsets.0,
        ("state offsets", "state"),
        (s.labels.1, "edges"),
        false,
    )?;
    read_flags(words, s.flags, &header)?;
    let (num_classes, class_sizes) = read_classes(
        words,
        &s.classes,
        (header.vocab_size, eos_ids),
        (header.num_terminals, header.num_states),
        all,
    )?;
    let terminal_masks = match s.terminals {
        Some(sections) => read_terminals(
            words,
            sections,
            header.num_terminals,
            (header.vocab_size, eos_ids),
            all,
        )?,
        None => 0,
    };
    let edges = Edges::new(words, &s);
    let token_edges = edges.check(csr, &header, num_classes, &class_sizes)?;
    // (Class sizes are only counted when checking everything.)
    if all && token_edges != u64::from(header.num_edges) {
        return Err(err(
            FormatErrorKind::Counts,
            format!(
                "header counts {} edges (word 11) but the class and terminal edges \
                 stand for {token_edges}",
                header.num_edges
            ),
        ));
    }
    let mask_words = (header.vocab_size as usize).div_ceil(32);
    let (dense_masks, num_masks, state_mask_index) = match s.dense {
        Some((table, index)) if !all => {
            let num_masks = table.1.checked_div(mask_words).unwrap_or(0);
            (table.0, num_masks as u32, index.0)
        }
        Some((table, index)) => {
            let check = DenseCheck {
                vocab_size: header.vocab_size,
                num_states: header.num_states,
                num_classes,
                eos_ids,
                csr,
                word_csr: section(words, s.classes.word_offsets),
                class_words: section(words, s.classes.word_pairs),
                flag_words: if pda { &[] } else { section(words, s.flags) },
                label_of: &|e| edges.edge(e).0,
            };
            let num_masks = validate_dense_masks(words, check, table, index)?;
            (table.0, num_masks, index.0)
        }
        None => (0, 0, 0),
    };
    let layout = Layout {
        header,
        eos: s.eos,
        state_offsets: s.offsets.0,
        state_flags: s.flags.0,
        narrow: s.classes.narrow,
        edge_labels: s.labels.0,
        edge_targets: s.targets.0,
        num_classes,
        token_classes: s.classes.token_classes.0,
        token_index: s.classes.token_index.map_or(0, |(offset, _)| offset),
        num_indexed: s.classes.token_index.map(|(_, len)| len),
        class_word_offsets: s.classes.word_offsets.0,
        class_words: s.classes.word_pairs.0,
        mask_words,
        dense_masks,
        num_masks,
        state_mask_index,
        terminal_masks,
        terminal_names: s.terminals.map_or((0, 0), |(_, names)| names),
    };
    Ok((layout, table))
}

fn section(words: &[u32], (offset, len): (usize, usize)) -> &[u32] {
    &words[offset..offset + len]
}

/// Finds the sections of a token FSA in the table: the required ones, one of the two edge
/// layouts, and the optional pairs (terminals exactly when the header counts some).
fn fsa_sections(table: &SectionTable, num_terminals: u32) -> Result<FsaSections, FormatError> {
    let eos = table.require(SECTION_EOS_IDS)?;
    let offsets = table.require(SECTION_STATE_OFFSETS)?;
    let flags = table.require(SECTION_STATE_FLAGS)?;
    let token_classes = table.require(SECTION_TOKEN_CLASSES)?;
    let token_index = table.get(SECTION_TOKEN_INDEX);
    let word_offsets = table.require(SECTION_CLASS_WORD_OFFSETS)?;
    let word_pairs = table.require(SECTION_CLASS_WORDS)?;
    let (narrow, labels, targets) = edge_sections(table)?;
    let terminals = match (
        table.get(SECTION_TERMINAL_MASKS),
        table.get(SECTION_TERMINAL_NAMES),
    ) {
        (Some(masks), Some(names)) if num_terminals > 0 => Some((masks, names)),
        (None, None) if num_terminals == 0 => None,
        _ => {
            return Err(err(
                FormatErrorKind::SectionTable,
                format!(
                    "the header counts {num_terminals} terminals (word 14); sections '{}' \
                     (id {SECTION_TERMINAL_MASKS}) and '{}' (id {SECTION_TERMINAL_NAMES}) must \
                     both be present exactly when there are terminals",
                    section_name(SECTION_TERMINAL_MASKS),
                    section_name(SECTION_TERMINAL_NAMES)
                ),
            ))
        }
    };
    let dense = match (
        table.get(SECTION_DENSE_MASKS),
        table.get(SECTION_STATE_MASK_INDEX),
    ) {
        (Some(masks), Some(index)) => Some((masks, index)),
        (None, None) => None,
        (Some(_), None) | (None, Some(_)) => {
            return Err(err(
                FormatErrorKind::SectionTable,
                format!(
                    "section table has only one of the sections '{}' (id {SECTION_DENSE_MASKS}) \
                     and '{}' (id {SECTION_STATE_MASK_INDEX}); they come together",
                    section_name(SECTION_DENSE_MASKS),
                    section_name(SECTION_STATE_MASK_INDEX)
                ),
            ))
        }
    };
    Ok(FsaSections {
        eos,
        offsets,
        flags,
        labels,
        targets,
        classes: ClassSections {
            token_index,
            token_classes,
            word_offsets,
            word_pairs,
            narrow,
        },
        terminals,
        dense,
    })
}

/// The edge layout: `(narrow, labels, targets)`, the packed section serving as both.
type EdgeSections = (bool, (usize, usize), (usize, usize));

fn edge_sections(table: &SectionTable) -> Result<EdgeSections, FormatError> {
    match (
        table.get(SECTION_EDGES_PACKED),
        table.get(SECTION_EDGE_LABELS),
        table.get(SECTION_EDGE_TARGETS),
    ) {
        (Some(packed), None, None) => Ok((true, packed, packed)),
        (None, Some(labels), Some(targets)) => Ok((false, labels, targets)),
        _ => Err(err(
            FormatErrorKind::SectionTable,
            format!(
                "the edges must be either section '{}' (id {SECTION_EDGES_PACKED}) alone \
                 or sections '{}' (id {SECTION_EDGE_LABELS}) and '{}' (id \
                 {SECTION_EDGE_TARGETS}) together",
                section_name(SECTION_EDGES_PACKED),
                section_name(SECTION_EDGE_LABELS),
                section_name(SECTION_EDGE_TARGETS)
            ),
        )),
    }
}

/// The header's counts against the section lengths, the terminal count and the start
/// state.
fn check_counts(h: &Header, s: &FsaSections) -> Result<(), FormatError> {
    let (num_eos, num_states) = (h.num_eos, h.num_states);
    if h.vocab_size > MAX_VOCAB_SIZE {
        return Err(err(
            FormatErrorKind::Counts,
            format!(
                "header's vocab_size {} (word 6) is over the supported {MAX_VOCAB_SIZE} token ids",
                h.vocab_size
            ),
        ));
    }
    expect_len(
        SECTION_EOS_IDS,
        s.eos,
        u64::from(num_eos),
        format!("the header's {num_eos} EOS ids (word 13)"),
    )?;
    expect_len(
        SECTION_STATE_OFFSETS,
        s.offsets,
        u64::from(num_states) + 1,
        format!("the header's {num_states} states (word 10)"),
    )?;
    expect_len(
        SECTION_STATE_FLAGS,
        s.flags,
        u64::from(num_states.div_ceil(32)),
        format!("the header's {num_states} states (word 10) at a bit each"),
    )?;
    let num_class_edges = s.labels.1;
    if !s.classes.narrow {
        expect_len(
            SECTION_EDGE_TARGETS,
            s.targets,
            num_class_edges as u64,
            format!("the {num_class_edges} edge labels"),
        )?;
    }
    let num_terminals = h.num_terminals;
    if num_terminals > MAX_TERMINALS
        || u64::from(h.vocab_size) + u64::from(num_terminals) > u64::from(u32::MAX)
    {
        return Err(err(
            FormatErrorKind::Counts,
            format!(
                "header counts {num_terminals} terminals (word 14); at most {MAX_TERMINALS}, \
                 with labels up to vocab_size + terminals fitting in u32"
            ),
        ));
    }
    if h.start >= num_states {
        return Err(err(
            FormatErrorKind::StartState,
            format!(
                "start state {} (word 9) but there are only {num_states} states",
                h.start
            ),
        ));
    }
    Ok(())
}

/// The EOS ids: sorted, distinct, in the vocabulary.
fn read_eos_ids(
    words: &[u32],
    eos: (usize, usize),
    vocab_size: u32,
) -> Result<&[u32], FormatError> {
    let eos_ids = section(words, eos);
    for (i, &id) in eos_ids.iter().enumerate() {
        if id >= vocab_size {
            return Err(err(
                FormatErrorKind::EosIds,
                format!(
                    "section 'EOS ids' word {}: EOS id {id} is not below vocab_size {vocab_size}",
                    eos.0 + i
                ),
            ));
        }
        if i > 0 && eos_ids[i - 1] >= id {
            return Err(err(
                FormatErrorKind::EosIds,
                format!(
                    "section 'EOS ids' word {}: EOS ids are not sorted and distinct ({} then {id})",
                    eos.0 + i,
                    eos_ids[i - 1]
                ),
            ));
        }
    }
    Ok(eos_ids)
}

/// The state flags: a bit per state, none past the last state, as many set as the header
/// counts accepting states.
fn read_flags(words: &[u32], flags: (usize, usize), h: &Header) -> Result<(), FormatError> {
    let flag_words = section(words, flags);
    let num_states = h.num_states;
    let tail = num_states % 32;
    if tail != 0 && flag_words.last().is_some_and(|w| w >> tail != 0) {
        return Err(err(
            FormatErrorKind::StateFlags,
            format!(
                "section 'state flags' word {}: bits past the last state ({num_states} \
                 states) are set",
                flags.0 + flags.1 - 1
            ),
        ));
    }
    let accepting_seen: u32 = flag_words.iter().map(|w| w.count_ones()).sum();
    if accepting_seen != h.num_accepting {
        return Err(err(
            FormatErrorKind::Counts,
            format!(
                "header counts {} accepting states (word 12) but the state \
                 flags mark {accepting_seen}",
                h.num_accepting
            ),
        ));
    }
    Ok(())
}

/// The edge sections as read.
struct Edges<'w> {
    narrow: bool,
    labels_at: usize,
    labels: &'w [u32],
    targets: &'w [u32],
}

impl<'w> Edges<'w> {
    fn new(words: &'w [u32], s: &FsaSections) -> Edges<'w> {
        Edges {
            narrow: s.classes.narrow,
            labels_at: s.labels.0,
            labels: section(words, s.labels),
            targets: section(words, s.targets),
        }
    }

    /// Edge `e`'s `(label, target)`.
    fn edge(&self, e: usize) -> (u32, u32) {
        if self.narrow {
            (self.labels[e] >> 16, self.labels[e] & 0xffff)
        } else {
            (self.labels[e], self.targets[e])
        }
    }

    /// Checks labels strictly increasing per state (classes, then terminal labels) and
    /// targets in range; returns the tokens the edges stand for.
    fn check(
        &self,
        csr: &[u32],
        h: &Header,
        num_classes: u32,
        class_sizes: &[u64],
    ) -> Result<u64, FormatError> {
        let (num_terminals, num_states) = (h.num_terminals, h.num_states);
        let label_end = u64::from(num_classes) + u64::from(num_terminals);
        let mut token_edges: u64 = 0;
        for (s, pair) in csr.windows(2).enumerate() {
            let (begin, end) = (pair[0] as usize, pair[1] as usize);
            for e in begin..end {
                let (label, target) = self.edge(e);
                let at = self.labels_at + e;
                if u64::from(label) >= label_end {
                    let id = if self.narrow {
                        SECTION_EDGES_PACKED
                    } else {
                        SECTION_EDGE_LABELS
                    };
                    return Err(err(
                        FormatErrorKind::EdgeLabel,
                        format!(
                            "section '{}' word {at} (state {s}): label {label} is neither one \
                             of the {num_classes} token classes nor one of the \
                             {num_terminals} terminal labels after them",
                            section_name(id)
                        ),
                    ));
                }
                if e > begin && self.edge(e - 1).0 >= label {
                    return Err(err(
                        FormatErrorKind::EdgeLabel,
                        format!(
                            "edge word {at} (state {s}): labels are not strictly increasing \
                             ({} then {label})",
                            self.edge(e - 1).0
                        ),
                    ));
                }
                if target >= num_states {
                    return Err(err(
                        FormatErrorKind::EdgeTarget,
                        format!(
                            "edge {e} (state {s}, label {label}): target {target} is not \
                             below the number of states {num_states}"
                        ),
                    ));
                }
                token_edges += if label < num_classes {
                    class_sizes[label as usize]
                } else {
                    1
                };
            }
        }
        Ok(token_edges)
    }
}
