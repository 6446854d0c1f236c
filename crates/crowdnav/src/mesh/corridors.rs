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
//! The leaves are numbered by directed edge, `3 t + e` for edge `e` of the portal's
//! lower-numbered triangle `t` (other numbers are unused leaves), and the links are kept
//! sorted, each named by its triangle and corner, so that an edit needs no renumbering:
//! it only notes the triangles it changed, and the first query after it (or
//! [`NavMesh::prepare_queries`]) brings the index up to date by dropping those
//! triangles' links, merging in their new ones (sorted) and running the union-find
//! pass again, without a sort and without numbering the portals again. The result is
//! to the bit what a whole build of the edited mesh gives, as the links and leaf keys
//! are a function of the mesh alone.
//!
//! The graph admits a little more than the search: it may chain two crossings of the
//! same triangle (`a` to `b` at one corner, `b` to `c` at another), which a channel
//! never does. So "not linked" is exact (the search then finds nothing), while
//! "linked" lets the search run; the random-world tests check that the two agree.

use super::clearance::NearWalls;
use super::navmesh::{NavMesh, TriangleId, NONE};

/// A link of the index: the two portals (leaves) meeting at corner `id % 3` of
/// triangle `id / 3`, and its key.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Link {
    key: f32,
    id: u32,
    a: u32,
    b: u32,
}

impl Link {
    /// The links' order: widest first, ties by their two portals (no two links join
    /// the same two), so that the tree is the same on any run and after any edits.
    /// Portals numbered as `NavMesh::number_portals` does are in the order of their
    /// leaves, so this is the order of [`Corridors::numbered_tree`]'s links too.
    fn order(&self) -> u128 {
        (u128::from(!total_order_bits(self.key)) << 64)
            | (u128::from(self.a) << 32)
            | u128::from(self.b)
    }
}

/// The connectivity index of a mesh: see the module's documentation.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Corridors {
    /// Per triangle and edge: the portal's leaf node (the directed edge `3 t + e` of
    /// its lower-numbered triangle), or `NONE` for walls, hull edges and blocked
    /// triangles.
    leaf: Vec<[u32; 3]>,
    /// Per node: key (`2r` limit), parent and jump pointer (`NONE` at the root). The
    /// first `3 * triangles` nodes are the leaves, by directed edge (those that are
    /// not a portal's have key 0 and no parent); the merges follow.
    key: Vec<f32>,
    parent: Vec<u32>,
    jump: Vec<u32>,
    /// Every link, in [`Link::order`] (`None` only while the index is being made).
    links: Option<Vec<Link>>,
}

impl Corridors {
    /// The index of `mesh`, whose widths are measured.
    pub(crate) fn new(mesh: &NavMesh) -> Corridors {
        let n = mesh.triangles.len();
        let leaf: Vec<[u32; 3]> = (0..n as u32).map(|t| portals_of(mesh, t)).collect();
        let mut key = vec![0.0; 3 * n];
        for t in 0..n as u32 {
            set_leaf_keys(mesh, t, &leaf, &mut key);
        }
        let mut links = Vec::with_capacity(3 * n / 2);
        for t in 0..n as u32 {
            links.extend(links_of(mesh, t, &leaf, &key).into_iter().flatten());
        }
        links.sort_unstable_by_key(Link::order);
        Corridors::from_links(leaf, key, links)
    }

