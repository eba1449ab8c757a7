//! Exchange with OpenFst: token automata written as OpenFst acceptors (rustfst's
//! `VectorFst`, which `fstinfo`, `fstdraw` and Pynini open), and byte or code-point
//! acceptors read from OpenFst binary files or AT&T text as byte DFAs, ready to compose
//! with a vocabulary like a compiled regex.
//!
//! Token labels follow [`crate::labels`] (token `id` is label `id + 1`); EOS is not an
//! arc: a final state is where EOS is allowed. Weights are ignored except that a final
//! weight or arc weight of `Infinity` (the tropical zero) means none.

use std::collections::BTreeMap;
use std::time::Instant;

use rustfst::fst_impls::VectorFst;
use rustfst::fst_traits::{CoreFst, ExpandedFst, MutableFst, SerializableFst};
use rustfst::semirings::{Semiring, TropicalWeight};
use rustfst::Tr;

use super::{byte_dfa_error, past_memory, Clock, OpsError, OpsErrorKind};
use crate::automaton::TokenAutomaton;
use crate::bytes::{determinize_within, ByteDfa, Limits, Nfa, State, TerminalKind};
use crate::fast_hash::FastMap;
use crate::labels::{label_byte, token_label};
use crate::vocab::TokenVocabulary;

/// Default cap on the arcs of an exported acceptor (one per token edge).
pub const DEFAULT_ARC_LIMIT: usize = 50_000_000;

/// OpenFst's binary magic number, the first four bytes (little-endian) of a `.fst` file.
const FST_MAGIC: [u8; 4] = 2_125_659_606i32.to_le_bytes();

/// State-set entries the subset construction may hold per DFA state allowed.
const SET_ENTRIES_PER_STATE: usize = 1024;

/// What the labels of an acceptor being read stand for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Labels {
    /// fstc's ([`crate::labels`]): byte `b` is label `b + 1`.
    Fstc,
    /// Byte values, 1-255 (OpenFst's and Pynini's `byte` token type; NUL cannot occur).
    Bytes,
    /// Unicode code points (Pynini's `utf8` token type), read as their UTF-8 bytes.
    CodePoints,
}

/// Bytes an exported arc is counted for against the memory limit: 16 in rustfst's
/// `VectorFst` and up to 48 in the file written from it (a line of AT&T text; 16 in a
/// binary file).
const BYTES_PER_EXPORTED_ARC: u64 = 64;

/// Bytes an exported state is counted for: rustfst's state record and its arc vector
/// (about 72) and its final weight in the file.
const BYTES_PER_EXPORTED_STATE: u64 = 96;

/// The limits of an export to OpenFst: arcs, bytes held (the machine and the file written
/// from it, counted as 64 bytes an arc and 96 a state) and a deadline, each past with its own [`OpsErrorKind`].
#[derive(Clone, Copy, Debug)]
pub struct OpenFstExport {
    arc_limit: usize,
    memory_limit: usize,
    deadline: Option<Instant>,
}

impl Default for OpenFstExport {
    fn default() -> Self {
        OpenFstExport::new()
    }
}

impl OpenFstExport {
    /// [`DEFAULT_ARC_LIMIT`] arcs, no memory limit, no deadline.
    pub fn new() -> OpenFstExport {
        OpenFstExport {
            arc_limit: DEFAULT_ARC_LIMIT,
            memory_limit: usize::MAX,
            deadline: None,
        }
    }

    /// Caps the arcs of the machine ([`OpsErrorKind::TooManyStates`] past it).
    pub fn arc_limit(mut self, arcs: usize) -> OpenFstExport {
        self.arc_limit = arcs;
        self
    }

    /// Caps the bytes of the machine and its file ([`OpsErrorKind::Memory`]): a caller's
    /// memory budget.
    pub fn memory_limit(mut self, bytes: usize) -> OpenFstExport {
        self.memory_limit = bytes;
        self
    }

    /// Gives up past `deadline` ([`OpsErrorKind::Deadline`]), polled state by state: a
    /// caller's time budget.
    pub fn deadline(mut self, deadline: Option<Instant>) -> OpenFstExport {
        self.deadline = deadline;
        self
    }

    fn clock(&self) -> Clock {
        Clock {
            name: "OpenFst export",
            deadline: self.deadline,
        }
    }

