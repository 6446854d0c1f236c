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
    /// The next preorder number free: an edit numbers the trees it changes from here
    /// (see [`Pockets::update`]).
    clock: u32,
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
            clock,
        }
    }

    /// Brings the pockets up to date after an edit of `mesh` that changed the
    /// triangles `changed` (sorted, distinct: every triangle whose corners,
    /// neighbours or walkability changed), after moving triangle `src` to slot `dst`
    /// for each `(src, dst)` of `moved` (the slots past `mesh`'s triangle count then
    /// dropped). The result is what [`Pockets::new`] gives, but for the root of a
    /// pocket that is a whole component (the last triangle peeled, which depends on
    /// the order of peeling; any root serves the search).
    ///
    /// Peeling is confluent: what is peeled in the end does not depend on the order.
    /// So the pocket trees that do not touch the changed triangles or their neighbours
    /// (the set `S`) stay as they were, a valid start; those that touch `S`, and `S`,
    /// are unpeeled, then peeling runs again from them (and on into the rest of the
    /// mesh, where a broken cycle lets it). The trees holding a triangle peeled again
    /// are numbered afresh from [`Pockets::clock`] on: an old tree a newly peeled
    /// triangle now holds is renumbered with it, and old numbers are never reused.
    pub(crate) fn update(&mut self, mesh: &NavMesh, changed: &[u32], moved: &[(u32, u32)]) {
        let n = mesh.triangles.len();
        for &(src, dst) in moved {
            let (s, d) = (src as usize, dst as usize);
            self.parent[d] = self.parent[s];
            self.enter[d] = self.enter[s];
            self.leave[d] = self.leave[s];
        }
        // A triangle hanging from a moved one is its neighbour still (or changed).
        for &(src, dst) in moved {
            for nb in mesh.neighbors[dst as usize] {
                if nb != NONE && self.parent[nb as usize] == src {
                    self.parent[nb as usize] = dst;
                }
            }
        }
        for v in [&mut self.parent, &mut self.enter, &mut self.leave] {
            v.resize(n, NONE);
        }
        let open = |t: u32, e: usize| -> Option<u32> {
            let tid = TriangleId(t);
            if !mesh.is_walkable(tid) || mesh.is_wall(tid, e) {
                return None;
            }
            mesh.neighbor(tid, e)
                .filter(|&nb| mesh.is_walkable(nb))
                .map(|nb| nb.0)
        };
        // S: the changed triangles and their neighbours, whose old entries may be stale.
        let mut s: Vec<u32> = changed
            .iter()
            .flat_map(|&t| {
                std::iter::once(t).chain(
                    mesh.neighbors[t as usize]
                        .into_iter()
                        .filter(|&nb| nb != NONE),
                )
            })
            .collect();
        s.sort_unstable();
        s.dedup();
        let in_s = |t: u32| s.binary_search(&t).is_ok();
        // The old pocket trees touching S, by their topmost triangle outside S.
        let mut roots: Vec<u32> = Vec::new();
        for &x in &s {
            for y in mesh.neighbors[x as usize] {
                if y == NONE || in_s(y) || self.enter[y as usize] == NONE {
                    continue;
                }
                let mut r = y;
                for _ in 0..n {
                    let p = self.parent[r as usize];
                    if p as usize >= n || in_s(p) || self.enter[p as usize] == NONE {
                        break;
                    }
                    r = p;
                }
                roots.push(r);
            }
        }
        roots.sort_unstable();
        roots.dedup();
        // Unpeel those trees and S.
        let mut again: Vec<u32> = s.clone();
        let mut stack: Vec<u32> = roots;
        while let Some(w) = stack.pop() {
            if self.enter[w as usize] == NONE {
                continue;
            }
            for z in mesh.neighbors[w as usize] {
                if z != NONE
                    && !in_s(z)
                    && self.parent[z as usize] == w
                    && self.enter[z as usize] != NONE
                {
                    stack.push(z);
                }
            }
            again.push(w);
            self.enter[w as usize] = NONE;
        }
        for &t in &again {
            self.parent[t as usize] = NONE;
            self.enter[t as usize] = NONE;
            self.leave[t as usize] = NONE;
        }
        // Peel again from them: a triangle with at most one open neighbour not peeled.
        const PEELED: u32 = NONE - 1;
        let unpeeled_open = |p: &Pockets, t: u32| {
            (0..3)
                .filter_map(|e| open(t, e))
                .filter(|&nb| p.enter[nb as usize] == NONE)
                .count()
        };
        let mut queue: Vec<u32> = again
            .iter()
            .copied()
            .filter(|&t| mesh.is_walkable(TriangleId(t)) && unpeeled_open(self, t) <= 1)
            .collect();
        let mut peeled: Vec<u32> = Vec::new();
        while let Some(t) = queue.pop() {
            if self.enter[t as usize] != NONE {
                continue;
            }
            self.enter[t as usize] = PEELED;
            peeled.push(t);
            for e in 0..3 {
                if let Some(nb) = open(t, e) {
                    if self.enter[nb as usize] == NONE {
                        self.parent[t as usize] = nb;
                        if unpeeled_open(self, nb) <= 1 {
                            queue.push(nb);
                        }
                    }
                }
            }
        }
        // Number the trees holding a triangle peeled again, each from its root.
        let mut roots: Vec<u32> = peeled
            .iter()
            .map(|&t| {
                let mut r = t;
                for _ in 0..n {
                    let p = self.parent[r as usize];
                    if p as usize >= n || self.enter[p as usize] == NONE {
                        break;
                    }
                    r = p;
                }
                r
            })
            .collect();
        roots.sort_unstable();
        roots.dedup();
        let mut order: Vec<(u32, bool)> = Vec::new();
        let mut clock = self.clock;
        for root in roots {
            order.push((root, false));
            while let Some((t, done)) = order.pop() {
                if done {
                    self.leave[t as usize] = clock;
                    continue;
                }
                if clock >= PEELED - 1 {
                    // Numbers run out after very many edits: number everything afresh.
                    *self = Pockets::new(mesh);
                    return;
                }
                self.enter[t as usize] = clock;
                clock += 1;
                order.push((t, true));
                for z in mesh.neighbors[t as usize] {
                    if z != NONE && self.parent[z as usize] == t && self.enter[z as usize] != NONE {
                        order.push((z, false));
                    }
                }
            }
        }
        self.clock = clock;
    }

    /// Asserts that these pockets (updated by edits) serve the search as `fresh`
    /// (built for the same mesh) does: the same triangles in pockets, the same parent
    /// for those hanging off the rest, parents that are open neighbours, and preorder
    /// intervals that nest exactly as the parent links do; for tests.
    #[cfg(test)]
    pub(crate) fn assert_agrees_with(&self, fresh: &Pockets, mesh: &NavMesh, what: &str) {
        let n = mesh.triangles.len();
        assert_eq!(self.enter.len(), n, "{what}: pockets sized");
        let peeled: Vec<usize> = (0..n).filter(|&t| fresh.enter[t] != NONE).collect();
        for t in 0..n {
            assert_eq!(
                self.enter[t] != NONE,
                fresh.enter[t] != NONE,
                "{what}: triangle {t} in a pocket"
            );
            let (p, q) = (self.parent[t], fresh.parent[t]);
            if q != NONE && fresh.enter[q as usize] == NONE {
                assert_eq!(p, q, "{what}: triangle {t} hangs from");
            }
            if p != NONE {
                assert!(
                    mesh.neighbors[t].contains(&p) && self.enter[t] != NONE,
                    "{what}: parent of {t}"
                );
            }
        }
        let ancestor = |a: usize, mut g: usize| {
            for _ in 0..=n {
                if g == a {
                    return true;
                }
                let p = self.parent[g];
                if p == NONE || self.enter[p as usize] == NONE {
                    return false;
                }
                g = p as usize;
            }
            panic!("{what}: parent links loop");
        };
        for &a in &peeled {
            for &g in &peeled {
                let inside = self.enter[a] <= self.enter[g] && self.enter[g] < self.leave[a];
                assert_eq!(inside, ancestor(a, g), "{what}: intervals of {a} and {g}");
            }
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

    /// The pockets, taken out to be updated ([`Pockets::update`]) and put back with
    /// [`LazyPockets::put`]; `None` when they were waiting for their first use.
    pub(crate) fn take(&mut self) -> Option<Pockets> {
        self.0.take()
    }

    /// Puts updated pockets back.
    pub(crate) fn put(&mut self, pockets: Pockets) {
        *self = LazyPockets(OnceLock::from(pockets));
    }
}

impl NavMesh {
    /// The dead-end pockets, built on first use after an edit.
    pub(crate) fn pockets(&self) -> &Pockets {
        self.pockets.0.get_or_init(|| Pockets::new(self))
    }
}
