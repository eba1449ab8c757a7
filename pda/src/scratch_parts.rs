//! SCRATCH: the contract's `PdaParts`, until `fst_core::parts::PdaParts` is merged from
//! branch `pda-runtime` (then this file is deleted).
#![allow(missing_docs)]

pub const NO_CLASS: u32 = u32::MAX;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PdaParts {
    pub vocab_size: u32,
    pub vocab_fingerprint: u64,
    pub eos_ids: Vec<u32>,
    pub num_stack_symbols: u32,
    pub start: u32,
    pub accepting: Vec<bool>,
    pub num_classes: u32,
    pub class_of_token: Vec<u32>,
    pub edges: Vec<Vec<PdaEdge>>,
    pub pops: Vec<Vec<(u32, u32)>>,
    pub push_seqs: Vec<Vec<u32>>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PdaEdge {
    pub class: u32,
    pub target: u32,
    pub push: u32,
}