    /// An error when `states` and `arcs` pass the arc or the memory limit; `what` names
    /// the machine and what its arcs are.
    fn check_size(&self, what: (&str, &str), states: usize, arcs: usize) -> Result<(), OpsError> {
        let (what, arcs_are) = what;
        if arcs > self.arc_limit {
            let limit = self.arc_limit;
            return Err(OpsError::new(
                "OpenFst export",
                OpsErrorKind::TooManyStates { limit },
                format!("{what} needs more than {limit} arcs ({arcs_are}; the arc limit)"),
            ));
        }
        let held = states as u64 * BYTES_PER_EXPORTED_STATE + arcs as u64 * BYTES_PER_EXPORTED_ARC;
        if held > self.memory_limit as u64 {
            let what = format!("{what} and its file");
            return Err(past_memory(
                "OpenFst export",
                &what,
                held,
                self.memory_limit,
            ));
        }
        Ok(())
    }

    /// `a` as an OpenFst acceptor over token labels: `a`'s states and start, final states
    /// where `a` accepts, one arc per token (class edges expanded, terminal edges resolved
    /// as a walker resolves them), sorted by label.
    pub fn acceptor<W: AsRef<[u32]>>(
        &self,
        a: &TokenAutomaton<W>,
    ) -> Result<VectorFst<TropicalWeight>, OpsError> {
        let what = ("the OpenFst acceptor", "one per token edge");
        let n = a.num_states();
        self.check_size(what, n as usize, 0)?;
        let clock = self.clock();
        let mut fst = VectorFst::new();
        fst.add_states(n as usize);
        let mut arcs = 0usize;
        for s in 0..n {
            clock.check()?;
            let list = token_arcs(a, s);
            arcs += list.len();
            self.check_size(what, n as usize, arcs)?;
            for (token, target) in list {
                let l = token_label(token);
                fst.add_tr(s, Tr::new(l, l, TropicalWeight::one(), target))
                    .expect("the state exists");
            }
            if a.is_accepting(s) {
                fst.set_final(s, TropicalWeight::one())
                    .expect("the state exists");
            }
        }
        if n > 0 {
            fst.set_start(a.start()).expect("the start state exists");
        }
        Ok(fst)
    }

    /// The detokenizing transducer T_V of `vocab`
    /// ([`crate::reference::detokenizing_fst`]). It is built first (its size is linear in
    /// the vocabulary's bytes, which are held already), then held to the limits.
    pub fn detokenizer<V: TokenVocabulary + ?Sized>(
        &self,
        vocab: &V,
    ) -> Result<VectorFst<TropicalWeight>, OpsError> {
        let clock = self.clock();
        clock.check()?;
        let fst = crate::reference::detokenizing_fst(vocab);
        let (states, arcs) = size(&fst);
        self.check_size(
            ("the transducer T_V", "one per token and trie edge"),
            states,
            arcs,
        )?;
        clock.check()?;
        Ok(fst)
    }

    /// `fst` as an OpenFst binary file, or as AT&T text when `att`, within the deadline
    /// (checked when written).
    pub fn write(&self, fst: &VectorFst<TropicalWeight>, att: bool) -> Result<Vec<u8>, OpsError> {
        let bytes = if att {
            to_text(fst)?.into_bytes()
        } else {
            to_binary(fst)?
        };
        self.clock().check()?;
        Ok(bytes)
    }
}

/// The token arcs of state `s` of `a`, sorted: its token edges and the tokens of its
/// terminal edges that no token edge overrides, resolved as a walker resolves them.
fn token_arcs<W: AsRef<[u32]>>(a: &TokenAutomaton<W>, s: u32) -> Vec<(u32, u32)> {
    let mut list = a.token_edges(s);
    let terminal_tokens = a
        .terminal_edges(s)
        .flat_map(|(k, _)| super::atoms::mask_tokens(a.terminal_mask(k).unwrap_or_default()));
    let mut extra: Vec<(u32, u32)> = terminal_tokens
        .filter(|&t| !a.has_token_edge(s, t))
        .filter_map(|t| Some((t, a.next_state(s, t)?)))
        .collect();
    extra.sort_unstable();
    extra.dedup();
    list.extend(extra);
    list.sort_unstable();
    list
}

