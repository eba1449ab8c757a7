//! Labels grouped by column: labels whose edges agree at every state (the same target —
//! or target and push — from the same states, no edge elsewhere) cannot tell states apart,
//! so one class stands for all of them. The one grouping routine: composition (token
//! groups), minimization (one label per column), the file layout (token classes) and the
//! grammar compiler (token classes of a PDA) all group through it.

use std::hash::Hash;

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
    pub fn group<T: Copy + Eq + Hash>(num_labels: usize, edges: &[Vec<(u32, T)>]) -> Columns {
        // Columns laid out flat: label `l` has `column[start[l]..start[l + 1]]`, by state.
        let mut start = vec![0u32; num_labels + 1];
        let in_range = |&&(l, _): &&(u32, T)| (l as usize) < num_labels;
        for list in edges {
            for &(l, _) in list.iter().filter(in_range) {
                start[l as usize + 1] += 1;
            }
        }
        for l in 0..num_labels {
            start[l + 1] += start[l];
        }
        let Some(&(_, any)) = edges.iter().flatten().find(in_range) else {
            return Columns {
                class_of: vec![NO_CLASS; num_labels],
                first: Vec::new(),
            };
        };
        let mut fill = start.clone();
        let mut column = vec![(0u32, any); start[num_labels] as usize];
        for (state, list) in edges.iter().enumerate() {
            for &(l, payload) in list.iter().filter(in_range) {
                column[fill[l as usize] as usize] = (state as u32, payload);
                fill[l as usize] += 1;
            }
        }
        let mut class_of = vec![NO_CLASS; num_labels];
        let mut first = Vec::new();
        // Sized up front: growing would hash every column again.
        let used = (0..num_labels).filter(|&l| start[l] < start[l + 1]).count();
        let mut ids: FastMap<&[(u32, T)], u32> =
            FastMap::with_capacity_and_hasher(used, Default::default());
        for (l, class) in class_of.iter_mut().enumerate() {
            let col = &column[start[l] as usize..start[l + 1] as usize];
            if col.is_empty() {
                continue;
            }
            *class = *ids.entry(col).or_insert_with(|| {
                first.push(l as u32);
                first.len() as u32 - 1
            });
        }
        Columns { class_of, first }
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
