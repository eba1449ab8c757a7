//! Byte graphs: fragments of byte NFA that the HIR compiler instantiates wherever they are
//! used (compiled classes, extension sugar, spliced DFAs).

/// Where an edge of a byte graph goes: another node of the graph, or out of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Dest {
    Node(u32),
    Out,
}

/// A byte fragment whose exits all go to `Out`, instantiated wherever it is used: a
/// compiled character class (a deterministic DAG, nodes children-first) or an extension's
/// graph (`fragments`; may have cycles, and one byte may lead both on and out).
#[derive(Debug)]
pub(crate) struct ByteGraph {
    pub(crate) nodes: Vec<Vec<(u8, u8, Dest)>>,
    pub(crate) entry: u32,
}
