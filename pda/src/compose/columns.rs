//! Token classes: labels (tokens, or classes of tokens) whose edges agree at every node —
//! same target, same pushes, or no edge — are one class, as in fstc-core's FSA path. A
//! node then has one edge per class, and a mask is a few ORs of class masks.

use std::collections::HashMap;

use fstc_core::parts::NO_CLASS;

/// An edge `(label, target, push)`.
pub(super) type Edge = (u32, u32, u32);

/// Groups the `num_labels` labels of `edges` (per node, in any order, at most one edge per
/// label) by their column. Returns each label's class (classes numbered by smallest
/// label, `NO_CLASS` for a label without edges), the number of classes, and the edges
/// relabelled by class, sorted by class within each node.
pub(super) fn group(num_labels: usize, edges: &[Vec<Edge>]) -> (Vec<u32>, u32, Vec<Vec<Edge>>) {
    // Columns laid out flat: label `l` has `column[start[l]..start[l + 1]]`, by node.
    let mut start = vec![0u32; num_labels + 1];
    for list in edges {
        for &(l, _, _) in list {
            start[l as usize + 1] += 1;
        }
    }
    for l in 0..num_labels {
        start[l + 1] += start[l];
    }
    let mut fill = start.clone();
    let mut column = vec![(0u32, 0u32, 0u32); start[num_labels] as usize];
    for (node, list) in edges.iter().enumerate() {
        for &(l, target, push) in list {
            column[fill[l as usize] as usize] = (node as u32, target, push);
            fill[l as usize] += 1;
        }
    }
    let col = |l: usize| &column[start[l] as usize..start[l + 1] as usize];
    let mut class_of: Vec<u32> = vec![NO_CLASS; num_labels];
    let mut ids: HashMap<&[Edge], u32> = HashMap::new();
    let mut reps: Vec<usize> = Vec::new();
    for (l, class) in class_of.iter_mut().enumerate() {
        if col(l).is_empty() {
            continue;
        }
        *class = *ids.entry(col(l)).or_insert_with(|| {
            reps.push(l);
            reps.len() as u32 - 1
        });
    }
    let mut out: Vec<Vec<Edge>> = vec![Vec::new(); edges.len()];
    for (c, &l) in reps.iter().enumerate() {
        for &(node, target, push) in col(l) {
            out[node as usize].push((c as u32, target, push));
        }
    }
    (class_of, reps.len() as u32, out)
}
