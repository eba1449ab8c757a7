//! The one fixpoint both dead-end-free PDA constructions precompute their same-level
//! table with ([`super::pda_live`]'s reachable sets as bit rows, [`super::pda_bound`]'s
//! cheapest costs as `u16` rows): each row is recomputed from the others until none changes.

use super::{Clock, OpsError};

/// A table with one row per node, all rows of one width.
pub(crate) trait RowTable {
    type Entry: Copy + PartialEq;
    fn row(&self, m: usize) -> &[Self::Entry];
    fn row_mut(&mut self, m: usize) -> &mut [Self::Entry];
}

/// Brings the `n` rows of `table` to the least fixpoint of `relax` by passes over the rows
/// in reverse order (tokens tend to lead to later nodes, so their rows settle first), each
/// recomputing row `m` from the table (`relax(table, m, row)`, with `row` starting as row
/// `m`), until a pass changes none. Polls `clock` before every `poll`-th row; `relax`
/// fails to stop the passes (its work limit).
pub(crate) fn reverse_row_fixpoint<R: RowTable>(
    table: &mut R,
    n: usize,
    poll: usize,
    clock: Clock,
    mut relax: impl FnMut(&R, usize, &mut [R::Entry]) -> Result<(), OpsError>,
) -> Result<(), OpsError> {
    let mut row = Vec::new();
    loop {
        let mut changed = false;
        for m in (0..n).rev() {
            if m % poll == 0 {
                clock.check()?;
            }
            row.clear();
            row.extend_from_slice(table.row(m));
            relax(table, m, &mut row)?;
            if row != table.row(m) {
                table.row_mut(m).copy_from_slice(&row);
                changed = true;
            }
        }
        if !changed {
            return Ok(());
        }
    }
}
