//! The eager compile of a structure with tag lists (`triggered_tags`, `tags_with_separator`,
//! at the root or nested) in pieces, so that its cost is the sum of its tools' instead of
//! that of one DFA of everything.
//!
//! The byte language is cut into a *dispatch* (the tree with each list's tags cut after
//! their `begin` strings) and one *body* per distinct tool body (content and end strings;
//! tools whose bodies are equal share one, once per dispatch state they return to). Each piece's byte DFA is composed with the
//! vocabulary on its own, every state of it (`every_state_edges_with_trie`), so that
//! grouping tokens and walking the vocabulary cost what the piece costs. The pieces are
//! joined at token level, exactly: the dispatch's state after a `begin` (an *exit*, found
//! by the marker the lowering puts there) *is* its body's start, and a body's state after
//! an end string is the dispatch's state after its hole. A token that ends at an exit goes to
//! the state it stands for; a token that crosses one (text into a tag, a tag into the
//! text, even through a whole tag) is read byte by byte across the pieces, so it goes
//! exactly where the one DFA would send it. The joined automaton, over the common
//! refinement of the pieces' token groups, is minimized and laid out like any other:
//! equal languages give identical files, so it is the same automaton as the one DFA's.
//!
//! The cut needs each exit to be certain where it stands: a `begin` that is a prefix of
//! another, an end string a text of the body may go on after, or free text that may hold
//! a later list's `begin` leaves a state that is both an exit and not, and a hole read at
//! two places returns to two states; such structures (and those without a list) are
//! compiled as one DFA.

use fstc_core::bytes::{Algebra, ByteAutomaton, ByteDfa};
use fstc_core::compiled::CompileStats;
use fstc_core::compose::{every_state_edges_with_trie, ComposeLimits, StateGroupEdges};
use fstc_core::fast_hash::FastMap;
use fstc_core::minimize::minimal_dfa_before;
use fstc_core::parts::columns::Columns;
use fstc_core::parts::{ClassParts, NO_CLASS};
use fstc_core::vocab::VocabTrie;

use crate::budget::Budget;
use crate::error::TagsError;

/// Most distinct `begin` strings of a dispatch compiled in pieces (what the markers number).
pub(crate) const MAX_HOLES: usize = 1 << 12;

/// The first byte of every marker: never in UTF-8, so never in an admitted text.
const MARK: u8 = 0xF8;

/// A DFA reading exactly `bytes` (a marker, here and in `crate::special`).
pub(crate) fn marker(bytes: &[u8]) -> ByteDfa {
    let edges: Vec<(u32, u8, u8, u32)> = (bytes.iter().enumerate())
        .map(|(i, &b)| (i as u32, b, b, i as u32 + 1))
        .collect();
    let mut accepting = vec![false; bytes.len() + 1];
    accepting[bytes.len()] = true;
    Algebra::new()
        .from_edges(&edges, &accepting)
        .expect("a marker is a few states")
}

/// What follows a body: its exit.
pub(crate) fn exit_marker() -> ByteDfa {
    marker(&[MARK])
}

/// What follows the `begin` of hole `i` (below [`MAX_HOLES`]) in the dispatch.
pub(crate) fn hole_marker(i: usize) -> ByteDfa {
    marker(&[MARK, 0x80 | (i >> 6) as u8, 0x80 | (i & 63) as u8])
}

/// Where a piece's exit state leads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Exit {
    /// Not an exit.
    No,
    /// The dispatch after the `begin` of hole `i`: its body's start.
    Hole(usize),
    /// A body after an end string: the dispatch's state after its hole's marker.
    Done,
    /// Inside a marker: never reached by text.
    Marker,
}

/// A piece: its DFA and which states are exits.
struct Piece {
    dfa: ByteDfa,
    exit: Vec<Exit>,
    /// Global id of its state 0.
    base: u32,
    /// For a body, the dispatch's state its exit leads to (the state after its hole).
    after: u32,
}

