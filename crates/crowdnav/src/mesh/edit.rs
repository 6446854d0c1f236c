//! Run-time edits of a built mesh: obstacles added, moved and removed in place.
//!
//! An edit re-triangulates only the **region** it touches: the triangles whose
//! bounding boxes meet the obstacle's (the old and the new one for a move), found by a
//! flood across edges from the triangle holding one of its corners. The
//! region's vertices and the edges that must stay (its outline, and every inner edge
//! whose two sides differ in what covers them) go into a small constrained Delaunay
//! triangulation (spade), the added obstacle's edges are inserted with their crossings
//! split, and the faces inside the outline replace the region's triangles.
//!
//! Classification is local and exact: a triangle is walkable when the level as built
//! left it walkable (kept per triangle: walkable, or blocked but [`COVERED`] by added
//! obstacles) and no added obstacle covers it. Triangles never straddle an obstacle's
//! edge (those edges are constraints, and covered triangles are never flipped), so one
//! point-in-polygon test per new triangle against the few obstacles near the region
//! decides it; removing one of several overlapping obstacles leaves the others' cover.
//!
//! Clearance is re-measured only where the change can reach: a gate width at corner
//! `C` is the distance to the nearest wall in its wedge, so only corners whose current
//! width reaches the changed region's bounding box, and the new triangles, are
//! measured again; Kallmann refinement then runs from those. The corners are found
//! among the triangles whose **reach boxes** (each corner, and around a wall corner
//! the square of its gate width; built by a mesh's first edit, kept up to date by the
//! next) meet that box: the boxes are filed on grids (`mesh/reach_index.rs`), so only
//! those filed near the box are tested, then the exact test on the few that pass.
//!
//! Everything else is updated where it changed, or dropped: the wall ends and corner
//! gaps of the vertices around the changed triangles (walking each vertex's fan), the
//! locator's hints in the cells under the change and under moved triangles, the
//! dead-end pockets in the pocket trees that touch the changed triangles. The
//! per-radius corridor index is kept with the triangles whose links may have changed
//! (the changed and moved ones, those re-measured, those around a vertex that starts
//! or stops ending a wall), and the first query that needs it, or
//! [`NavMesh::prepare_queries`], brings it up to date from them (see
//! `mesh::corridors`); the near-wall lists are made again, empty. The game-loop
//! queries' index (walls, wall grid, ray grids, the walk's records, the bitmap of
//! walkable cells, the areas for random points) and the grid of obstacle corners are
//! kept aside likewise, and their first use brings them up to date from what changed
//! (see `mesh/query_update.rs` and `mesh/corner_grid.rs`): to the bit what a build
//! afresh gives. Every edit
//! gives the mesh a fresh identity, so per-mesh memos (keyed by it) never serve stale
//! data. See docs/mesh-edits.md for the cost of each part.

use super::build::incenter;
use super::level::{clean_polygon, signed_area, winding_contribution, LevelError, PolygonRef};
use super::navmesh::{pack_flags, NavMesh, TriangleId, COVERED, NONE};
use super::reach_index::{ReachBox, ReachIndex, EMPTY_BOX};
use super::refine::{relink, remeasure_and_refine, Refined};
use crate::geom::{incircle_value, orient2d, orient2d_value, Segment, MAX_COORDINATE};
use glam::Vec2;
use spade::handles::FixedVertexHandle;
use spade::{ConstrainedDelaunayTriangulation, Point2, Triangulation};
use std::fmt;

/// Names an obstacle added to a [`NavMesh`] with [`NavMesh::add_obstacle`]. Ids are
/// never reused by the mesh that issued them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MeshObstacleId(pub(crate) u32);

impl MeshObstacleId {
    /// The id as a number (0 for the first obstacle a mesh adds, then 1, 2, ...).
    pub fn get(self) -> u32 {
        self.0
    }
}

impl fmt::Display for MeshObstacleId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "obstacle #{}", self.0)
    }
}

/// Why an edit was refused. The mesh is exactly as it was before the call.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum EditError {
    /// A coordinate is NaN or infinite.
    #[error("vertex {vertex} of the obstacle has a coordinate that is NaN or infinite")]
    NonFinite {
        /// 0-based index of the vertex, as given.
        vertex: usize,
    },
    /// Fewer than three distinct, non-collinear corners.
    #[error("the obstacle has fewer than three distinct corners ({corners} after removing duplicate and collinear points)")]
    TooFewPoints {
        /// Corners left after cleaning.
        corners: usize,
    },
    /// The polygon encloses no area.
    #[error("the obstacle has zero area")]
    ZeroArea,
    /// Two edges of the polygon cross or overlap.
    #[error("the obstacle intersects itself: edge {first} meets edge {second}")]
    SelfIntersecting {
        /// 0-based index of the first edge, numbered by its start vertex as given.
        first: usize,
        /// 0-based index of the second edge.
        second: usize,
    },
    /// The polygon lies wholly outside the mesh's triangulated area (the convex hull
    /// of its walls), or a coordinate's magnitude is above 1e7.
    #[error("the obstacle lies outside the mesh (vertex {vertex} at ({x}, {y}))")]
    OutsideMesh {
        /// 0-based index of a vertex outside, as cleaned.
        vertex: usize,
        /// Its x coordinate.
        x: f32,
        /// Its y coordinate.
        y: f32,
    },
    /// No obstacle of this mesh has this id (never added, or removed).
    #[error("{0} is not an obstacle of this mesh (unknown or removed)")]
    UnknownObstacle(MeshObstacleId),
    /// The obstacle's edges cross existing walls so finely near this point that the
    /// crossings cannot be represented at `f32` precision.
    #[error(
        "the obstacle crosses walls too finely near ({x}, {y}) to be represented at f32 precision"
    )]
    Degenerate {
        /// x coordinate.
        x: f32,
        /// y coordinate.
        y: f32,
    },
}