    /// The index of `mesh` from this one, built for an earlier state of it, when the
    /// triangles in `changed` (any order, repeats allowed) are the only ones whose
    /// slots changed in any way since: corners, neighbours, flags, widths or the wall
    /// ends at their corners. Their neighbours' links are taken again too (a portal is
    /// named by the lower-numbered of its two triangles). Gives what
    /// [`Corridors::new`] gives, to the bit.
    pub(crate) fn updated(self, mesh: &NavMesh, mut changed: Vec<u32>) -> Corridors {
        let Some(old_links) = self.links else {
            return Corridors::new(mesh);
        };
        let n = mesh.triangles.len();
        changed.retain(|&t| (t as usize) < n);
        let around: Vec<u32> = changed
            .iter()
            .flat_map(|&t| mesh.neighbors[t as usize])
            .filter(|&nb| nb != NONE)
            .collect();
        changed.extend(around);
        changed.sort_unstable();
        changed.dedup();
        let (mut leaf, mut key) = (self.leaf, self.key);
        // The leaves' keys, without the merges.
        key.truncate(3 * leaf.len());
        key.resize(3 * n, 0.0);
        leaf.resize(n, [NONE; 3]);
        for &t in &changed {
            leaf[t as usize] = portals_of(mesh, t);
        }
        for &t in &changed {
            set_leaf_keys(mesh, t, &leaf, &mut key);
        }
        let mut fresh: Vec<Link> = changed
            .iter()
            .flat_map(|&t| links_of(mesh, t, &leaf, &key))
            .flatten()
            .collect();
        fresh.sort_unstable_by_key(Link::order);
        // The links of unchanged triangles, merged with the fresh ones in order.
        let mut is_changed = vec![false; n];
        for &t in &changed {
            is_changed[t as usize] = true;
        }
        let stale = |l: &Link| is_changed.get(l.id as usize / 3).is_none_or(|&c| c);
        let mut links = Vec::with_capacity(old_links.len() + fresh.len());
        let mut fresh = fresh.into_iter().peekable();
        for l in old_links.into_iter().filter(|l| !stale(l)) {
            while let Some(f) = fresh.next_if(|f| f.order() < l.order()) {
                links.push(f);
            }
            links.push(l);
        }
        links.extend(fresh);
        Corridors::from_links(leaf, key, links)
    }

    /// The index from its leaves, their keys and the links in order: Kruskal's pass,
    /// then the jump pointers.
    fn from_links(leaf: Vec<[u32; 3]>, key: Vec<f32>, links: Vec<Link>) -> Corridors {
        let (key, parent) = merge_tree(key, links.iter().map(|l| (l.key, l.a, l.b)));
        let mut corridors = Corridors::with_jumps(leaf, key, parent);
        corridors.links = Some(links);
        corridors
    }

    /// The tree of merges as a file stores it (see `mesh::bake`): per node, its key
    /// and its parent (`NONE` at a root), the first nodes the leaves, one per portal
    /// in `NavMesh::number_portals`' order, then the merges in the order they were
    /// made. `mesh` is the mesh this index is up to date with.
    pub(crate) fn numbered_tree(&self, mesh: &NavMesh) -> (Vec<f32>, Vec<u32>) {
        let (_, side) = mesh.number_portals();
        let leaves = self.leaf.len() * 3;
        let portals = side.len() as u32;
        let mut number = vec![NONE; leaves];
        for (i, &s) in side.iter().enumerate() {
            number[s as usize] = i as u32;
        }
        let node = |x: u32| match x {
            NONE => NONE,
            x if (x as usize) < leaves => number[x as usize],
            x => x - leaves as u32 + portals,
        };
        let mut key: Vec<f32> = side.iter().map(|&s| self.key[s as usize]).collect();
        let mut parent: Vec<u32> = side
            .iter()
            .map(|&s| node(self.parent[s as usize]))
            .collect();
        key.extend_from_slice(&self.key[leaves..]);
        parent.extend(self.parent[leaves..].iter().map(|&p| node(p)));
        (key, parent)
    }