impl Piece {
    /// The byte-DFA states of `dfa` that read a marker and, for the dispatch
    /// (`hole_markers`), the state after each hole's marker; `None` when an exit is not
    /// certain (it reads text too), text reads a byte of a marker or a hole's marker
    /// leads to two states (its body could not return to one).
    fn exits(dfa: &ByteDfa, hole_markers: bool) -> Option<(Vec<Exit>, Vec<Option<u32>>)> {
        let n = dfa.num_states();
        let mut exit = vec![Exit::No; n];
        let mut after: Vec<Option<u32>> = Vec::new();
        for s in 0..n as u32 {
            let Some(m) = dfa.next(s, MARK) else {
                continue;
            };
            if (0..=255u8).any(|b| b != MARK && dfa.next(s, b).is_some()) {
                return None;
            }
            if !hole_markers {
                exit[s as usize] = Exit::Done;
                exit[m as usize] = Exit::Marker;
                continue;
            }
            let (b1, m1) = only_edge(dfa, m)?;
            let (b2, r) = only_edge(dfa, m1)?;
            let i = usize::from(b1 & 63) << 6 | usize::from(b2 & 63);
            if after.len() <= i {
                after.resize(i + 1, None);
            }
            if after[i].is_some_and(|a| a != r) {
                return None;
            }
            after[i] = Some(r);
            exit[s as usize] = Exit::Hole(i);
            exit[m as usize] = Exit::Marker;
            exit[m1 as usize] = Exit::Marker;
        }
        // Text never reads a marker's first byte (nor any byte past it) elsewhere.
        let stray = (0..n as u32)
            .filter(|&s| exit[s as usize] == Exit::No)
            .any(|s| (MARK..=255).any(|b| dfa.next(s, b).is_some()));
        (!stray).then_some((exit, after))
    }
}

/// The one edge of marker state `s`, as (byte, target).
fn only_edge(dfa: &ByteDfa, s: u32) -> Option<(u8, u32)> {
    let mut edges = (0..=255u8).filter_map(|b| dfa.next(s, b).map(|t| (b, t)));
    let first = edges.next()?;
    edges.next().is_none().then_some(first)
}

/// Most `(state, byte class)` entries of one batch's transition table by default: half of
/// what the composition keeps dense, so that a batch is always walked over a table.
pub(crate) const BATCH_ENTRIES: usize = 1 << 21;

/// Pieces composed together as one automaton of their disjoint states, each exit reading
/// any byte into one extra state (the *sink*, reading any byte too), so that a token
/// that crosses an exit is found with its group, to be read again across the pieces.
/// Small pieces share one pass over the vocabulary; a batch stays within
/// [`BATCH_ENTRIES`] (or the compiler's own bound), so the cost grows with the states and
/// never faster.
struct Batch<'a> {
    joined: &'a Joined,
    /// The pieces, and the batch state of each one's state 0.
    members: Vec<(usize, u32)>,
    /// The member of each batch state.
    member_of: Vec<u32>,
    /// The common refinement of the members' byte classes.
    classes: [u8; 256],
}

