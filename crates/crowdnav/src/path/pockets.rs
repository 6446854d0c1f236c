//! Dead-end pockets: parts of the walkable triangles that hang off the rest by a single
//! edge and hold no cycle (trees of triangles in the adjacency graph). A channel that
//! enters such a pocket can only leave it by the edge it came in through, which the
//! search never does (a channel does not revisit a triangle); so unless the goal lies
//! in the pocket, entering it is pointless. Grid-derived maps have many (every notch
//! in a wall), and skipping them saves a large share of the search.

use crate::mesh::{NavMesh, TriangleId};
use std::sync::OnceLock;

const NONE: u32 = u32::MAX;

/// The pockets of a mesh, as rooted trees of triangles with preorder intervals.
#[derive(Clone, Debug, Default)]
pub(crate) struct Pockets {
    /// Per triangle: in a pocket, the neighbour it hangs from (`NONE` for triangles
    /// not in a pocket and for the root of a component that is a tree altogether).
    parent: Vec<u32>,
    /// Preorder number within the pockets (`NONE` outside them).
    enter: Vec<u32>,
    /// One past the last preorder number of the triangle's subtree.
    leave: Vec<u32>,
}

impl Pockets {
    /// Peels the walkable triangles with at most one open edge (to a walkable
    /// neighbour, not a wall), repeatedly: what is peeled forms the pockets, each
    /// triangle's parent being its one neighbour left when it was peeled.
    pub(crate) fn new(mesh: &NavMesh) -> Pockets {
        let n = mesh.triangles.len();
        let open = |t: usize, e: usize| -> Option<usize> {
            let tid = TriangleId(t as u32);
            if !mesh.is_walkable(tid) || mesh.is_wall(tid, e) {
                return None;
            }
            mesh.neighbor(tid, e)
                .filter(|&nb| mesh.is_walkable(nb))
                .map(TriangleId::index)
        };
        let mut count: Vec<u8> = (0..n)
            .map(|t| (0..3).filter(|&e| open(t, e).is_some()).count() as u8)
            .collect();
        let mut peeled = vec![false; n];
        let mut parent = vec![NONE; n];
        let mut queue: Vec<usize> = (0..n)
            .filter(|&t| mesh.is_walkable(TriangleId(t as u32)) && count[t] <= 1)
            .collect();
        while let Some(t) = queue.pop() {
            if peeled[t] {
                continue;
            }
            peeled[t] = true;
            for e in 0..3 {
                if let Some(nb) = open(t, e) {
                    if !peeled[nb] {
                        parent[t] = nb as u32;
                        count[nb] -= 1;
                        if count[nb] <= 1 {
                            queue.push(nb);
                        }
                    }
                }
            }
        }
        // Children lists, then preorder intervals from each pocket's root (a peeled
        // triangle whose parent is not peeled, or that has none).
        let mut first_child = vec![NONE; n];
        let mut next_sibling = vec![NONE; n];
        for t in 0..n {
            let p = parent[t];
            if peeled[t] && p != NONE && peeled[p as usize] {
                next_sibling[t] = first_child[p as usize];
                first_child[p as usize] = t as u32;
            }
        }
        let mut enter = vec![NONE; n];
        let mut leave = vec![NONE; n];
        let mut clock = 0u32;
        let mut stack: Vec<(u32, bool)> = Vec::new();
        for root in 0..n {
            let p = parent[root];
            if !peeled[root] || (p != NONE && peeled[p as usize]) {
                continue;
            }
            stack.push((root as u32, false));
            while let Some((t, done)) = stack.pop() {
                if done {
                    leave[t as usize] = clock;
                    continue;
                }
                enter[t as usize] = clock;
                clock += 1;
                stack.push((t, true));
                let mut c = first_child[t as usize];
                while c != NONE {
                    stack.push((c, false));
                    c = next_sibling[c as usize];
                }
            }
        }
        for t in 0..n {
            if !peeled[t] {
                parent[t] = NONE;
            }
        }
        Pockets {
            parent,
            enter,
            leave,
        }
    }

    /// Is crossing from `from` into `into` a step into a pocket that does not hold
    /// triangle `goal`?
    pub(crate) fn pointless(&self, from: u32, into: u32, goal: u32) -> bool {
        let (i, g) = (into as usize, goal as usize);
        if self.parent.get(i) != Some(&from) {
            return false;
        }
        let inside = self.enter[g] != NONE
            && self.enter[i] <= self.enter[g]
            && self.enter[g] < self.leave[i];
        !inside
    }
}

/// The [`Pockets`] of a mesh: set by a build or a load, dropped by an edit and then
/// built on first use (by whichever thread asks first; they depend on the mesh alone).
#[derive(Clone, Debug, Default)]
pub(crate) struct LazyPockets(OnceLock<Pockets>);

impl LazyPockets {
    /// The pockets of `mesh`, built now.
    pub(crate) fn built(mesh: &NavMesh) -> LazyPockets {
        LazyPockets(OnceLock::from(Pockets::new(mesh)))
    }
}

impl NavMesh {
    /// The dead-end pockets, built on first use after an edit.
    pub(crate) fn pockets(&self) -> &Pockets {
        self.pockets.0.get_or_init(|| Pockets::new(self))
    }
}
