//! Which triangles a disc of a given radius can travel between: a per-radius
//! connectivity index, built with the mesh, that lets a path query with no answer
//! refuse at once.
//!
//! The path search moves a disc of radius `r` through a channel of triangles: it
//! leaves the start's triangle through any of its open edges, crosses each triangle
//! after that between the two edges meeting at a corner whose gate width is at least
//! `2r` ([`NavMesh::can_cross`]), crosses each edge (a portal) only when it is wide
//! enough between its two corners for their discs (both wall corners: length `>= 2r`;
//! one: length `>= r`), and stops in the goal's triangle. Every one of these tests
//! reads `K >= 2r` for a key `K` fixed by the mesh: the gate width; the portal's
//! length, or twice it with one wall corner, or infinity with none.
//!
//! The index is a graph whose nodes are the portals and whose links join the two
//! portals of a triangle that meet at a corner, keyed by the least of the corner's
//! width and the two portals' keys. A disc of radius `r` can go from portal `a` to
//! portal `b` through a sequence of such links iff the widest-path (maximin) key
//! between them is `>= 2r`. Kruskal's algorithm over the links in decreasing key order
//! builds the tree of merges (a Kruskal reconstruction tree): leaves are portals,
//! each inner node a merge with its key, keys never increasing towards the root; two
//! portals are linked at `2r` iff their highest ancestors with key `>= 2r` agree. Each
//! node keeps a skew-binary jump pointer, so that ancestor is found in `O(log n)`.
//!
//! The graph admits a little more than the search: it may chain two crossings of the
//! same triangle (`a` to `b` at one corner, `b` to `c` at another), which a channel
//! never does. So "not linked" is exact (the search then finds nothing), while
//! "linked" lets the search run; the random-world tests check that the two agree.

use super::clearance::NearWalls;
use super::navmesh::{NavMesh, TriangleId, NONE};
use std::sync::OnceLock;

/// The connectivity index of a mesh: see the module's documentation.
#[derive(Clone, Debug, Default)]
pub(crate) struct Corridors {
    /// Per triangle and edge: the portal's leaf node, or `NONE` for walls, hull edges
    /// and blocked triangles.
    leaf: Vec<[u32; 3]>,
    /// Per node: key (`2r` limit), parent and jump pointer (`NONE` at the root).
    key: Vec<f32>,
    parent: Vec<u32>,
    jump: Vec<u32>,
}

impl Corridors {
    /// The index of `mesh`, whose widths are measured, from its portals as
    /// `NavMesh::number_portals` numbers them.
    pub(crate) fn with_portals(mesh: &NavMesh, leaf: Vec<[u32; 3]>, side: &[u32]) -> Corridors {
        // Leaves: the portals, keyed by their width.
        let mut key: Vec<f32> = side
            .iter()
            .map(|&s| {
                let (t, e) = (s as usize / 3, s as usize % 3);
                let ids = mesh.triangles[t];
                portal_key(mesh, ids[e], ids[(e + 1) % 3])
            })
            .collect();
        let portals = key.len();
        // Links: the two portals meeting at each corner of a walkable triangle.
        let mut links: Vec<(f32, u32, u32)> = Vec::with_capacity(3 * portals);
        for (t, edges) in leaf.iter().enumerate() {
            for corner in 0..3 {
                // Corner `corner` is where edges `corner - 1` and `corner` meet.
                let (a, b) = (edges[(corner + 2) % 3], edges[corner]);
                if a == NONE || b == NONE {
                    continue;
                }
                let k = mesh.widths[t][corner]
                    .min(key[a as usize])
                    .min(key[b as usize]);
                links.push((k, a, b));
            }
        }
        // Widest first; ties in a fixed order, so the tree is the same on any run: one
        // integer per link, the key's total order reversed above the two portals.
        links.sort_unstable_by_key(|&(k, a, b)| {
            (u128::from(!total_order_bits(k)) << 64) | (u128::from(a) << 32) | u128::from(b)
        });
        let mut parent = vec![NONE; portals];
        // Union-find over nodes: each set's representative is its tree root.
        let mut set: Vec<u32> = (0..portals as u32).collect();
        let root_of = |set: &mut Vec<u32>, mut x: u32| {
            let mut r = x;
            while set[r as usize] != r {
                r = set[r as usize];
            }
            while set[x as usize] != r {
                let next = set[x as usize];
                set[x as usize] = r;
                x = next;
            }
            r
        };
        for (k, a, b) in links {
            let (ra, rb) = (root_of(&mut set, a), root_of(&mut set, b));
            if ra == rb {
                continue;
            }
            let node = key.len() as u32;
            key.push(k);
            parent.push(NONE);
            set.push(node);
            parent[ra as usize] = node;
            parent[rb as usize] = node;
            set[ra as usize] = node;
            set[rb as usize] = node;
        }
        Corridors::with_jumps(leaf, key, parent)
    }

