//! Which chain points and nodes one derivation of chains has found, without hashing: per
//! stack vertex, the list of points found with it as top (a vertex has points at a few
//! nodes), and per node a stamp. Stamps are an epoch counter, so starting over clears
//! nothing; the arrays grow with the stack and the PDA and are kept between steps.

use super::gss::BOTTOM;
use super::Config;
use crate::parts::StateId;

/// The end of a list of points.
const NONE: u32 = u32::MAX;

#[derive(Clone, Debug, Default)]
pub(super) struct Seen {
    epoch: u32,
    /// Per vertex (the bottom last): the epoch its list is of and the index of its
    /// newest point in the output.
    heads: Vec<(u32, u32)>,
    bottom: (u32, u32),
    /// Per point of the output: the next older point with the same top.
    older: Vec<u32>,
    /// Per node: the epoch in which it was last found.
    nodes: Vec<u32>,
}

impl Seen {
    /// Forgets everything found.
    pub fn start(&mut self) {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.heads.fill((0, NONE));
            self.nodes.fill(0);
            self.bottom = (0, NONE);
            self.epoch = 1;
        }
        self.older.clear();
    }

    /// Appends `c` to `out` unless it was found since the start; whether it was new.
    /// `out` holds exactly the points inserted since the start.
    pub fn insert(&mut self, out: &mut Vec<Config>, c: Config) -> bool {
        let head = match c.top {
            BOTTOM => &mut self.bottom,
            v => {
                let v = v as usize;
                if v >= self.heads.len() {
                    self.heads.resize(v + 1, (0, NONE));
                }
                &mut self.heads[v]
            }
        };
        if head.0 != self.epoch {
            *head = (self.epoch, NONE);
        }
        let mut i = head.1;
        while i != NONE {
            if out[i as usize].node == c.node {
                return false;
            }
            i = self.older[i as usize];
        }
        self.older.push(head.1);
        head.1 = out.len() as u32;
        out.push(c);
        true
    }

    /// Whether `node` is found for the first time since the start.
    pub fn first_node(&mut self, node: StateId) -> bool {
        let n = node as usize;
        if n >= self.nodes.len() {
            self.nodes.resize(n + 1, 0);
        }
        let first = self.nodes[n] != self.epoch;
        self.nodes[n] = self.epoch;
        first
    }
}