/// An obstacle added at run time: its cleaned corners and bounding box.
#[derive(Clone, Debug)]
pub(crate) struct Added {
    points: Vec<Vec2>,
    lo: Vec2,
    hi: Vec2,
}

impl Added {
    /// `true` when `p` lies inside the polygon (non-zero winding).
    fn contains(&self, p: Vec2) -> bool {
        if p.cmplt(self.lo).any() || p.cmpgt(self.hi).any() {
            return false;
        }
        let n = self.points.len();
        (0..n)
            .map(|i| {
                winding_contribution(&Segment::new(self.points[i], self.points[(i + 1) % n]), p)
            })
            .sum::<i32>()
            != 0
    }

    fn overlaps(&self, lo: Vec2, hi: Vec2) -> bool {
        self.lo.cmple(hi).all() && lo.cmple(self.hi).all()
    }
}

/// The obstacles added to a mesh, by id, and the number of edits made.
#[derive(Clone, Debug, Default)]
pub(crate) struct Obstacles {
    /// Indexed by [`MeshObstacleId`]; `None` once removed.
    list: Vec<Option<Added>>,
    edits: u64,
    /// Per triangle, its [`NavMesh::reach_box`], on grids, for the mesh whose id is
    /// `reach_of`: built by the first edit of a mesh, then kept up to date by each edit.
    reach: ReachIndex,
    reach_of: u64,
    /// The frame of the query index built before the first edit, if one was: kept so
    /// that the index brought up to date and one built afresh lie on the same cells
    /// (see `mesh/query_update.rs`).
    pub(crate) query_frame: Option<super::query::Frame>,
}

type Cdt = ConstrainedDelaunayTriangulation<Point2<f64>>;

/// The hash maps and sets of an edit's region (small integer keys, nothing from the
/// user): hashed by rustc's FxHash instead of SipHash, about 5% of an edit's
/// instructions. Nothing depends on their iteration order.
type FastMap<K, V> = rustc_hash::FxHashMap<K, V>;
type FastSet<K> = rustc_hash::FxHashSet<K>;

/// What covers an old triangle of the region: `None` when the level itself blocks
/// it, else the (sorted) indices of the kept obstacles that cover it.
type State = Option<Vec<u32>>;

