//! Pattern text rewritten for regex-syntax, piece by piece, and the map from its offsets
//! back to the user's pattern, so that regex-syntax's errors point at what the user wrote.
//! Written by the extension rewriter and the ECMAScript translation alike.

/// Maps byte offsets in rewritten text back to the original pattern.
#[derive(Debug, Default)]
pub(crate) struct SpanMap {
    pieces: Vec<Piece>,
}

/// A run of output text: copied from the pattern (offsets shift) or inserted in place of
/// `orig..orig_end` (offsets inside map to its ends).
#[derive(Debug)]
struct Piece {
    out: usize,
    out_end: usize,
    orig: usize,
    orig_end: usize,
    copied: bool,
}

impl SpanMap {
    /// The pattern offset of a span start at rewritten offset `o`.
    pub(crate) fn start(&self, o: usize) -> usize {
        let i = self.pieces.partition_point(|p| p.out_end <= o);
        match self.pieces.get(i) {
            Some(p) if p.copied => p.orig + (o - p.out),
            Some(p) => p.orig,
            None => self.pieces.last().map_or(o, |p| p.orig_end),
        }
    }

    /// The pattern offset of a span end at rewritten offset `o`.
    pub(crate) fn end(&self, o: usize) -> usize {
        let i = self.pieces.partition_point(|p| p.out_end < o);
        match self.pieces.get(i) {
            Some(p) if p.copied => p.orig + (o - p.out),
            Some(p) => p.orig_end,
            None => self.pieces.last().map_or(o, |p| p.orig_end),
        }
    }
}

/// Rewritten text being written, with its [`SpanMap`].
#[derive(Debug, Default)]
pub(crate) struct Output {
    pub(crate) text: String,
    pub(crate) map: SpanMap,
}

impl Output {
    pub(crate) fn with_capacity(len: usize) -> Output {
        Output {
            text: String::with_capacity(len),
            map: SpanMap::default(),
        }
    }

    /// Copies `p[a..b]` unchanged.
    pub(crate) fn copy(&mut self, p: &str, a: usize, b: usize) {
        if a < b {
            let out = self.text.len();
            self.text.push_str(&p[a..b]);
            self.map.pieces.push(Piece {
                out,
                out_end: self.text.len(),
                orig: a,
                orig_end: b,
                copied: true,
            });
        }
    }

    /// Writes `text` in place of the pattern's `orig..orig_end`.
    pub(crate) fn emit(&mut self, text: &str, orig: usize, orig_end: usize) {
        let out = self.text.len();
        self.text.push_str(text);
        self.map.pieces.push(Piece {
            out,
            out_end: self.text.len(),
            orig,
            orig_end,
            copied: false,
        });
    }
}