    /// The index from its tree, as [`Corridors::tree`] gives it, and the portals of
    /// the mesh it was built for (`NavMesh::number_portals`: per triangle and edge,
    /// the portal's number, and how many there are). Checks that it is a tree whose
    /// keys never increase towards the root, so that no query on it can index out of
    /// bounds or loop, whatever a file held; see `mesh::bake`.
    ///
    /// # Errors
    /// What is wrong with the tree, for a corrupt or crafted file.
    pub(crate) fn from_tree(
        leaf: Vec<[u32; 3]>,
        portals: usize,
        key: Vec<f32>,
        parent: Vec<u32>,
    ) -> Result<Corridors, &'static str> {
        if key.len() != parent.len() {
            return Err("the corridor tree's keys and parents differ in number");
        }
        if key.len() < portals || key.len() >= NONE as usize {
            return Err("the corridor tree does not match the mesh's portals");
        }
        if key.iter().any(|k| k.is_nan()) {
            return Err("a corridor key is NaN");
        }
        for (x, &p) in parent.iter().enumerate() {
            // Inner nodes are made after their children: a parent's number is larger,
            // so following parents always ends.
            if p != NONE && (p as usize <= x || p as usize >= key.len()) {
                return Err("a corridor tree node's parent is out of order");
            }
            if p != NONE && key[p as usize] > key[x] {
                return Err("a corridor tree key increases towards the root");
            }
        }
        Ok(Corridors::with_jumps(leaf, key, parent))
    }

    /// The tree of merges: per node, its key and its parent (`NONE` at a root); the
    /// first nodes are the leaves, one per portal in `NavMesh::number_portals`' order.
    pub(crate) fn tree(&self) -> (&[f32], &[u32]) {
        (&self.key, &self.parent)
    }

    /// The index from its leaves and tree, with the jump pointers worked out.
    fn with_jumps(leaf: Vec<[u32; 3]>, key: Vec<f32>, parent: Vec<u32>) -> Corridors {
        // Jump pointers, parents before children: inner nodes were made after their
        // children, so the reverse order of making has every parent first.
        let total = key.len();
        let mut depth = vec![0u32; total];
        let mut jump = vec![NONE; total];
        for x in (0..total).rev() {
            let p = parent[x];
            if p == NONE {
                continue;
            }
            depth[x] = depth[p as usize] + 1;
            let j = jump[p as usize];
            jump[x] = if j != NONE
                && jump[j as usize] != NONE
                && depth[p as usize] - depth[j as usize]
                    == depth[j as usize] - depth[jump[j as usize] as usize]
            {
                jump[j as usize]
            } else {
                p
            };
        }
        Corridors {
            leaf,
            key,
            parent,
            jump,
        }
    }

    /// The highest ancestor of node `x` whose key is `>= limit` (`x` itself when its
    /// parent's is less); keys never increase towards the root.
    fn top(&self, mut x: u32, limit: f32) -> u32 {
        loop {
            let p = self.parent[x as usize];
            if p == NONE || self.key[p as usize] < limit {
                return x;
            }
            let j = self.jump[x as usize];
            x = if j != NONE && self.key[j as usize] >= limit {
                j
            } else {
                p
            };
        }
    }

    /// Can the search take a disc of radius `radius` from triangle `from` to a
    /// different triangle `to`, as far as this index tells? `false` is exact: no
    /// channel of the search joins them.
    pub(crate) fn linked(&self, from: TriangleId, to: TriangleId, radius: f32) -> bool {
        let limit = 2.0 * radius;
        let (Some(a), Some(b)) = (self.leaf.get(from.index()), self.leaf.get(to.index())) else {
            return false;
        };
        let tops = |edges: &[u32; 3]| {
            edges.map(|p| (p != NONE && self.key[p as usize] >= limit).then(|| self.top(p, limit)))
        };
        let (ta, tb) = (tops(a), tops(b));
        ta.iter()
            .flatten()
            .any(|x| tb.iter().flatten().any(|y| x == y))
    }
}

/// The indexes keyed by portal number ([`NavMesh::number_portals`]): the corridor
/// index and the near-wall lists' slots. Both depend on the whole mesh's portal
/// numbering, so an edit drops them and they are built again on first use (see
/// [`LazyPortalIndexes`]).
#[derive(Clone, Debug)]
pub(crate) struct PortalIndexes {
    /// Which triangles a disc of each radius can travel between.
    pub(crate) corridors: Corridors,
    /// Per portal, the walls that can narrow it for a disc.
    pub(crate) near_walls: NearWalls,
}

impl PortalIndexes {
    /// The indexes of `mesh`, whose widths are measured.
    pub(crate) fn new(mesh: &NavMesh) -> PortalIndexes {
        let (portal, side) = mesh.number_portals();
        PortalIndexes {
            corridors: Corridors::with_portals(mesh, portal.clone(), &side),
            near_walls: NearWalls::with_portals(portal, side),
        }
    }
}

/// The [`PortalIndexes`] of a mesh: set by a build or a load, dropped by an edit and
/// then built on first use (by whichever thread asks first; the result depends on the
/// mesh alone).
#[derive(Clone, Debug, Default)]
pub(crate) struct LazyPortalIndexes(OnceLock<PortalIndexes>);