impl NavMesh {
    /// Adds an obstacle: the polygon's inside becomes blocked. It may overlap other
    /// obstacles, the level's own obstacles and the level's boundary (the blocked space
    /// is their union), and reach outside the mesh's triangulated area (the part outside
    /// blocks nothing), as a level's obstacles may. Only the
    /// triangles near the polygon are re-triangulated, and only the clearance the
    /// change can reach is measured again (see `docs/mesh-edits.md`).
    ///
    /// # Errors
    /// An [`EditError`] for a polygon with NaN or infinite coordinates, fewer than
    /// three corners, no area or crossing edges, one wholly outside the mesh, or
    /// crossing walls too finely for `f32`. The mesh is then exactly as before.
    ///
    /// # Example
    /// ```
    /// use crowdnav::mesh::{Level, NavMesh};
    /// use glam::Vec2;
    /// let level = Level::from_json(r#"{"boundary": [[0,0],[10,0],[10,10],[0,10]]}"#)?;
    /// let mut mesh = NavMesh::from_level(&level)?;
    /// let (a, b) = (Vec2::new(1.0, 5.0), Vec2::new(9.0, 5.0));
    /// assert!((mesh.find_path(a, b, 0.0)?.length() - 8.0).abs() < 1e-6);
    ///
    /// // A wall across the room, leaving gaps of 0.5 m and 1 m at its ends.
    /// let wall = [[4.0, 0.5], [6.0, 0.5], [6.0, 9.0], [4.0, 9.0]].map(Vec2::from);
    /// let id = mesh.add_obstacle(&wall)?;
    /// assert!(mesh.find_path(a, b, 0.0)?.length() > 8.0);
    /// assert!(mesh.find_path(a, b, 0.6).is_err()); // a 1.2 m body does not fit
    ///
    /// mesh.remove_obstacle(id)?;
    /// assert!((mesh.find_path(a, b, 0.0)?.length() - 8.0).abs() < 1e-6);
    /// assert_eq!(mesh.edit_count(), 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn add_obstacle(&mut self, polygon: &[Vec2]) -> Result<MeshObstacleId, EditError> {
        let added = self.prepare(polygon)?;
        let id = u32::try_from(self.obstacles.list.len())
            .ok()
            .filter(|&i| i < u32::MAX)
            .ok_or(EditError::Degenerate {
                x: f32::NAN,
                y: f32::NAN,
            })?;
        self.apply(None, Some(&added))?;
        self.obstacles.list.push(Some(added));
        Ok(MeshObstacleId(id))
    }

    /// Removes an obstacle that [`NavMesh::add_obstacle`] added: its inside is
    /// walkable again wherever nothing else blocks it.
    ///
    /// # Errors
    /// [`EditError::UnknownObstacle`] when `id` names no obstacle of this mesh (never
    /// added, or already removed). The mesh is then exactly as before.
    pub fn remove_obstacle(&mut self, id: MeshObstacleId) -> Result<(), EditError> {
        let index = self.live(id)?;
        self.apply(Some(index), None)?;
        self.obstacles.list[index as usize] = None;
        Ok(())
    }

    /// Moves (or reshapes) an obstacle: the same as removing it and adding `polygon`,
    /// in one edit that keeps its id.
    ///
    /// # Errors
    /// [`EditError::UnknownObstacle`] for an unknown id, else as
    /// [`NavMesh::add_obstacle`]. The mesh is then exactly as before.
    pub fn move_obstacle(&mut self, id: MeshObstacleId, polygon: &[Vec2]) -> Result<(), EditError> {
        let index = self.live(id)?;
        let added = self.prepare(polygon)?;
        self.apply(Some(index), Some(&added))?;
        self.obstacles.list[index as usize] = Some(added);
        Ok(())
    }

    /// The corners of an added obstacle as kept (duplicate and collinear points
    /// removed), or `None` for an unknown or removed id.
    pub fn obstacle(&self, id: MeshObstacleId) -> Option<&[Vec2]> {
        self.obstacles
            .list
            .get(id.0 as usize)?
            .as_ref()
            .map(|a| a.points.as_slice())
    }

    /// The ids of the added obstacles still in place, in increasing order.
    pub fn obstacle_ids(&self) -> impl Iterator<Item = MeshObstacleId> + '_ {
        self.obstacles
            .list
            .iter()
            .enumerate()
            .filter(|(_, a)| a.is_some())
            .map(|(i, _)| MeshObstacleId(i as u32))
    }

    /// The walls of `base` (the walls this mesh was built from) with every added
    /// obstacle still in place as a clockwise ring: the level the edits stand for.
    /// [`NavMesh::from_walls`] of it gives the mesh a full build would, to compare
    /// against or to start afresh from.
    pub fn edited_walls(&self, base: &super::Walls) -> super::Walls {
        let mut segments = base.segments.clone();
        for ring in self.obstacles.list.iter().flatten() {
            let mut ring = ring.points.clone();
            if signed_area(&ring) > 0.0 {
                ring.reverse();
            }
            for (i, &a) in ring.iter().enumerate() {
                segments.push(Segment::new(a, ring[(i + 1) % ring.len()]));
            }
        }
        super::Walls { segments }
    }

    /// Brings up to date now the search indexes that an edit leaves to the first
    /// query: the per-radius corridor index (its links merged again around the
    /// triangles the edits changed, and its union-find pass run again) and the slots
    /// of the near-wall lists (and builds the dead-end pockets, should they be waiting
    /// too), and the grids that the game-loop queries ([`NavMesh::raycast`],
    /// [`NavMesh::nearest_point`] …) and the path queries' corner checks had built
    /// before the edits (their walls renumbered, their cells patched where the edits
    /// changed the walls). Without this call the first query that needs them after an
    /// edit does it (about 2 ms for a path query, 1 ms for a raycast, on a level of
    /// 70 000 triangles; see `docs/mesh-edits.md`); call it after a batch of edits to
    /// choose when that happens. Does nothing when they are up to date; builds nothing
    /// that was not built.
    pub fn prepare_queries(&self) {
        self.portal_indexes();
        self.pockets();
        self.prepare_query_grids();
    }

    /// How many edits (adds, moves, removes) this mesh has seen since it was built or
    /// loaded.
    pub fn edit_count(&self) -> u64 {
        self.obstacles.edits
    }

    fn live(&self, id: MeshObstacleId) -> Result<u32, EditError> {
        match self.obstacles.list.get(id.0 as usize) {
            Some(Some(_)) => Ok(id.0),
            _ => Err(EditError::UnknownObstacle(id)),
        }
    }

    /// Validates `polygon` and checks it lies inside the mesh.
    fn prepare(&self, polygon: &[Vec2]) -> Result<Added, EditError> {
        let clean = clean_polygon(polygon, PolygonRef::Obstacle(0)).map_err(|e| match e {
            LevelError::NonFinite { vertex, .. } => EditError::NonFinite { vertex },
            LevelError::TooFewPoints { corners, .. } => EditError::TooFewPoints { corners },
            LevelError::SelfIntersecting { first, second, .. } => {
                EditError::SelfIntersecting { first, second }
            }
            _ => EditError::ZeroArea,
        })?;
        let points = clean.points;
        if signed_area(&points) == 0.0 {
            return Err(EditError::ZeroArea);
        }
        let (mut lo, mut hi) = (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY));
        for (vertex, &p) in points.iter().enumerate() {
            if p.abs().max_element() > MAX_COORDINATE {
                return Err(EditError::OutsideMesh {
                    vertex,
                    x: p.x,
                    y: p.y,
                });
            }
            lo = lo.min(p);
            hi = hi.max(p);
        }
        // Corners may lie outside the mesh (the part outside blocks nothing), but the
        // polygon must reach the mesh: a corner in it, or its box over a triangle's.
        let reaches = points.iter().any(|&p| self.locate_any(p).is_some())
            || (0..self.triangles.len()).any(|t| {
                let [a, b, c] = self.triangle_points(TriangleId(t as u32));
                a.min(b).min(c).cmple(hi).all() && lo.cmple(a.max(b).max(c)).all()
            });
        if !reaches {
            return Err(EditError::OutsideMesh {
                vertex: 0,
                x: points[0].x,
                y: points[0].y,
            });
        }
        Ok(Added { points, lo, hi })
    }

    /// The triangle (walkable or blocked) containing `p`, if any.
    fn locate_any(&self, p: Vec2) -> Option<TriangleId> {
        match self.locate(p) {
            super::Location::Walkable(t) | super::Location::Blocked(t) => Some(t),
            super::Location::Outside => None,
        }
    }

    /// Removes obstacle `remove` (if any) and adds `add` (if any), re-triangulating the
    /// region they touch. Everything that can fail is done before the mesh changes.
    fn apply(&mut self, remove: Option<u32>, add: Option<&Added>) -> Result<(), EditError> {
        let old = remove.and_then(|i| self.obstacles.list[i as usize].as_ref());
        let (mut lo, mut hi) = (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY));
        for a in old.into_iter().chain(add) {
            lo = lo.min(a.lo);
            hi = hi.max(a.hi);
        }
        let margin = 1e-3 * (1.0 + (hi - lo).max_element());
        let (lo, hi) = (lo - margin, hi + margin);
        let plan = self.plan(remove, add, lo, hi)?;
        self.commit(plan);
        Ok(())
    }

    /// The new triangulation of the region around `[lo, hi]`, not yet applied.
    fn plan(
        &self,
        remove: Option<u32>,
        add: Option<&Added>,
        lo: Vec2,
        hi: Vec2,
    ) -> Result<Plan, EditError> {
        let n = self.triangles.len();
        // The region: triangles whose bounding box meets [lo, hi], found by a flood
        // across edges from the triangle holding a corner of an obstacle, so that it
        // holds every triangle meeting the box inside the hull (that part of the box is
        // convex, so those triangles are joined by edges).
        let meets = |t: u32| {
            let [a, b, c] = self.triangle_points(TriangleId(t));
            let (tl, th) = (a.min(b).min(c), a.max(b).max(c));
            tl.cmple(hi).all() && lo.cmple(th).all()
        };
        let old = remove.and_then(|i| self.obstacles.list[i as usize].as_ref());
        let seed = add
            .or(old)
            .and_then(|a| a.points.iter().find_map(|&p| self.locate_any(p)))
            .filter(|t| meets(t.0));
        let region: Vec<u32> = match seed {
            Some(seed) => {
                let mut region = vec![seed.0];
                let mut seen: FastSet<u32> = FastSet::default();
                seen.insert(seed.0);
                let mut next = 0;
                while next < region.len() {
                    let t = region[next];
                    next += 1;
                    for nb in self.neighbors[t as usize] {
                        if nb != NONE && meets(nb) && seen.insert(nb) {
                            region.push(nb);
                        }
                    }
                }
                region.sort_unstable();
                region
            }
            None => (0..n as u32).filter(|&t| meets(t)).collect(),
        };
        let (mut rlo, mut rhi) = (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY));
        for &t in &region {
            for p in self.triangle_points(TriangleId(t)) {
                rlo = rlo.min(p);
                rhi = rhi.max(p);
            }
        }
        // Obstacles near the region that stay: their cover is kept as it is.
        let kept: Vec<(u32, &Added)> = self
            .obstacles
            .list
            .iter()
            .enumerate()
            .filter_map(|(i, a)| Some((i as u32, a.as_ref()?)))
            .filter(|&(i, a)| Some(i) != remove && a.overlaps(rlo, rhi))
            .collect();
        let state = |t: u32| -> State {
            let f = self.flags[t as usize];
            if !self.is_walkable(TriangleId(t)) && f & COVERED == 0 {
                return None;
            }
            let p = incenter(self.triangle_points(TriangleId(t)));
            Some(
                kept.iter()
                    .filter(|(_, a)| a.contains(p))
                    .map(|&(i, _)| i)
                    .collect(),
            )
        };
        let states: Vec<State> = region.iter().map(|&t| state(t)).collect();
        let position = |t: u32| region.binary_search(&t).ok();

        let degenerate = |p: Vec2| EditError::Degenerate { x: p.x, y: p.y };
        // The outline (with what lies across it) and the inner edges that must stay:
        // those whose two sides differ in what covers them.
        let mut outline_edges: Vec<([u32; 2], u32, usize)> = Vec::new();
        let mut constraints: Vec<[u32; 2]> = Vec::new();
        for (i, &t) in region.iter().enumerate() {
            let tv = self.triangles[t as usize];
            for e in 0..3 {
                let (u, v) = (tv[e], tv[(e + 1) % 3]);
                let nb = self.neighbors[t as usize][e];
                match (nb != NONE).then(|| position(nb)) {
                    Some(Some(j)) => {
                        if t < nb && states[i] != states[j] {
                            constraints.push([u, v]);
                        }
                    }
                    _ => {
                        let back = if nb == NONE {
                            0
                        } else {
                            self.edge_toward(nb, t)
                                .ok_or(degenerate(self.vertices[u as usize]))?
                        };
                        outline_edges.push(([u, v], nb, back));
                        constraints.push([u, v]);
                    }
                }
            }
        }
        // Only the vertices those edges need: the corners of a removed obstacle, and
        // vertices left in open space, go.
        let mut region_vertices: Vec<u32> = constraints.iter().flatten().copied().collect();
        region_vertices.sort_unstable();
        region_vertices.dedup();
        let mut cdt = Cdt::new();
        let mut handle_of: FastMap<u32, FixedVertexHandle> = FastMap::default();
        let mut vertex_of: Vec<u32> = Vec::new(); // by spade handle index
        for &v in &region_vertices {
            let p = self.vertices[v as usize];
            let h = cdt
                .insert(Point2::new(f64::from(p.x), f64::from(p.y)))
                .map_err(|_| degenerate(p))?;
            if h.index() != vertex_of.len() {
                return Err(degenerate(p)); // merged with another vertex
            }
            vertex_of.push(v);
            handle_of.insert(v, h);
        }
        let mut outline: FastMap<(usize, usize), (u32, usize)> = FastMap::default();
        for ([u, v], nb, back) in outline_edges {
            outline.insert((handle_of[&u].index(), handle_of[&v].index()), (nb, back));
        }
        for [u, v] in constraints {
            let (hu, hv) = (handle_of[&u], handle_of[&v]);
            if !cdt.can_add_constraint(hu, hv) {
                return Err(degenerate(self.vertices[u as usize]));
            }
            cdt.add_constraint(hu, hv);
        }
        // The added obstacle's edges, crossings split and rounded to f32.
        if let Some(a) = add {
            let mut corners = Vec::with_capacity(a.points.len());
            for &p in &a.points {
                let h = cdt
                    .insert(Point2::new(f64::from(p.x), f64::from(p.y)))
                    .map_err(|_| degenerate(p))?;
                corners.push(h);
            }
            let k = corners.len();
            for i in 0..k {
                let (from, to) = (corners[i], corners[(i + 1) % k]);
                if from != to {
                    cdt.add_constraint_and_split(from, to, |p| {
                        Point2::new(f64::from(p.x as f32), f64::from(p.y as f32))
                    });
                }
            }
        }
        // The outline must have survived, but for the mesh's outer edges that an
        // obstacle reaching outside the mesh crosses: those are split where it crosses
        // them, and their pieces are the outline there.
        let mut starts = Vec::with_capacity(outline.len());
        let mut keys: Vec<(usize, usize)> = outline.keys().copied().collect();
        keys.sort_unstable();
        let mut pieces_of_split = Vec::new();
        for &(u, v) in &keys {
            let pieces = match cdt.get_edge_from_neighbors(
                FixedVertexHandle::from_index(u),
                FixedVertexHandle::from_index(v),
            ) {
                Some(_) => vec![(u, v)],
                None if outline[&(u, v)].0 == NONE => {
                    let pieces = split_pieces(&cdt, u, v)
                        .ok_or(degenerate(self.vertices[vertex_of[u] as usize]))?;
                    pieces_of_split.extend(pieces.iter().copied());
                    pieces
                }
                None => return Err(degenerate(self.vertices[vertex_of[u] as usize])),
            };
            for (a, b) in pieces {
                let e = cdt
                    .get_edge_from_neighbors(
                        FixedVertexHandle::from_index(a),
                        FixedVertexHandle::from_index(b),
                    )
                    .ok_or(degenerate(self.vertices[vertex_of[u] as usize]))?;
                let Some(inside) = e.face().as_inner() else {
                    return Err(degenerate(self.vertices[vertex_of[u] as usize]));
                };
                starts.push(inside.fix());
            }
        }
        for piece in pieces_of_split {
            outline.insert(piece, (NONE, 0));
        }
        // The faces inside the outline, by a flood from it.
        let mut face_number: FastMap<usize, u32> = FastMap::default();
        let mut faces = Vec::new();
        for f in starts {
            if face_number.contains_key(&f.index()) {
                continue;
            }
            face_number.insert(f.index(), faces.len() as u32);
            faces.push(f);
            let mut next = faces.len() - 1;
            while next < faces.len() {
                let face = cdt.face(faces[next]);
                next += 1;
                for e in face.adjacent_edges() {
                    let key = (e.from().fix().index(), e.to().fix().index());
                    if outline.contains_key(&key) {
                        continue;
                    }
                    let other = e.rev().face();
                    let Some(inner) = other.as_inner() else {
                        return Err(degenerate(self.vertices[vertex_of[0] as usize]));
                    };
                    if let std::collections::hash_map::Entry::Vacant(slot) =
                        face_number.entry(inner.fix().index())
                    {
                        slot.insert(faces.len() as u32);
                        faces.push(inner.fix());
                    }
                }
            }
        }
        // New vertices (corners and crossings of the added obstacle).
        let mut new_vertices = Vec::new();
        for h in vertex_of.len()..cdt.num_vertices() {
            let p = cdt.vertex(FixedVertexHandle::from_index(h)).position();
            new_vertices.push(Vec2::new(p.x as f32, p.y as f32));
        }
        let position_of = |h: usize| -> Vec2 {
            if h < vertex_of.len() {
                self.vertices[vertex_of[h] as usize]
            } else {
                new_vertices[h - vertex_of.len()]
            }
        };
        let first_new = self.vertices.len() as u32;
        let vertex_id = |h: usize| -> u32 {
            if h < vertex_of.len() {
                vertex_of[h]
            } else {
                first_new + (h - vertex_of.len()) as u32
            }
        };
        let after: Vec<&Added> = kept.iter().map(|&(_, a)| a).chain(add).collect();
        let mut new = Vec::with_capacity(faces.len());
        for &f in &faces {
            let face = cdt.face(f);
            let edges = face.adjacent_edges();
            let hs = edges.map(|e| e.from().fix().index());
            let pts = hs.map(position_of);
            if !orient2d(pts[0], pts[1], pts[2]).is_ccw() {
                return Err(degenerate(pts[0]));
            }
            let links = edges.map(|e| {
                let key = (e.from().fix().index(), e.to().fix().index());
                match outline.get(&key) {
                    Some(&(nb, back)) => Link::Outside(nb, back),
                    None => Link::Inside(face_number[&e.rev().face().fix().index()]),
                }
            });
            let p = incenter(pts);
            // The level's own cover, from the old triangle the new one lies in.
            let host = region
                .iter()
                .position(|&t| {
                    let [a, b, c] = self.triangle_points(TriangleId(t));
                    orient2d_value(a, b, p) >= 0.0
                        && orient2d_value(b, c, p) >= 0.0
                        && orient2d_value(c, a, p) >= 0.0
                })
                .ok_or(degenerate(p))?;
            let walkable_before_edits = states[host].is_some();
            let covered = walkable_before_edits && after.iter().any(|a| a.contains(p));
            new.push(NewTriangle {
                vertices: hs.map(vertex_id),
                links,
                walkable: walkable_before_edits && !covered,
                covered,
                area: 0.5 * orient2d_value(pts[0], pts[1], pts[2]),
            });
        }
        let old_walkable_area = region
            .iter()
            .filter(|&&t| self.is_walkable(TriangleId(t)))
            .map(|&t| {
                let [a, b, c] = self.triangle_points(TriangleId(t));
                0.5 * orient2d_value(a, b, c)
            })
            .sum();
        // (Corners of an obstacle outside the mesh are in no new triangle.)
        let (mut clo, mut chi) = (rlo, rhi);
        for t in &new {
            for v in t.vertices {
                if v >= first_new {
                    let p = new_vertices[(v - first_new) as usize];
                    clo = clo.min(p);
                    chi = chi.max(p);
                }
            }
        }
        Ok(Plan {
            region,
            new,
            new_vertices,
            old_walkable_area,
            changed: (clo, chi),
        })
    }

    /// Applies a plan: cannot fail.
    fn commit(&mut self, plan: Plan) {
        let Plan {
            region,
            new,
            new_vertices,
            old_walkable_area,
            changed,
        } = plan;
        let triangles_before = self.triangles.len();
        // The vertices of the old triangles, whose wall ends and gaps may change.
        let mut old_vertices: Vec<u32> = region
            .iter()
            .flat_map(|&t| self.triangles[t as usize])
            .collect();
        old_vertices.sort_unstable();
        old_vertices.dedup();
        self.vertices.extend_from_slice(&new_vertices);
        // Slots: the region's ids, then new ones.
        let mut ids: Vec<u32> = region.iter().copied().take(new.len()).collect();
        while ids.len() < new.len() {
            ids.push(self.triangles.len() as u32);
            self.triangles.push([0; 3]);
            self.neighbors.push([NONE; 3]);
            self.flags.push(0);
            self.widths.push([0.0; 3]);
        }
        for (i, t) in new.iter().enumerate() {
            let id = ids[i] as usize;
            self.triangles[id] = t.vertices;
            self.widths[id] = [0.0; 3];
            for e in 0..3 {
                self.neighbors[id][e] = match t.links[e] {
                    Link::Inside(j) => ids[j as usize],
                    Link::Outside(nb, back) => {
                        if nb != NONE {
                            self.neighbors[nb as usize][back] = id as u32;
                        }
                        nb
                    }
                };
            }
        }
        let mut area = self.walkable_area - old_walkable_area;
        for (i, t) in new.iter().enumerate() {
            let id = ids[i] as usize;
            let walls: [bool; 3] = std::array::from_fn(|e| {
                let nb = self.neighbors[id][e];
                let other = nb != NONE
                    && match t.links[e] {
                        Link::Inside(j) => new[j as usize].walkable,
                        Link::Outside(..) => self.is_walkable(TriangleId(nb)),
                    };
                t.walkable != other
            });
            self.flags[id] = pack_flags(t.walkable, walls) | if t.covered { COVERED } else { 0 };
            if t.walkable {
                area += t.area;
            }
        }
        for t in &new {
            for e in 0..3 {
                if let Link::Outside(nb, back) = t.links[e] {
                    if nb != NONE {
                        let wall = self.is_walkable(TriangleId(nb)) != t.walkable;
                        let bit = 2u8 << back;
                        let f = &mut self.flags[nb as usize];
                        *f = if wall { *f | bit } else { *f & !bit };
                    }
                }
            }
        }
        self.walkable_area = area;
        // Fewer triangles than before: move the last ones into the freed slots.
        let mut new_ids = ids;
        let mut moved: Vec<(u32, u32)> = Vec::new();
        let freed: Vec<u32> = region.iter().copied().skip(new.len()).collect();
        if !freed.is_empty() {
            let len = self.triangles.len() - freed.len();
            let holes = freed.iter().copied().filter(|&f| (f as usize) < len);
            let movers = (len as u32..self.triangles.len() as u32)
                .filter(|t| freed.binary_search(t).is_err());
            for (dst, src) in holes.zip(movers.collect::<Vec<_>>()) {
                self.move_triangle(src, dst);
                moved.push((src, dst));
                if let Some(x) = new_ids.iter_mut().find(|x| **x == src) {
                    *x = dst;
                }
            }
            self.triangles.truncate(len);
            self.neighbors.truncate(len);
            self.flags.truncate(len);
            self.widths.truncate(len);
        }
        // Restore the Delaunay property across the outline and inside: flip every
        // open edge whose two sides are alike and that fails the circle test.
        let mut suspect: Vec<(u32, usize)> = new_ids
            .iter()
            .flat_map(|&t| (0..3).map(move |e| (t, e)))
            .collect();
        let mut budget = 64 * suspect.len() + 1024;
        while let Some((t, e)) = suspect.pop() {
            if budget == 0 {
                break;
            }
            budget -= 1;
            if let Some(u) = self.flip_if_illegal(t, e) {
                new_ids.extend([t, u]);
                suspect.extend([(t, 0), (t, 1), (u, 0), (u, 1)]);
            }
        }
        new_ids.sort_unstable();
        new_ids.dedup();
        // Wall ends: the vertices of the old and the new triangles (walls changed only
        // on their edges), each from a new triangle around it; a vertex no triangle
        // uses any more ends no wall.
        self.obstacle_vertex.resize(self.vertices.len(), false);
        let mut around: Vec<(u32, u32)> = new_ids
            .iter()
            .flat_map(|&t| self.triangles[t as usize].map(|v| (v, t)))
            .collect();
        around.sort_unstable();
        around.dedup_by_key(|&mut (v, _)| v);
        for &v in &old_vertices {
            if around.binary_search_by_key(&v, |&(v, _)| v).is_err() {
                self.obstacle_vertex[v as usize] = false;
                self.corner_gap[v as usize] = 0.0;
            }
        }
        // The triangles whose links in the corridor index may change: the region's
        // slots, the new and moved ones, and around every vertex that starts or stops
        // ending a wall (its portals' keys change); the rest are added below.
        let mut relinked: Vec<u32> = region.clone();
        relinked.extend(&new_ids);
        relinked.extend(moved.iter().map(|&(_, dst)| dst));
        let mut ends_changed: Vec<(u32, u32)> = Vec::new();
        for &(v, t) in &around {
            let ends = self.ends_wall(v, t);
            if ends != self.obstacle_vertex[v as usize] {
                self.obstacle_vertex[v as usize] = ends;
                self.for_each_around(v, t, |u, _| relinked.push(u));
                ends_changed.push((v, t));
            }
        }
        // Clearance: the new triangles, and every corner whose width reaches the
        // changed box (its nearest wall may have moved, or a nearer one appeared),
        // found among the triangles whose reach boxes meet it.
        let (clo, chi) = changed;
        let mut reach = std::mem::take(&mut self.obstacles.reach);
        if self.obstacles.reach_of == self.id && reach.len() == triangles_before {
            for &(src, dst) in &moved {
                reach.set(dst, reach.get(src));
            }
            reach.resize(self.triangles.len());
            // Walkability and widths changed in the new triangles only, wall ends at
            // some of their vertices: every other box is as it was (checked below).
            for &t in &new_ids {
                reach.set(t, self.reach_box(t));
            }
            for &(v, t) in &ends_changed {
                self.for_each_around(v, t, |u, _| reach.set(u, self.reach_box(u)));
            }
        } else {
            let (mut lo, mut hi) = (Vec2::INFINITY, Vec2::NEG_INFINITY);
            for &p in &self.vertices {
                lo = lo.min(p);
                hi = hi.max(p);
            }
            let boxes = (0..self.triangles.len() as u32)
                .map(|t| self.reach_box(t))
                .collect();
            reach = ReachIndex::new(lo, hi, boxes);
        }
        let reaches = |t: usize| {
            self.is_walkable(TriangleId(t as u32))
                && (0..3).any(|k| {
                    let c = self.vertices[self.triangles[t][k] as usize];
                    let d = c.clamp(clo, chi).distance(c);
                    d == 0.0
                        || (self.obstacle_vertex[self.triangles[t][k] as usize]
                            && d <= self.widths[t][k] * (1.0 + 1e-6) + 1e-6)
                })
        };
        let meeting = reach.meeting(clo, chi);
        // The grid finds exactly what a test of every box finds (checked by the tests
        // and debug builds).
        if cfg!(any(test, debug_assertions)) {
            assert_eq!(meeting, reach.meeting_every(clo, chi), "reach grid");
        }
        let mut dirty: Vec<u32> = meeting
            .into_iter()
            .filter(|&t| reaches(t as usize))
            .collect();
        dirty.extend(&new_ids);
        dirty.sort_unstable();
        dirty.dedup();
        // Their widths as they were: most come out the same.
        let bits = |w: [f32; 3]| w.map(f32::to_bits);
        let before: Vec<(u32, [u32; 3])> = dirty
            .iter()
            .map(|&t| (t, bits(self.widths[t as usize])))
            .collect();
        let Refined { measured, reshaped } = remeasure_and_refine(self, dirty);
        reach.resize(self.triangles.len());
        for &t in &measured {
            reach.set(t, self.reach_box(t));
        }
        #[cfg(test)]
        {
            reach.check();
            let bits = |b: ReachBox| b.map(|c| c.to_array().map(f32::to_bits));
            for t in 0..self.triangles.len() as u32 {
                assert_eq!(bits(reach.get(t)), bits(self.reach_box(t)), "reach box {t}");
            }
        }
        // Corner gaps: the vertices of every triangle whose widths or walls changed
        // (walls and walkability change in the new triangles and on their edges, and
        // in those the refinement made or changed).
        self.corner_gap.resize(self.vertices.len(), 0.0);
        around.clear();
        let widened = before
            .iter()
            .filter(|&&(t, w)| bits(self.widths[t as usize]) != w)
            .map(|&(t, _)| t);
        around.extend(
            widened
                .chain(new_ids.iter().copied())
                .chain(reshaped.iter().copied())
                .flat_map(|t| self.triangles[t as usize].map(|v| (v, t))),
        );
        around.sort_unstable();
        around.dedup_by_key(|&mut (v, _)| v);
        for &(v, t) in &around {
            self.corner_gap[v as usize] = self.corner_gap_at(v, t);
        }
        // The pockets, around the changed triangles; the corridor index, for the
        // first query to bring up to date from the triangles whose links may change
        // (those above, and every re-measured or reshaped one, and their neighbours).
        let mut changed = reshaped;
        changed.extend(&new_ids);
        changed.sort_unstable();
        changed.dedup();
        relinked.extend(&changed);
        relinked.extend(&measured);
        self.portals.note_edit(self.triangles.len(), relinked);
        if let Some(mut pockets) = self.pockets.take() {
            // The triangles whose corners, neighbours or walkability changed.
            pockets.update(self, &changed, &moved);
            self.pockets.put(pockets);
        }
        self.corner_grid.keep_aside();
        self.query_index_edited();
        let start = new_ids.first().copied().unwrap_or(0);
        let mut locator = std::mem::take(&mut self.locator);
        locator.update(self, clo, chi, &moved, start);
        self.locator = locator;
        self.id = super::navmesh::fresh_mesh_id();
        self.obstacles.reach = reach;
        self.obstacles.reach_of = self.id;
        self.obstacles.edits += 1;
    }

    /// The box an edit's changed box must meet for walkable triangle `t` to be
    /// measured again: it holds each corner and, around a corner ending a wall, the
    /// square of half-side its gate width, grown a little so that rounding never
    /// leaves out a corner the exact test in `commit` would take. Empty for a blocked
    /// triangle.
    fn reach_box(&self, t: u32) -> ReachBox {
        let [mut lo, mut hi] = EMPTY_BOX;
        if self.is_walkable(TriangleId(t)) {
            for (k, &v) in self.triangles[t as usize].iter().enumerate() {
                let c = self.vertices[v as usize];
                let r = if self.obstacle_vertex[v as usize] {
                    let w = self.widths[t as usize][k];
                    (w * (1.0 + 1e-6) + 1e-6) * (1.0 + 1e-5) + 1e-5 * (1.0 + c.abs().max_element())
                } else {
                    0.0
                };
                lo = lo.min(c - r);
                hi = hi.max(c + r);
            }
        }
        [lo, hi]
    }

    /// Flips edge `e` of `t` when it is open (not a wall), both sides are alike
    /// (walkable, or blocked by the level and not covered) and the vertex across lies
    /// inside `t`'s circumcircle. Returns the triangle across, now sharing the new
    /// diagonal as edge 2 of both.
    fn flip_if_illegal(&mut self, t: u32, e: usize) -> Option<u32> {
        let ti = t as usize;
        let u = self.neighbors[ti][e];
        if u == NONE || self.is_wall(TriangleId(t), e) {
            return None;
        }
        let ui = u as usize;
        let (ft, fu) = (self.flags[ti], self.flags[ui]);
        if (ft | fu) & COVERED != 0
            || self.is_walkable(TriangleId(t)) != self.is_walkable(TriangleId(u))
        {
            return None;
        }
        let k = self.edge_toward(u, t)?;
        let tv = self.triangles[ti];
        let (a, b, x) = (tv[e], tv[(e + 1) % 3], tv[(e + 2) % 3]);
        let d = self.triangles[ui][(k + 2) % 3];
        let pos = |v: u32| self.vertices[v as usize];
        if incircle_value(pos(a), pos(b), pos(x), pos(d)) <= 0.0
            || !orient2d(pos(x), pos(a), pos(d)).is_ccw()
            || !orient2d(pos(d), pos(b), pos(x)).is_ccw()
        {
            return None;
        }
        let (n_bc, n_ca) = (
            self.neighbors[ti][(e + 1) % 3],
            self.neighbors[ti][(e + 2) % 3],
        );
        let (n_ad, n_db) = (
            self.neighbors[ui][(k + 1) % 3],
            self.neighbors[ui][(k + 2) % 3],
        );
        let wall = |m: &NavMesh, t: u32, i: usize| m.is_wall(TriangleId(t), i);
        let (t_ca, t_bc) = (wall(self, t, (e + 2) % 3), wall(self, t, (e + 1) % 3));
        let (u_ad, u_db) = (wall(self, u, (k + 1) % 3), wall(self, u, (k + 2) % 3));
        let walkable = self.is_walkable(TriangleId(t));
        self.triangles[ti] = [x, a, d];
        self.neighbors[ti] = [n_ca, n_ad, u];
        self.flags[ti] = pack_flags(walkable, [t_ca, u_ad, false]);
        self.triangles[ui] = [d, b, x];
        self.neighbors[ui] = [n_db, n_bc, t];
        self.flags[ui] = pack_flags(walkable, [u_db, t_bc, false]);
        relink(self, n_ad, u, t);
        relink(self, n_bc, t, u);
        Some(u)
    }

    /// Moves triangle `src` to slot `dst` (whose content is discarded), relinking its
    /// neighbours.
    fn move_triangle(&mut self, src: u32, dst: u32) {
        let (s, d) = (src as usize, dst as usize);
        self.triangles[d] = self.triangles[s];
        self.neighbors[d] = self.neighbors[s];
        self.flags[d] = self.flags[s];
        self.widths[d] = self.widths[s];
        for e in 0..3 {
            let nb = self.neighbors[d][e];
            if nb != NONE {
                for link in &mut self.neighbors[nb as usize] {
                    if *link == src {
                        *link = dst;
                    }
                }
            }
        }
    }
}