/// `a` as an OpenFst acceptor ([`OpenFstExport::acceptor`]) within `arc_limit` arcs.
pub fn to_openfst<W: AsRef<[u32]>>(
    a: &TokenAutomaton<W>,
    arc_limit: usize,
) -> Result<VectorFst<TropicalWeight>, OpsError> {
    OpenFstExport::new().arc_limit(arc_limit).acceptor(a)
}

/// An acceptor as read: states `0..finals.len()`, arcs `(from, to, label)`, label 0 epsilon.
struct Acceptor {
    start: Option<u32>,
    finals: Vec<bool>,
    arcs: Vec<(u32, u32, u32)>,
}

/// The minimal byte DFA of an acceptor in an OpenFst binary file (a `vector` FST with
/// `standard` arcs, what `fstcompile` and Pynini write) or in AT&T text (told apart by
/// OpenFst's magic number), its labels read as `labels` says, within `state_limit` DFA
/// states. Errors name the state, arc or line at fault.
pub fn byte_dfa_from_openfst(
    data: &[u8],
    labels: Labels,
    state_limit: usize,
) -> Result<ByteDfa, OpsError> {
    byte_dfa_from_openfst_before(data, labels, state_limit, None)
}

/// [`byte_dfa_from_openfst`] giving up past `deadline` (a compile's time budget) with
/// [`OpsErrorKind::Deadline`].
pub fn byte_dfa_from_openfst_before(
    data: &[u8],
    labels: Labels,
    state_limit: usize,
    deadline: Option<Instant>,
) -> Result<ByteDfa, OpsError> {
    let acceptor = if data.starts_with(&FST_MAGIC) {
        read_binary(data)?
    } else {
        let text = std::str::from_utf8(data).map_err(|e| {
            import_error(format!(
                "the file is neither an OpenFst binary file (no magic number) nor AT&T text \
                 (not UTF-8 at byte {})",
                e.valid_up_to()
            ))
        })?;
        parse_text(text)?
    };
    let nfa = byte_nfa(&acceptor, labels)?;
    let budget = state_limit.saturating_mul(SET_ENTRIES_PER_STATE);
    let limits = Limits::new(state_limit, budget).until(deadline);
    let raw = determinize_within(&nfa, limits).map_err(|e| byte_dfa_error("OpenFst import", e))?;
    Ok(ByteDfa::minimal(raw, &[]))
}

fn import_error(message: String) -> OpsError {
    OpsError::new("OpenFst import", OpsErrorKind::OpenFst, message)
}

/// A string of an OpenFst header at `at`: a little-endian i32 length, then the bytes.
fn header_string(data: &[u8], at: usize) -> Option<(String, usize)> {
    let len = i32::from_le_bytes(data.get(at..at + 4)?.try_into().ok()?);
    let len = usize::try_from(len).ok().filter(|&l| l <= 256)?;
    let bytes = data.get(at + 4..at + 4 + len)?;
    Some((String::from_utf8_lossy(bytes).into_owned(), at + 4 + len))
}

/// Reads a binary `vector` FST with `standard` arcs through rustfst and checks it.
fn read_binary(data: &[u8]) -> Result<Acceptor, OpsError> {
    let (fst_type, at) = header_string(data, 4)
        .ok_or_else(|| import_error("the OpenFst header is truncated (FST type)".into()))?;
    let (arc_type, _) = header_string(data, at)
        .ok_or_else(|| import_error("the OpenFst header is truncated (arc type)".into()))?;
    if fst_type != "vector" || arc_type != "standard" {
        return Err(import_error(format!(
            "the file holds a `{fst_type}` FST with `{arc_type}` arcs; fstc reads `vector` \
             FSTs with `standard` arcs (convert with `fstconvert --fst_type=vector`)"
        )));
    }
    let fst = VectorFst::<TropicalWeight>::load(data)
        .map_err(|e| import_error(format!("the OpenFst binary file does not load: {e}")))?;
    let n = fst.num_states();
    let mut acceptor = Acceptor {
        start: fst.start(),
        finals: Vec::with_capacity(n),
        arcs: Vec::new(),
    };
    for s in 0..n as u32 {
        let final_weight = fst.final_weight(s).ok().flatten();
        acceptor
            .finals
            .push(final_weight.is_some_and(|w| !w.is_zero()));
        let trs = fst
            .get_trs(s)
            .map_err(|e| import_error(format!("state {s}: {e}")))?;
        for (i, tr) in rustfst::Trs::trs(&trs).iter().enumerate() {
            if tr.ilabel != tr.olabel {
                return Err(import_error(format!(
                    "arc {i} of state {s} has input label {} and output label {}: not an \
                     acceptor (project it first: `fstproject`)",
                    tr.ilabel, tr.olabel
                )));
            }
            if tr.nextstate as usize >= n {
                return Err(import_error(format!(
                    "arc {i} of state {s} leads to state {}, past the {n} states",
                    tr.nextstate
                )));
            }
            if !tr.weight.is_zero() {
                acceptor.arcs.push((s, tr.nextstate, tr.ilabel));
            }
        }
    }
    if acceptor.start.is_some_and(|s| s as usize >= n) {
        return Err(import_error("the start state is past the states".into()));
    }
    Ok(acceptor)
}