impl<'a> Batch<'a> {
    /// The pieces of `joined` in batches of at most `entries` table entries (or one piece),
    /// in order.
    fn all(joined: &'a Joined, entries: usize) -> Vec<Batch<'a>> {
        let mut out: Vec<Batch<'a>> = Vec::new();
        for (p, piece) in joined.pieces.iter().enumerate() {
            let fits = out.last().and_then(|b| {
                let (classes, count) = refine(&b.classes, piece.dfa.byte_classes());
                let states = b.member_of.len() + piece.dfa.num_states() + 1;
                (states * count <= entries).then_some(classes)
            });
            let batch = match (fits, out.last_mut()) {
                (Some(classes), Some(b)) => {
                    b.classes = classes;
                    b
                }
                _ => {
                    out.push(Batch {
                        joined,
                        members: Vec::new(),
                        member_of: Vec::new(),
                        classes: [0; 256],
                    });
                    let b = out.last_mut().expect("just pushed");
                    b.classes = refine(&b.classes, piece.dfa.byte_classes()).0;
                    b
                }
            };
            let m = batch.members.len() as u32;
            batch.members.push((p, batch.member_of.len() as u32));
            batch
                .member_of
                .extend((0..piece.dfa.num_states()).map(|_| m));
        }
        out
    }

    fn sink(&self) -> u32 {
        self.member_of.len() as u32
    }

    /// The piece and its state at batch state `s` (`None`: the sink).
    fn at(&self, s: u32) -> Option<(usize, u32)> {
        let &m = self.member_of.get(s as usize)?;
        let (p, offset) = self.members[m as usize];
        Some((p, s - offset))
    }
}

/// The common refinement of two byte partitions, numbered by first byte, and its size.
fn refine(a: &[u8; 256], b: &[u8; 256]) -> ([u8; 256], usize) {
    let mut ids: FastMap<(u8, u8), u8> = FastMap::default();
    let mut out = [0u8; 256];
    for byte in 0..256 {
        let next = ids.len() as u8;
        out[byte] = *ids.entry((a[byte], b[byte])).or_insert(next);
    }
    (out, ids.len())
}

impl ByteAutomaton for Batch<'_> {
    fn num_states(&self) -> usize {
        self.member_of.len() + 1
    }
    fn start(&self) -> u32 {
        0
    }
    fn is_accepting(&self, state: u32) -> bool {
        state == self.sink()
    }
    fn next(&self, state: u32, byte: u8) -> Option<u32> {
        let Some((p, s)) = self.at(state) else {
            return Some(self.sink());
        };
        let piece = &self.joined.pieces[p];
        match piece.exit[s as usize] {
            Exit::Hole(_) | Exit::Done => Some(self.sink()),
            Exit::No | Exit::Marker => {
                let offset = state - s;
                piece.dfa.next(s, byte).map(|t| t + offset)
            }
        }
    }
    fn byte_classes(&self) -> Option<&[u8; 256]> {
        // Exits and the sink read every byte alike: the members' classes still hold.
        Some(&self.classes)
    }
}

/// The pieces joined: piece 0 is the dispatch, then one piece per body and the
/// dispatch state it returns to.
struct Joined {
    pieces: Vec<Piece>,
    /// The piece of each hole (`usize::MAX`: the dispatch never reads its marker).
    piece_of_hole: Vec<usize>,
}

impl Joined {
    /// `(piece, state)` past any exits: where a text standing there really is.
    fn resolve(&self, (mut p, mut s): (usize, u32)) -> Option<(usize, u32)> {
        // An exit leads into another piece's non-exit state within two steps (a body
        // whose start is its exit returns at once); more would be a cycle.
        for _ in 0..4 {
            match self.pieces[p].exit[s as usize] {
                Exit::No => return Some((p, s)),
                Exit::Marker => return None,
                Exit::Hole(i) => {
                    p = *self.piece_of_hole.get(i)?;
                    s = self.pieces.get(p)?.dfa.start();
                }
                Exit::Done => (p, s) = (0, self.pieces[p].after),
            }
        }
        None
    }

    fn global(&self, at: (usize, u32)) -> Option<u32> {
        let (p, s) = self.resolve(at)?;
        Some(self.pieces[p].base + s)
    }

    /// Where `bytes` lead from `at`, across pieces (`None`: nowhere).
    fn run(&self, at: (usize, u32), bytes: &[u8]) -> Option<u32> {
        let (mut p, mut s) = at;
        for &b in bytes {
            (p, s) = self.resolve((p, s))?;
            if b >= MARK {
                return None;
            }
            s = self.pieces[p].dfa.next(s, b)?;
        }
        self.global((p, s))
    }
}