/// What lies across an edge of a new triangle.
#[derive(Clone, Copy)]
enum Link {
    /// Another new triangle, by number.
    Inside(u32),
    /// A triangle outside the region (or `NONE`) and its edge index.
    Outside(u32, usize),
}

struct NewTriangle {
    vertices: [u32; 3],
    links: [Link; 3],
    walkable: bool,
    covered: bool,
    area: f64,
}

/// A re-triangulated region, checked and ready to apply.
/// The pieces, in order, of the constrained edge `u → v` of `cdt` (vertex handle
/// indices) as constraints crossing it split it: each piece a constraint edge between
/// consecutive vertices on the segment (within rounding). `None` when no such chain
/// leads from `u` to `v`.
fn split_pieces(cdt: &Cdt, u: usize, v: usize) -> Option<Vec<(usize, usize)>> {
    let at = |h: usize| {
        let p = cdt.vertex(FixedVertexHandle::from_index(h)).position();
        glam::DVec2::new(p.x, p.y)
    };
    let (pu, pv) = (at(u), at(v));
    let d = pv - pu;
    let len2 = d.length_squared();
    if len2 == 0.0 {
        return None;
    }
    // Crossings rounded to f32 lie within a few f32 ulps of the segment.
    let slack = 1e-5 * (1.0 + pu.abs().max_element().max(pv.abs().max_element()));
    let mut pieces = Vec::new();
    let (mut here, mut t_here) = (u, 0.0);
    while here != v {
        let mut best: Option<(f64, usize)> = None;
        for e in cdt.vertex(FixedVertexHandle::from_index(here)).out_edges() {
            if !cdt.is_constraint_edge(e.as_undirected().fix()) {
                continue;
            }
            let w = e.to().fix().index();
            let q = at(w) - pu;
            let t = q.dot(d) / len2;
            let off = (q.perp_dot(d)).abs() / len2.sqrt();
            if t > t_here && t <= 1.0 + 1e-12 && off <= slack && best.is_none_or(|(b, _)| t < b) {
                best = Some((t, w));
            }
        }
        let (t, w) = best?;
        pieces.push((here, w));
        (here, t_here) = (w, t);
        if pieces.len() > cdt.num_vertices() {
            return None;
        }
    }
    Some(pieces)
}

struct Plan {
    /// The old triangles, sorted.
    region: Vec<u32>,
    new: Vec<NewTriangle>,
    new_vertices: Vec<Vec2>,
    old_walkable_area: f64,
    /// Bounding box of every vertex of the old and new region.
    changed: (Vec2, Vec2),
}