    /// The index of `mesh` from its tree as [`Corridors::numbered_tree`] gives it
    /// (read from a file). Checks that it is a tree whose keys never increase towards
    /// the root, so that no query on it can index out of bounds or loop, whatever a
    /// file held; see `mesh::bake`.
    ///
    /// # Errors
    /// What is wrong with the tree, for a corrupt or crafted file.
    pub(crate) fn from_tree(
        mesh: &NavMesh,
        key: Vec<f32>,
        parent: Vec<u32>,
    ) -> Result<Corridors, &'static str> {
        let (number, side) = mesh.number_portals();
        let portals = side.len();
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
        // Leaves by directed edge, merges after them, in the same order.
        let leaves = 3 * mesh.triangles.len();
        if leaves + (key.len() - portals) >= NONE as usize {
            return Err("the corridor tree does not match the mesh's portals");
        }
        let node = |x: u32| match x {
            NONE => NONE,
            x if (x as usize) < portals => side[x as usize],
            x => x - portals as u32 + leaves as u32,
        };
        let mut keys = vec![0.0; leaves];
        let mut parents = vec![NONE; leaves];
        for (i, &s) in side.iter().enumerate() {
            keys[s as usize] = key[i];
            parents[s as usize] = node(parent[i]);
        }
        keys.extend_from_slice(&key[portals..]);
        parents.extend(parent[portals..].iter().map(|&p| node(p)));
        let leaf: Vec<[u32; 3]> = number
            .iter()
            .map(|edges| edges.map(|p| if p == NONE { NONE } else { side[p as usize] }))
            .collect();
        // The links, for edits to update the index from.
        let mut links = Vec::with_capacity(3 * leaf.len() / 2);
        for t in 0..leaf.len() as u32 {
            links.extend(links_of(mesh, t, &leaf, &keys).into_iter().flatten());
        }
        links.sort_unstable_by_key(Link::order);
        let mut corridors = Corridors::with_jumps(leaf, keys, parents);
        corridors.links = Some(links);
        Ok(corridors)
    }

    /// Per triangle and edge: the portal's leaf (its directed edge `3 t + e` from its
    /// lower-numbered triangle), or `NONE`.
    pub(crate) fn leaves(&self) -> &[[u32; 3]] {
        &self.leaf
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
            links: None,
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

/// Kruskal's pass: from the leaves' keys and the links (key, two leaves) widest first,
/// the tree of merges, as keys and parents (`NONE` at a root), the merges numbered
/// after the leaves in the order they are made.
fn merge_tree(
    mut key: Vec<f32>,
    links: impl IntoIterator<Item = (f32, u32, u32)>,
) -> (Vec<f32>, Vec<u32>) {
    let leaves = key.len();
    let links = links.into_iter();
    // At most one merge per link.
    key.reserve(links.size_hint().0);
    let mut parent = Vec::with_capacity(key.capacity());
    parent.resize(leaves, NONE);
    // Union-find over the leaves (union by rank, path halving), and per set the tree
    // node at its top.
    let mut set: Vec<u32> = (0..leaves as u32).collect();
    let mut rank = vec![0u8; leaves];
    let mut top: Vec<u32> = (0..leaves as u32).collect();
    let find = |set: &mut Vec<u32>, mut x: u32| {
        while set[x as usize] != x {
            let up = set[set[x as usize] as usize];
            set[x as usize] = up;
            x = up;
        }
        x
    };
    for (k, a, b) in links {
        let (ra, rb) = (find(&mut set, a), find(&mut set, b));
        if ra == rb {
            continue;
        }
        let node = key.len() as u32;
        key.push(k);
        parent.push(NONE);
        parent[top[ra as usize] as usize] = node;
        parent[top[rb as usize] as usize] = node;
        let (low, high) = if rank[ra as usize] < rank[rb as usize] {
            (ra, rb)
        } else {
            (rb, ra)
        };
        set[low as usize] = high;
        if rank[low as usize] == rank[high as usize] {
            rank[high as usize] += 1;
        }
        top[high as usize] = node;
    }
    (key, parent)
}

/// Per edge of triangle `t`: the leaf of the portal it is (the directed edge `3 u + f`
/// of the portal's lower-numbered triangle `u`), or `NONE`: the edges
/// `NavMesh::number_portals` numbers.
fn portals_of(mesh: &NavMesh, t: u32) -> [u32; 3] {
    let tid = TriangleId(t);
    let mut leaf = [NONE; 3];
    if !mesh.is_walkable(tid) {
        return leaf;
    }
    for (e, slot) in leaf.iter_mut().enumerate() {
        let nb = mesh.neighbors[t as usize][e];
        if mesh.is_wall(tid, e) || nb == NONE || !mesh.is_walkable(TriangleId(nb)) {
            continue;
        }
        let Some(back) = mesh.edge_toward(nb, t) else {
            continue;
        };
        *slot = if t < nb {
            3 * t + e as u32
        } else {
            3 * nb + back as u32
        };
    }
    leaf
}

/// Sets the leaf keys of triangle `t`'s three directed edges: the portal's key where
/// the edge names its portal (`t` being the lower-numbered side), else 0.
fn set_leaf_keys(mesh: &NavMesh, t: u32, leaf: &[[u32; 3]], key: &mut [f32]) {
    let ids = mesh.triangles[t as usize];
    for e in 0..3 {
        let own = 3 * t + e as u32;
        key[own as usize] = if leaf[t as usize][e] == own {
            portal_key(mesh, ids[e], ids[(e + 1) % 3])
        } else {
            0.0
        };
    }
}

/// The links at the corners of triangle `t`: the two portals meeting at each corner,
/// keyed by the least of the corner's gate width and the portals' keys.
fn links_of(mesh: &NavMesh, t: u32, leaf: &[[u32; 3]], key: &[f32]) -> [Option<Link>; 3] {
    let edges = leaf[t as usize];
    std::array::from_fn(|corner| {
        // Corner `corner` is where edges `corner - 1` and `corner` meet.
        let (a, b) = (edges[(corner + 2) % 3], edges[corner]);
        (a != NONE && b != NONE).then(|| Link {
            key: mesh.widths[t as usize][corner]
                .min(key[a as usize])
                .min(key[b as usize]),
            id: 3 * t + corner as u32,
            a,
            b,
        })
    })
}

/// The indexes keyed by portal: the corridor index and the near-wall lists. An edit
/// keeps the corridor index as it was, with the triangles it changed, for the first
/// query after it to bring up to date (see [`LazyPortalIndexes`]); the near-wall
/// lists are made again, empty.
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
        PortalIndexes::around(Corridors::new(mesh))
    }

    /// The indexes around corridor index `corridors`: its leaves name the near-wall
    /// lists' portals.
    pub(crate) fn around(corridors: Corridors) -> PortalIndexes {
        let near_walls = NearWalls::with_leaves(corridors.leaves().to_vec());
        PortalIndexes {
            corridors,
            near_walls,
        }
    }
}

