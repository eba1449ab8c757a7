//! Labels grouped by column: labels whose edges agree at every state (the same target —
//! or target and push — from the same states, no edge elsewhere) cannot tell states apart,
//! so one class stands for all of them. The one grouping routine: composition (token
//! groups), minimization (one label per column), the file layout (token classes) and the
//! grammar compiler (token classes of a PDA) all group through it.

use std::convert::Infallible;
use std::hash::Hash;
use std::time::Instant;

use crate::fast_hash::FastMap;

use super::NO_CLASS;

/// Classes of labels with identical columns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Columns {
    /// The class of each label, numbered by smallest label; [`NO_CLASS`] for a label
    /// without edges.
    pub class_of: Vec<u32>,
    /// The smallest label of each class.
    pub first: Vec<u32>,
}

impl Columns {
    /// Groups the labels `0..num_labels` of `edges` (one list of `(label, payload)` per
    /// state, at most one edge per label and state) by column. Labels from `num_labels` up
    /// are left out.
    ///
    /// By refinement, state by state: labels of one block that get the same payload in a
    /// state stay together, so a label costs one small-map lookup per edge and no column
    /// is laid out or hashed whole.
    pub fn group<T: Copy + Eq + Hash, L: AsRef<[(u32, T)]>>(
        num_labels: usize,
        edges: &[L],
    ) -> Columns {
        match Columns::group_polled(num_labels, edges, |_| Ok::<(), Infallible>(())) {
            Ok(columns) => columns,
            Err(never) => match never {},
        }
    }

    /// [`group`](Self::group) giving up (`None`) once `deadline` has passed, polled every
    /// 1,024 states: a compile's time budget over millions of edges.
    pub fn group_before<T: Copy + Eq + Hash, L: AsRef<[(u32, T)]>>(
        num_labels: usize,
        edges: &[L],
        deadline: Option<Instant>,
    ) -> Option<Columns> {
        let mut states = 0usize;
        let poll = |_| {
            states += 1;
            match states % 1024 == 0 && deadline.is_some_and(|d| Instant::now() >= d) {
                true => Err(()),
                false => Ok(()),
            }
        };
        Columns::group_polled(num_labels, edges, poll).ok()
    }

    /// [`Columns::group`], calling `poll` with the number of edges of each state before
    /// grouping them: the first error (a caller's time budget) stops the grouping.
    pub fn group_polled<T: Copy + Eq + Hash, L: AsRef<[(u32, T)]>, E>(
        num_labels: usize,
        edges: &[L],
        mut poll: impl FnMut(usize) -> Result<(), E>,
    ) -> Result<Columns, E> {
        // Block 0: labels without an edge so far; every split makes a fresh block.
        let mut block = vec![0u32; num_labels];
        let mut blocks = 1u32;
        let mut split: FastMap<(u32, T), u32> = FastMap::default();
        for list in edges {
            let list = list.as_ref();
            poll(list.len())?;
            // Cleared maps keep their buckets: one big state must not make the rest pay.
            if split.capacity() > 4 * list.len().max(16) {
                split = FastMap::default();
            }
            split.clear();
            for &(l, payload) in list {
                let Some(b) = block.get_mut(l as usize) else {
                    continue;
                };
                *b = *split.entry((*b, payload)).or_insert_with(|| {
                    blocks += 1;
                    blocks - 1
                });
            }
        }
        // Classes numbered by smallest label.
        let mut class_of_block = vec![NO_CLASS; blocks as usize];
        let mut first = Vec::new();
        let class_of = block
            .iter()
            .enumerate()
            .map(|(l, &b)| {
                if b == 0 {
                    return NO_CLASS;
                }
                let c = &mut class_of_block[b as usize];
                if *c == NO_CLASS {
                    *c = first.len() as u32;
                    first.push(l as u32);
                }
                *c
            })
            .collect();
        Ok(Columns { class_of, first })
    }

    pub fn num_classes(&self) -> usize {
        self.first.len()
    }

    /// Whether every label is a class of its own (nothing merged, none without edges).
    pub fn is_identity(&self) -> bool {
        self.first.len() == self.class_of.len()
    }