/// The byte DFAs of the pieces and where their exits lead, as built by the lowering
/// (`crate::lower::PieceLanguages`): the dispatch, then the bodies.
pub(crate) struct PieceDfas {
    pub dispatch: ByteDfa,
    pub bodies: Vec<ByteDfa>,
    pub body_of_hole: Vec<usize>,
}

/// The composition's limits, and the most table entries of a batch.
pub(crate) struct Limits {
    pub compose: ComposeLimits,
    pub batch_entries: usize,
}

/// Sizes worth reporting.
pub(crate) struct Sizes {
    pub pieces: usize,
    pub batches: usize,
    pub byte_states: usize,
}

/// The token automaton of the pieces over the vocabulary of `trie` as class parts, or
/// `None` when an exit is not certain (the caller composes one DFA instead).
pub(crate) fn compose(
    dfas: PieceDfas,
    trie: &VocabTrie,
    limits: &Limits,
    budget: &Budget,
    stats: &mut CompileStats,
) -> Result<Option<(ClassParts, Sizes)>, TagsError> {
    let Some(joined) = join(dfas) else {
        return Ok(None);
    };
    let fail = |e: &dyn std::fmt::Display| {
        TagsError::at("", format!("the automaton could not be built: {e}"))
    };
    let batches = Batch::all(&joined, limits.batch_entries);
    let composed: Vec<StateGroupEdges> = stats.time("composition of the pieces", || {
        (batches.iter())
            .map(|batch| every_state_edges_with_trie(batch, trie, &limits.compose))
            .collect::<Result<_, _>>()
            .map_err(|e| budget.composition_failed(&e))
    })?;
    let joining = "joining the pieces of the structural tag";
    budget.check_time("", joining)?;
    let crossing = stats.time("crossing tokens", || crossing(&batches, &composed, trie));
    budget.check_time("", joining)?;
    let (classes, num_classes) = stats.time("joint classes", || {
        joint_classes(&composed, &crossing, trie)
    });
    let (edges, token_edges) = stats.time("join", || {
        edges(
            &batches,
            &composed,
            &crossing,
            (&classes, num_classes),
            (budget, limits.compose.token_edge_limit),
        )
    })?;
    stats.set_count("joined token edges", token_edges);
    budget.check_time("", joining)?;
    let dispatch = &joined.pieces[0];
    let accepting: Vec<bool> = (joined.pieces.iter())
        .flat_map(|p| (0..p.dfa.num_states() as u32).map(move |s| (p, s)))
        .map(|(p, s)| p.base == 0 && p.exit[s as usize] == Exit::No && p.dfa.is_accepting(s))
        .collect();
    let start = joined
        .global((0, dispatch.dfa.start()))
        .ok_or_else(|| fail(&"the structural tag's start is a marker"))?;
    // Classes with equal columns are one letter to the minimizer (as the composition's
    // groups are); the layout numbers the classes canonically.
    let (edges, classes, num_classes) = stats.time("merged classes", || {
        let columns = Columns::group_before(num_classes as usize, &edges, budget.deadline())
            .ok_or_else(|| budget.out_of_time("", "merging the joined pieces' classes"))?;
        let edges: Vec<Vec<(u32, u32)>> = edges.iter().map(|l| columns.relabel(l)).collect();
        let classes: Vec<u32> = (classes.iter())
            .map(|&c| {
                columns
                    .class_of
                    .get(c as usize)
                    .copied()
                    .unwrap_or(NO_CLASS)
            })
            .collect();
        Ok::<_, TagsError>((edges, classes, columns.num_classes() as u32))
    })?;
    budget.check_time("", joining)?;
    let minimal = stats.time("minimization", || {
        minimal_dfa_before(start, accepting, edges, budget.deadline())
    });
    let (accepting, edges) =
        minimal.ok_or_else(|| budget.out_of_time("", "minimizing the joined pieces"))?;
    if !accepting.iter().any(|&a| a) {
        return Err(TagsError::at("", "the structural tag admits no text"));
    }
    let sizes = Sizes {
        pieces: joined.pieces.len(),
        batches: batches.len(),
        byte_states: joined.pieces.iter().map(|p| p.dfa.num_states()).sum(),
    };
    let mut class_of_token = classes;
    for &eos in trie.eos_ids() {
        class_of_token[eos as usize] = NO_CLASS;
    }
    let parts = ClassParts {
        vocab_size: trie.vocab_size() as u32,
        vocab_fingerprint: trie.fingerprint(),
        eos_ids: trie.eos_ids().to_vec(),
        start: 0,
        accepting,
        num_classes,
        class_of_token,
        edges,
        terminals: Vec::new(),
    };
    Ok(Some((parts, sizes)))
}