impl LazyPortalIndexes {
    /// Indexes already built.
    pub(crate) fn built(indexes: PortalIndexes) -> LazyPortalIndexes {
        LazyPortalIndexes(OnceLock::from(indexes))
    }
}

impl NavMesh {
    /// The corridor index and the near-wall lists, built on first use after an edit.
    pub(crate) fn portal_indexes(&self) -> &PortalIndexes {
        self.portals.0.get_or_init(|| PortalIndexes::new(self))
    }
}

/// `k`'s bits as an integer whose order is `f32::total_cmp`'s.
fn total_order_bits(k: f32) -> u32 {
    let bits = k.to_bits();
    // Negative values: flip every bit (larger magnitude first); others: the sign bit.
    if bits >> 31 == 1 {
        !bits
    } else {
        bits | 1 << 31
    }
}

/// The key of the portal from vertex `u` to vertex `v`: the search lets a disc of
/// radius `r` cross it iff `key >= 2r`.
fn portal_key(mesh: &NavMesh, u: u32, v: u32) -> f32 {
    let length = mesh.vertices[u as usize].distance(mesh.vertices[v as usize]);
    match (
        mesh.obstacle_vertex[u as usize],
        mesh.obstacle_vertex[v as usize],
    ) {
        (true, true) => length,
        (true, false) | (false, true) => 2.0 * length,
        (false, false) => f32::INFINITY,
    }
}

#[cfg(test)]
mod tests {
    use crate::mesh::{Location, NavMesh};
    use crate::path::{NoPathReason, PathError};
    use glam::Vec2;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// A 30 x 30 room with random squares and slanted quads (overlaps allowed), some
    /// walling off parts of the room: gaps of every width.
    fn random_mesh(rng: &mut ChaCha8Rng) -> NavMesh {
        let count = rng.gen_range(40..100);
        crate::mesh::test_worlds::quad_room(rng, count, 0.0..29.0, 0.3..4.0, |rng| {
            rng.gen_range(-1.0..1.0f32)
        })
    }

    /// The integer order of keys is `f32::total_cmp`'s.
    #[test]
    fn key_bits_sort_like_total_cmp() {
        let keys = [
            f32::NEG_INFINITY,
            -3.5,
            -1e-30,
            -0.0,
            0.0,
            1e-30,
            0.25,
            2.0,
            7e8,
            f32::INFINITY,
        ];
        for x in keys {
            for y in keys {
                assert_eq!(
                    super::total_order_bits(x).cmp(&super::total_order_bits(y)),
                    x.total_cmp(&y),
                    "{x} vs {y}"
                );
            }
        }
    }

    /// The index agrees with the search it stands in for: on random worlds and radii,
    /// the corridor index links two triangles iff the search (run without the index)
    /// finds a path between points in them; with the index on, every answer is the
    /// same; and the refusal's reason is plain connectivity's.
    #[test]
    fn the_index_links_two_triangles_iff_the_search_finds_a_path() {
        let mut rng = ChaCha8Rng::seed_from_u64(0xc0_4411_d0a5);
        let (mut linked, mut refused) = (0, 0);
        for _ in 0..24 {
            let mesh = random_mesh(&mut rng);
            let walkable = |rng: &mut ChaCha8Rng| loop {
                let p = Vec2::new(rng.gen_range(0.0..30.0), rng.gen_range(0.0..30.0));
                if let Location::Walkable(t) = mesh.locate(p) {
                    return (p, t);
                }
            };
            for _ in 0..40 {
                let ((a, ta), (b, tb)) = (walkable(&mut rng), walkable(&mut rng));
                for radius in [0.0, 0.05, 0.2, 0.35, 0.5, 0.8, 1.2, 2.0] {
                    let (fast, _) = mesh.find_path_tuned(a, b, radius, true, true);
                    let (slow, _) = mesh.find_path_tuned(a, b, radius, true, false);
                    match (&fast, &slow) {
                        (Ok(f), Ok(s)) => assert_eq!(f.length(), s.length()),
                        _ => assert_eq!(
                            fast.as_ref().err(),
                            slow.as_ref().err(),
                            "{a} -> {b}, r = {radius}"
                        ),
                    }
                    if ta == tb {
                        continue;
                    }
                    match &slow {
                        Ok(_) => {
                            assert!(
                                mesh.corridor_linked(ta, tb, radius),
                                "{a} -> {b}, r = {radius}: a path, yet not linked"
                            );
                            linked += 1;
                        }
                        Err(PathError::NoPath(reason)) => {
                            assert!(
                                !mesh.corridor_linked(ta, tb, radius),
                                "{a} -> {b}, r = {radius}: linked, yet no path"
                            );
                            let expected = if mesh.connected(ta, tb) {
                                NoPathReason::TooNarrow
                            } else {
                                NoPathReason::Disconnected
                            };
                            assert_eq!(*reason, expected, "{a} -> {b}, r = {radius}");
                            refused += 1;
                        }
                        Err(_) => {}
                    }
                }
            }
        }
        // Coverage floors for both outcomes. Measured: 3 384 linked, 275 refused.
        assert!(
            linked >= 1000 && refused >= 200,
            "{linked} linked, {refused} refused"
        );
    }
}