/// Parses AT&T text as `fstprint` writes it: `from to ilabel olabel [weight]` or, for an
/// acceptor, `from to label`; `state [weight]` for a final state; the first line's source
/// is the start. Labels are numbers (no symbol tables); states are any numbers.
fn parse_text(text: &str) -> Result<Acceptor, OpsError> {
    let mut ids: FastMap<u64, u32> = FastMap::default();
    let mut acceptor = Acceptor {
        start: None,
        finals: Vec::new(),
        arcs: Vec::new(),
    };
    let mut state = |acceptor: &mut Acceptor, field: &str, line: usize| -> Result<u32, OpsError> {
        let id: u64 = field
            .parse()
            .map_err(|_| import_error(format!("line {line}: `{field}` is not a state number")))?;
        let next = ids.len() as u32;
        let s = *ids.entry(id).or_insert(next);
        if s == next {
            acceptor.finals.push(false);
        }
        Ok(s)
    };
    for (i, line) in text.lines().enumerate() {
        let line_no = i + 1;
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.is_empty() {
            continue;
        }
        let weight_zero = |field: Option<&&str>| -> Result<bool, OpsError> {
            match field {
                None => Ok(false),
                Some(w) => match w.parse::<f32>() {
                    Ok(x) => Ok(x == f32::INFINITY),
                    Err(_) => Err(import_error(format!(
                        "line {line_no}: `{w}` is not a weight"
                    ))),
                },
            }
        };
        match fields.len() {
            1 | 2 => {
                let s = state(&mut acceptor, fields[0], line_no)?;
                acceptor.start.get_or_insert(s);
                acceptor.finals[s as usize] = !weight_zero(fields.get(1))?;
            }
            3..=5 => {
                let from = state(&mut acceptor, fields[0], line_no)?;
                acceptor.start.get_or_insert(from);
                let to = state(&mut acceptor, fields[1], line_no)?;
                let label = |f: &str| -> Result<u32, OpsError> {
                    f.parse().map_err(|_| {
                        import_error(format!(
                            "line {line_no}: `{f}` is not a numeric label (symbol tables are \
                             not read; print with `fstprint` without --isymbols)"
                        ))
                    })
                };
                let il = label(fields[2])?;
                let ol = match fields.get(3) {
                    Some(f) => label(f)?,
                    None => il,
                };
                if il != ol {
                    return Err(import_error(format!(
                        "line {line_no}: input label {il} and output label {ol} differ: not \
                         an acceptor"
                    )));
                }
                if !weight_zero(fields.get(4))? {
                    acceptor.arcs.push((from, to, il));
                }
            }
            n => {
                return Err(import_error(format!(
                    "line {line_no}: {n} fields; an arc has 3 to 5, a final state 1 or 2"
                )))
            }
        }
    }
    Ok(acceptor)
}