/// The pieces with their exits, or `None` when one is not certain. A body whose holes
/// return to different dispatch states is a piece once per state.
fn join(dfas: PieceDfas) -> Option<Joined> {
    // Terminal labels (wildcards read a whole token) are for the one DFA's composition.
    if std::iter::once(&dfas.dispatch)
        .chain(&dfas.bodies)
        .any(|d| !d.terminals().is_empty())
    {
        return None;
    }
    let (exit, after) = Piece::exits(&dfas.dispatch, true)?;
    if after.len() > dfas.body_of_hole.len() {
        return None;
    }
    let mut base = dfas.dispatch.num_states() as u32;
    let mut pieces = vec![Piece {
        base: 0,
        exit,
        dfa: dfas.dispatch,
        after: 0,
    }];
    let mut piece_of_hole = vec![usize::MAX; dfas.body_of_hole.len()];
    let mut piece_of: FastMap<(usize, u32), usize> = FastMap::default();
    for (i, &k) in dfas.body_of_hole.iter().enumerate() {
        let Some(&Some(r)) = after.get(i) else {
            continue;
        };
        if let Some(&p) = piece_of.get(&(k, r)) {
            piece_of_hole[i] = p;
            continue;
        }
        let dfa = dfas.bodies[k].clone();
        let (exit, _) = Piece::exits(&dfa, false)?;
        let n = dfa.num_states() as u32;
        pieces.push(Piece {
            dfa,
            exit,
            base,
            after: r,
        });
        base = base.checked_add(n)?;
        piece_of.insert((k, r), pieces.len() - 1);
        piece_of_hole[i] = pieces.len() - 1;
    }
    Some(Joined {
        pieces,
        piece_of_hole,
    })
}

/// Past this many tokens to read again from one state, the vocabulary trie is walked from
/// it instead (pruned where the text dies), which reads each shared prefix once.
const RUN_TOKENS: usize = 4096;

/// The tokens that cross an exit, as `(global source, token, global target)`: the tokens
/// of the groups that reach the sink, read again across the pieces.
fn crossing(
    batches: &[Batch],
    composed: &[StateGroupEdges],
    trie: &VocabTrie,
) -> Vec<(u32, u32, u32)> {
    let mut out = Vec::new();
    let mut bytes = Vec::new();
    for (batch, edges) in batches.iter().zip(composed) {
        let (joined, sink) = (batch.joined, batch.sink());
        let mut wanted = vec![false; edges.num_groups as usize];
        for (g, _) in (edges.edges.iter().take(sink as usize).flatten()).filter(|e| e.1 == sink) {
            wanted[*g as usize] = true;
        }
        let mut tokens: Vec<Vec<u32>> = vec![Vec::new(); wanted.len()];
        for (t, &g) in edges.group_of_token.iter().enumerate() {
            if g != NO_CLASS && wanted[g as usize] {
                tokens[g as usize].push(t as u32);
            }
        }
        for state in 0..sink {
            let Some((p, s)) = batch.at(state) else {
                continue;
            };
            let piece = &joined.pieces[p];
            let groups = edges.edges[state as usize].iter().filter(|e| e.1 == sink);
            let count: usize = groups.clone().map(|&(g, _)| tokens[g as usize].len()).sum();
            if piece.exit[s as usize] != Exit::No || count == 0 {
                continue;
            }
            let from = piece.base + s;
            if count > RUN_TOKENS {
                walk_crossing(joined, (p, s), trie, &mut |t, to| out.push((from, t, to)));
                continue;
            }
            for &(g, _) in groups {
                for &t in &tokens[g as usize] {
                    trie.spell_token(t, &mut bytes);
                    if let Some(to) = joined.run((p, s), &bytes) {
                        out.push((from, t, to));
                    }
                }
            }
        }
    }
    out
}