    /// One state's edges by class: `list` (in any order) becomes one edge per class,
    /// sorted by class; a label `l` from `class_of.len()` up (left out of the grouping)
    /// becomes `num_classes() + (l - class_of.len())`, after the classes. A class's members
    /// occur in the same states with one payload, so its smallest label stands for it.
    pub fn relabel<T: Copy>(&self, list: &[(u32, T)]) -> Vec<(u32, T)> {
        let (n, classes) = (self.class_of.len() as u32, self.first.len() as u32);
        let mut out: Vec<(u32, T)> = list
            .iter()
            .filter_map(|&(l, payload)| {
                if l >= n {
                    return Some((classes + (l - n), payload));
                }
                let c = self.class_of[l as usize];
                (self.first[c as usize] == l).then_some((c, payload))
            })
            .collect();
        out.sort_unstable_by_key(|&(c, _)| c);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_columns_share_a_class_numbered_by_smallest_label() {
        // Labels 1 and 3 agree everywhere; 0 differs in its target; 2 and 5 have no edges;
        // 4 agrees with 1 in state 0 only; 6 is past `num_labels`.
        let edges = vec![
            vec![(0, 'a'), (1, 'b'), (3, 'b'), (4, 'b'), (6, 'z')],
            vec![(0, 'c'), (1, 'd'), (3, 'd')],
        ];
        let columns = Columns::group(6, &edges);
        assert_eq!(columns.class_of, [0, 1, NO_CLASS, 1, 2, NO_CLASS]);
        assert_eq!(columns.first, [0, 1, 4]);
        assert!(!columns.is_identity());
        assert_eq!(
            columns.relabel(&edges[0]),
            [(0, 'a'), (1, 'b'), (2, 'b'), (3, 'z')]
        );
        assert_eq!(columns.relabel(&edges[1]), [(0, 'c'), (1, 'd')]);
        let shuffled = [(3, 'd'), (1, 'd'), (0, 'c')];
        assert_eq!(columns.relabel(&shuffled), [(0, 'c'), (1, 'd')]);
    }

    /// The columns laid out whole, compared as vectors: the definition itself.
    fn by_whole_columns(num_labels: usize, edges: &[Vec<(u32, u8)>]) -> Columns {
        let mut columns = vec![Vec::new(); num_labels];
        for (state, list) in edges.iter().enumerate() {
            for &(l, payload) in list.iter().filter(|e| (e.0 as usize) < num_labels) {
                columns[l as usize].push((state, payload));
            }
        }
        let (mut class_of, mut first) = (Vec::new(), Vec::<u32>::new());
        for (l, col) in columns.iter().enumerate() {
            let found = first.iter().position(|&f| columns[f as usize] == *col);
            class_of.push(match found {
                _ if col.is_empty() => NO_CLASS,
                Some(c) => c as u32,
                None => {
                    first.push(l as u32);
                    first.len() as u32 - 1
                }
            });
        }
        Columns { class_of, first }
    }

    proptest::proptest! {
        #[test]
        fn refinement_groups_exactly_by_whole_columns(
            num_labels in 0usize..24,
            raw in proptest::collection::vec(
                proptest::collection::btree_map(0u32..28, 0u8..3, 0..20),
                0..10,
            ),
        ) {
            // One edge per label and state, in a scrambled order (labels 24 up are left out).
            let edges: Vec<Vec<(u32, u8)>> = raw
                .iter()
                .map(|m| {
                    let mut list: Vec<(u32, u8)> = m.iter().map(|(&l, &p)| (l, p)).collect();
                    list.sort_by_key(|&(l, p)| (l.wrapping_mul(7) % 11, p));
                    list
                })
                .collect();
            proptest::prop_assert_eq!(
                Columns::group(num_labels, &edges),
                by_whole_columns(num_labels, &edges)
            );
        }
    }

    #[test]
    fn grouping_gives_up_past_its_deadline() {
        let edges: Vec<Vec<(u32, u32)>> = (0..3000).map(|s| vec![(s % 7, s)]).collect();
        let past = Some(Instant::now());
        assert_eq!(Columns::group_before(7, &edges, past), None);
        // A few states are grouped before the first poll.
        let few = &edges[..1000];
        assert_eq!(
            Columns::group_before(7, few, past),
            Some(Columns::group(7, few))
        );
    }

    #[test]
    fn payloads_tell_columns_apart() {
        let edges = vec![vec![(0, (1u32, 0u32)), (1, (1, 7))]];
        let columns = Columns::group(2, &edges);
        assert_eq!(columns.class_of, [0, 1]);
        assert!(columns.is_identity());
        let none: Vec<Vec<(u32, u32)>> = vec![vec![], vec![(5, 0)]];
        let empty = Columns::group(3, &none);
        assert_eq!(empty.class_of, [NO_CLASS; 3]);
        assert_eq!(empty.num_classes(), 0);
        assert_eq!(empty.relabel(&none[1]), [(2, 0)]);
    }
}