/// The UTF-8 bytes (or the byte) a label stands for, `None` for epsilon.
fn label_bytes(label: u32, labels: Labels) -> Result<Option<Vec<u8>>, String> {
    if label == 0 {
        return Ok(None);
    }
    match labels {
        Labels::Fstc => label_byte(label)
            .map(|b| Some(vec![b]))
            .ok_or_else(|| format!("label {label} is not a byte label (1-256: byte + 1)")),
        Labels::Bytes => u8::try_from(label)
            .map(|b| Some(vec![b]))
            .map_err(|_| format!("label {label} is not a byte (1-255)")),
        Labels::CodePoints => char::from_u32(label)
            .map(|c| Some(c.to_string().into_bytes()))
            .ok_or_else(|| format!("label {label} is not a Unicode scalar value")),
    }
}

/// The byte NFA of an acceptor: per FST state a split (its epsilon arcs, its byte state,
/// the match state when final), byte arcs through chains of the label's bytes.
fn byte_nfa(acceptor: &Acceptor, labels: Labels) -> Result<Nfa<(), TerminalKind>, OpsError> {
    let n = acceptor.finals.len() as u32;
    let matched = 2 * n;
    let mut nfa = Nfa {
        states: vec![State::Split { off: 0, len: 0 }; 2 * n as usize + 1],
        ranges: Vec::new(),
        targets: Vec::new(),
        // No start state: an empty acceptor, the empty language (state `matched` is
        // replaced by a failing split below).
        start: acceptor.start.unwrap_or(matched),
        terminals: Vec::new(),
        looks: Vec::new(),
    };
    nfa.states[matched as usize] = if acceptor.start.is_some() {
        State::Match
    } else {
        State::Split { off: 0, len: 0 }
    };
    let mut epsilons: Vec<Vec<u32>> = vec![Vec::new(); n as usize];
    let mut reads: BTreeMap<u32, Vec<(u8, u32)>> = BTreeMap::new();
    for &(from, to, label) in &acceptor.arcs {
        let bytes = label_bytes(label, labels)
            .map_err(|e| import_error(format!("an arc of state {from}: {e}")))?;
        let Some(bytes) = bytes else {
            epsilons[from as usize].push(to);
            continue;
        };
        // A chain of fresh byte states for every byte but the first.
        let mut next = to;
        for &b in bytes[1..].iter().rev() {
            let off = nfa.ranges.len() as u32;
            nfa.ranges.push((b, b, next));
            next = nfa.states.len() as u32;
            nfa.states.push(State::Bytes { off, len: 1 });
        }
        reads.entry(from).or_default().push((bytes[0], next));
    }
    for s in 0..n {
        let off = nfa.ranges.len() as u32;
        for &(b, to) in reads.get(&s).map(Vec::as_slice).unwrap_or_default() {
            nfa.ranges.push((b, b, to));
        }
        let len = nfa.ranges.len() as u32 - off;
        nfa.states[(n + s) as usize] = State::Bytes { off, len };
        let mut split = epsilons[s as usize].clone();
        split.push(n + s);
        if acceptor.finals[s as usize] {
            split.push(matched);
        }
        let off = nfa.targets.len() as u32;
        nfa.targets.extend_from_slice(&split);
        nfa.states[s as usize] = State::Split {
            off,
            len: split.len() as u32,
        };
    }
    Ok(nfa)
}

/// The states and arcs of an OpenFst machine (for `--stats`).
pub fn size(fst: &VectorFst<TropicalWeight>) -> (usize, usize) {
    let states = fst.num_states();
    let arcs = (0..states as u32)
        .map(|s| fst.num_trs(s).unwrap_or(0))
        .sum();
    (states, arcs)
}

/// `fst` as AT&T text, `fstprint`'s format (tab-separated, numeric labels).
pub fn to_text(fst: &VectorFst<TropicalWeight>) -> Result<String, OpsError> {
    fst.text().map_err(|e| {
        OpsError::new(
            "OpenFst export",
            OpsErrorKind::OpenFst,
            format!("cannot write AT&T text: {e}"),
        )
    })
}

/// `fst` written as an OpenFst binary file (what `fstinfo` reads).
pub fn to_binary(fst: &VectorFst<TropicalWeight>) -> Result<Vec<u8>, OpsError> {
    let mut out = Vec::new();
    fst.store(&mut out).map_err(|e| {
        OpsError::new(
            "OpenFst export",
            OpsErrorKind::OpenFst,
            format!("cannot write the OpenFst file: {e}"),
        )
    })?;
    Ok(out)
}