/// The tokens that cross an exit from `at`, found by one walk of the vocabulary trie
/// across the pieces, pruned where the text dies: `found(token, global target)`.
fn walk_crossing(
    joined: &Joined,
    at: (usize, u32),
    trie: &VocabTrie,
    found: &mut dyn FnMut(u32, u32),
) {
    // Per depth, the (piece, state) after the node's bytes and whether an exit was passed.
    let mut path: Vec<(usize, u32, bool)> = vec![(at.0, at.1, false)];
    let mut node = 1;
    while node < trie.num_nodes() {
        let depth = trie.node_depth(node);
        path.truncate(depth);
        let (p, s, crossed) = path[depth - 1];
        let byte = trie.node_byte(node);
        let stepped = joined.resolve((p, s)).and_then(|(q, r)| {
            let next = (byte < MARK).then(|| joined.pieces[q].dfa.next(r, byte))??;
            Some((q, next, crossed || q != p))
        });
        let Some(here) = stepped else {
            node = trie.subtree_end(node);
            continue;
        };
        if here.2 {
            if let Some(to) = joined.global((here.0, here.1)) {
                for &t in trie.node_tokens(node) {
                    found(t, to);
                }
            }
        }
        path.push(here);
        node += 1;
    }
}

/// The common refinement of the pieces' token groups, with each crossing token a class
/// of its own: `(class of each token, number of classes)`.
fn joint_classes(
    composed: &[StateGroupEdges],
    crossing: &[(u32, u32, u32)],
    trie: &VocabTrie,
) -> (Vec<u32>, u32) {
    let mut joint = vec![0u32; trie.vocab_size()];
    let mut count = 1u32;
    for piece in composed {
        // Per class, the first group met and its new class; the rest by map.
        let mut first: Vec<Option<(u32, u32)>> = vec![None; count as usize];
        let mut more: FastMap<(u32, u32), u32> = FastMap::default();
        let mut next = 0u32;
        for (j, &g) in joint.iter_mut().zip(&piece.group_of_token) {
            let id = match first[*j as usize] {
                Some((seen, id)) if seen == g => id,
                Some(_) => *more.entry((*j, g)).or_insert_with(|| {
                    next += 1;
                    next - 1
                }),
                None => {
                    first[*j as usize] = Some((g, next));
                    next += 1;
                    next - 1
                }
            };
            *j = id;
        }
        count = next;
    }
    let mut own = vec![false; joint.len()];
    for &(_, t, _) in crossing {
        if !own[t as usize] {
            own[t as usize] = true;
            joint[t as usize] = count;
            count += 1;
        }
    }
    // Numbered by first token, as the composition numbers its groups: the minimizer's
    // breadth-first numbering then follows token order, as the one DFA's does.
    let mut renumbered = vec![u32::MAX; count as usize];
    let mut next = 0;
    for j in &mut joint {
        if renumbered[*j as usize] == u32::MAX {
            renumbered[*j as usize] = next;
            next += 1;
        }
        *j = renumbered[*j as usize];
    }
    (joint, next)
}