/// The indexes of an earlier state of a mesh and the triangles changed since (see
/// [`Corridors::updated`]). The near-wall lists are kept only to be dropped with the
/// update, not in the edit.
#[derive(Clone, Debug)]
pub(crate) struct Stale {
    indexes: PortalIndexes,
    changed: Vec<u32>,
}

/// The [`PortalIndexes`] of a mesh: set by a build or a load; an edit keeps the
/// corridor index with the triangles it changed, and the first use after it brings
/// the index up to date (by whichever thread asks first; the result depends on the
/// mesh alone) and makes the near-wall lists again.
pub(crate) type LazyPortalIndexes = super::lazy::Refreshed<PortalIndexes, Stale>;

impl LazyPortalIndexes {
    /// Notes an edit of the mesh (of `triangles` triangles now) that changed the
    /// triangles in `changed` (see [`Corridors::updated`] for what counts): the
    /// indexes are out of date until the next use.
    pub(crate) fn note_edit(&mut self, triangles: usize, changed: impl IntoIterator<Item = u32>) {
        self.edited(|ready, stale| {
            let mut stale = match ready {
                Some(indexes) => Stale {
                    indexes,
                    changed: Vec::new(),
                },
                None => stale?,
            };
            stale.changed.extend(changed);
            // Many edits between uses: the same triangles once each.
            if stale.changed.len() > 2 * triangles + 1024 {
                stale.changed.sort_unstable();
                stale.changed.dedup();
            }
            Some(stale)
        });
    }
}

impl NavMesh {
    /// The corridor index and the near-wall lists, brought up to date on first use
    /// after an edit.
    pub(crate) fn portal_indexes(&self) -> &PortalIndexes {
        self.portals.get(|stale| {
            let corridors = match stale {
                Some(Stale { indexes, changed }) => indexes.corridors.updated(self, changed),
                None => Corridors::new(self),
            };
            PortalIndexes::around(corridors)
        })
    }
}

#[cfg(test)]
impl Corridors {
    /// The first difference between this index and `other`, if any, or whether this
    /// one can be brought up to date after an edit (an index loaded from a file
    /// cannot).
    pub(crate) fn difference(&self, other: &Corridors) -> Option<String> {
        if self.leaf != other.leaf {
            let t = (0..self.leaf.len().max(other.leaf.len()))
                .find(|&t| self.leaf.get(t) != other.leaf.get(t));
            return Some(format!("leaves differ first at triangle {t:?}"));
        }
        let node = (0..self.key.len().max(other.key.len())).find(|&x| {
            self.key.get(x).map(|k| k.to_bits()) != other.key.get(x).map(|k| k.to_bits())
                || self.parent.get(x) != other.parent.get(x)
                || self.jump.get(x) != other.jump.get(x)
        });
        if let Some(x) = node {
            return Some(format!(
                "node {x} differs: key {:?} / {:?}, parent {:?} / {:?}",
                self.key.get(x),
                other.key.get(x),
                self.parent.get(x),
                other.parent.get(x)
            ));
        }
        match (&self.links, &other.links) {
            (Some(a), Some(b)) if a != b => {
                let i = (0..a.len().max(b.len())).find(|&i| a.get(i) != b.get(i));
                Some(format!("links differ first at {i:?}"))
            }
            (Some(_), Some(_)) => None,
            _ => Some("no links to update from".into()),
        }
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
