//! The tree of channels: a node per channel prefix, its link to its parent, and the
//! loop check (does a channel already pass through a triangle?).

use super::astar::Search;
use crate::path::funnel::Funnel;

/// A search node: the channel so far ends by entering triangle `links[i].tri` through
/// the edge shared with triangle `from`, with its funnel.
pub(super) struct Node {
    /// The triangle before (the entry edge is found when the node is expanded: most
    /// nodes never are).
    pub(super) from: u32,
    /// Taken when the node is expanded (each node is expanded once), unless the node
    /// is `pending`.
    pub(super) funnel: Option<Funnel>,
    /// The only funnel so far through its last portal (a disc's): kept after
    /// expansion, to be measured if a second one arrives (see [`Span::Pending`](super::disc::Span::Pending)).
    pub(super) pending: bool,
}

/// A search node's place in the tree of channels, kept apart from the funnels so that
/// channel walks stay in cache.
#[derive(Clone, Copy)]
pub(super) struct Link {
    pub(super) tri: u32,
    pub(super) parent: u32,
    /// Number of ancestors.
    pub(super) depth: u32,
    /// An ancestor for skew-binary jumps (level ancestor in O(log depth)).
    pub(super) jump: u32,
    /// The previous node in the same triangle (`NONE_NODE` when none).
    pub(super) same_tri: u32,
    /// Bloom filter of the triangles of this node's segment of the channel: the
    /// channel is cut into segments of [`SEGMENT`] nodes by depth.
    pub(super) bloom: u128,
    /// The last node before this node's segment (`NONE_NODE` for the first segment).
    pub(super) segment_before: u32,
}

/// Nodes of a triangle tested one by one by the loop check before it walks the
/// channel instead.
const MAX_CANDIDATES: usize = 4;

/// Channel segment length for [`Link::bloom`].
pub(super) const SEGMENT: u32 = 16;

/// The Bloom filter bits of a triangle (two of 128).
pub(super) fn bloom_bit(tri: u32) -> u128 {
    let h = tri.wrapping_mul(0x9E37_79B1);
    (1u128 << (h >> 25)) | (1u128 << ((h >> 18) & 127))
}

pub(super) const NONE_NODE: u32 = u32::MAX;

impl Search<'_> {
    /// Puts in `out` the triangles of node `index`'s channel, from the start's to the
    /// node's.
    pub(super) fn channel(&self, index: u32, out: &mut Vec<u32>) {
        out.clear();
        out.push(self.scratch.links[index as usize].tri);
        let mut n = index;
        while n != NONE_NODE {
            out.push(self.scratch.nodes[n as usize].from);
            n = self.scratch.links[n as usize].parent;
        }
        out.reverse();
    }

    /// Does the channel ending at `node` already pass through triangle `tri`? Checks
    /// whether any node in `tri` is an ancestor of `node`: the nodes per triangle are
    /// few (pruning keeps them so), and each test is a level-ancestor jump.
    pub(super) fn in_channel(&self, node: u32, tri: u32) -> bool {
        if node == NONE_NODE {
            return false;
        }
        let mut m = self
            .scratch
            .last_in
            .get(self.scratch.generation, tri)
            .copied()
            .flatten()
            .unwrap_or(NONE_NODE);
        // Few nodes in the triangle: test each for being an ancestor. Many (wide
        // agents can reach a triangle through many funnels): walk the channel by
        // segments instead, looking into those whose filter may hold the triangle.
        for _ in 0..MAX_CANDIDATES {
            if m == NONE_NODE {
                return false;
            }
            let candidate = &self.scratch.links[m as usize];
            if self.ancestor_at(node, candidate.depth) == m {
                return true;
            }
            m = candidate.same_tri;
        }
        if m == NONE_NODE {
            return false;
        }
        let bit = bloom_bit(tri);
        let mut segment = node;
        while segment != NONE_NODE {
            let link = &self.scratch.links[segment as usize];
            if link.bloom & bit == bit {
                let mut n = segment;
                while n != link.segment_before {
                    let l = &self.scratch.links[n as usize];
                    if l.tri == tri {
                        return true;
                    }
                    n = l.parent;
                }
            }
            segment = link.segment_before;
        }
        false
    }

    /// Depth and jump pointer of a new child of `parent`.
    pub(super) fn depth_and_jump(&self, parent: u32) -> (u32, u32) {
        if parent == NONE_NODE {
            return (0, NONE_NODE);
        }
        let p = &self.scratch.links[parent as usize];
        let jump = if p.jump != NONE_NODE {
            let j = &self.scratch.links[p.jump as usize];
            if j.jump != NONE_NODE
                && p.depth - j.depth == j.depth - self.scratch.links[j.jump as usize].depth
            {
                j.jump
            } else {
                parent
            }
        } else {
            parent
        };
        (p.depth + 1, jump)
    }

    /// The ancestor-or-self of `node` at depth `depth`, `NONE_NODE` when deeper than it.
    fn ancestor_at(&self, mut node: u32, depth: u32) -> u32 {
        loop {
            let n = &self.scratch.links[node as usize];
            if n.depth == depth {
                return node;
            }
            if n.depth < depth {
                return NONE_NODE;
            }
            node = if n.jump != NONE_NODE && self.scratch.links[n.jump as usize].depth >= depth {
                n.jump
            } else {
                n.parent
            };
        }
    }

    /// Links new node `index`, in triangle `tri`, to its parent `parent` in the tree.
    pub(super) fn link(&mut self, index: u32, parent: u32, tri: u32) {
        let (depth, jump) = self.depth_and_jump(parent);
        let same_tri = self
            .scratch
            .last_in
            .get_mut(self.scratch.generation, tri)
            .replace(index);
        let (bloom, segment_before) = if parent == NONE_NODE || depth % SEGMENT == 0 {
            (bloom_bit(tri), parent)
        } else {
            let p = &self.scratch.links[parent as usize];
            (p.bloom | bloom_bit(tri), p.segment_before)
        };
        self.scratch.links.push(Link {
            tri,
            parent,
            depth,
            jump,
            same_tri: same_tri.unwrap_or(NONE_NODE),
            bloom,
            segment_before,
        });
    }
}