/// Per-state edge lists `(class, target)`.
type EdgeLists = Vec<Vec<(u32, u32)>>;

/// Every global state's edges over the joint classes: each batch's group edges spread
/// over the classes of the group, targets resolved past exits, and the crossing tokens.
/// With the number of token edges they stand for: at most `edge_limit` (the token edge
/// limit, as one composition's), within the budget's memory and deadline (polled every
/// 4,096 states).
fn edges(
    batches: &[Batch],
    composed: &[StateGroupEdges],
    crossing: &[(u32, u32, u32)],
    (classes, num_classes): (&[u32], u32),
    (budget, edge_limit): (&Budget, usize),
) -> Result<(EdgeLists, usize), TagsError> {
    // The first token of each class, by which a class's group in a batch is known.
    let mut first = vec![u32::MAX; num_classes as usize];
    for (t, &c) in classes.iter().enumerate().rev() {
        first[c as usize] = t as u32;
    }
    let mut size = vec![0usize; num_classes as usize];
    for &c in classes.iter().filter(|&&c| c != NO_CLASS) {
        size[c as usize] += 1;
    }
    let total: usize = batches.iter().map(|b| b.sink() as usize).sum();
    let mut out: Vec<Vec<(u32, u32)>> = vec![Vec::new(); total];
    // Class edges made (their memory) and the token edges they stand for (the limit's).
    let (mut made, mut tokens) = (0usize, 0usize);
    for (batch, edges) in batches.iter().zip(composed) {
        let (joined, sink) = (batch.joined, batch.sink());
        let mut members: Vec<Vec<u32>> = vec![Vec::new(); edges.num_groups as usize];
        // A class left empty by its crossing tokens taking classes of their own has none.
        for (c, &t) in first.iter().enumerate().filter(|(_, &t)| t != u32::MAX) {
            let g = edges.group_of_token[t as usize];
            if g != NO_CLASS {
                members[g as usize].push(c as u32);
            }
        }
        let group_tokens: Vec<usize> = (members.iter())
            .map(|m| m.iter().map(|&c| size[c as usize]).sum())
            .collect();
        for state in 0..sink {
            if state % 4096 == 4095 {
                check_join((made, tokens), edge_limit, budget)?;
            }
            let Some((p, s)) = batch.at(state) else {
                continue;
            };
            let piece = &joined.pieces[p];
            if piece.exit[s as usize] != Exit::No {
                continue;
            }
            let list = &mut out[(piece.base + s) as usize];
            for &(g, target) in edges.edges[state as usize].iter().filter(|e| e.1 != sink) {
                let Some(to) = batch.at(target).and_then(|at| joined.global(at)) else {
                    continue;
                };
                list.extend(members[g as usize].iter().map(|&c| (c, to)));
                tokens += group_tokens[g as usize];
            }
            made += list.len();
        }
        check_join((made, tokens), edge_limit, budget)?;
    }
    for &(from, t, to) in crossing {
        out[from as usize].push((classes[t as usize], to));
    }
    let crossed = crossing.len();
    check_join((made + crossed, tokens + crossed), edge_limit, budget)?;
    Ok((out, tokens + crossed))
}

/// The join so far (`made` class edges standing for `tokens` token edges) within the
/// token edge limit and the budgets.
fn check_join(
    (made, tokens): (usize, usize),
    edge_limit: usize,
    budget: &Budget,
) -> Result<(), TagsError> {
    let joining = "joining the pieces of the structural tag";
    if tokens > edge_limit {
        return Err(TagsError::at(
            "",
            format!(
                "joining the pieces of the structural tag needs more than {edge_limit} token \
                 edges (the token edge limit, `token_edge_limit`); raise it or simplify the \
                 structural tag"
            ),
        ));
    }
    if 8 * made > budget.memory() {
        return Err(budget.out_of_memory(joining));
    }
    budget.check_time("", joining)
}
