//! Mesh edits while the world runs: [`World::add_mesh_obstacle`],
//! [`World::move_mesh_obstacle`] and [`World::remove_mesh_obstacle`] edit the world's
//! own mesh in place ([`NavMesh::add_obstacle`] and the others: a local
//! re-triangulation, no rebuild) between steps, and the crowd follows.
//!
//! **Who re-plans.** An edit blocks the space inside an added obstacle and frees the
//! space inside a removed one (a move does both). Every agent's *route* is what it
//! still has to walk: from where it stands through its remaining waypoints (the
//! path's tangent points, arcs split into chords) to its goal, and, with portal
//! steering, across the openings of the doors ahead of it.
//!
//! - *Added space blocked:* free space only shrinks, so a path the edit leaves free
//!   is still the shortest. An agent re-plans when its route, swept by its disc (its
//!   radius, grown by the chords' 3.5 % sag and a millimetre), meets the new polygon;
//!   with portal steering, also when the polygon meets the triangles between the
//!   route and a door's opening ahead (the agent heads for any point of the opening).
//! - *Space freed:* every path stays free, but a shorter one may appear, and not only
//!   for agents whose route passes near the freed polygon: a wall taken down can open
//!   a short cut for an agent walking round the far end of the level. A new path must
//!   bring the disc's centre within its radius `r` of the freed polygon `B`, so it is
//!   at least `max(0, d(p, B) - r) + max(0, d(g, B) - r)` long, `p` the agent's
//!   position and `g` its route's end. An agent re-plans when that bound is shorter
//!   than its remaining route (the chords' length grown by 1.2 %, which bounds the
//!   arcs they stand for); the others cannot gain. Agents whose goal was out of reach
//!   (heading for the nearest point they can reach) and agents without a path
//!   re-plan on every removal: what they can reach may have grown anywhere.
//!   These re-plans are not urgent, as every path stays free: they are spread over
//!   the steps, at most [`IMPROVE_PER_STEP`] a step in agent order
//!   ([`MeshEdit::improving`]), each agent following its path meanwhile. On a
//!   level the size of aurora with a thousand agents, a removal gives about 200 of
//!   them a chance of a short cut; planning them all in the next step made it take
//!   up to a second.
//!
//! **Who is moved.** An agent whose centre a new obstacle covers, or whose disc no
//! longer fits where it stands, is moved to the nearest place its disc fits
//! (a radius off the nearest wall side or corner, found through the world's wall grid:
//! local, unlike [`NavMesh::nearest_point`], whose per-radius data the first call at
//! a radius builds over the whole mesh, then brings up to date near each edit) that
//! overlaps no other agent and
//! no moving obstacle: the nearest such place among candidates on rings around the
//! first (half a radius apart, up to [`RINGS`] radii out, each snapped off the walls
//! near it), agent by agent in agent order, each placed agent a fixed body for the
//! next. Where no such place is found, it goes to the nearest place
//! it fits and the step's contacts part it from the others. A door closing on a queue
//! so leaves nobody inside the door and nobody overlapping. A moved agent re-plans.
//!
//! Everything here runs between steps, in agent order or as a per-agent map, so the
//! world gives the same bits whatever the thread count.

use super::agent::{Agent, AgentId, AgentState};
use super::index::Walls;
use super::params::WorldError;
use super::step::World;
#[cfg(doc)]
use super::IMPROVE_PER_STEP;
use crate::geom::{point_in_triangle, segments_distance_squared_f64, Segment};
use crate::mesh::{EditError, Location, MeshObstacleId, NavMesh};
use glam::Vec2;
use rayon::prelude::*;

/// How many radii out from the nearest free place a caught agent's new place is
/// searched for, clear of the others.
const RINGS: usize = 8;

/// How much further than its radius an agent's route reaches: the chords standing
/// for arcs sag inside them by at most `1 - cos 15°` of the radius (arcs are split
/// every 30°), under 3.5 %.
const CHORD_SAG: f32 = 1.035;

/// How much longer than their chords the arcs of a route can be: `(θ/2) / sin(θ/2)`
/// for chords of at most 30°, under 1.2 %.
const ARC_OVER_CHORD: f32 = 1.012;

/// What a mesh edit did to the crowd: the obstacle it changed, who plans again at
/// the next step because of it, who may find a shorter path, and who it moved.
#[derive(Clone, Debug, PartialEq)]
pub struct MeshEdit {
    /// The mesh obstacle added, moved or removed.
    pub obstacle: MeshObstacleId,
    /// The agents that plan their path again at the next step because of the edit
    /// (the moved ones included), in agent order. Agents already waiting to plan are
    /// not listed.
    pub replanning: Vec<AgentId>,
    /// The agents to which the space the edit freed may give a shorter path, in agent
    /// order: they plan again over the next steps, at most [`IMPROVE_PER_STEP`] a
    /// step in agent order, following their paths (still free) meanwhile. Agents
    /// listed in `replanning`, or already waiting to plan, are not listed.
    pub improving: Vec<AgentId>,
    /// The agents the edit caught (inside the new obstacle, or without room for their
    /// disc), moved to the nearest place they fit, in agent order.
    pub moved: Vec<AgentId>,
}

impl World {
    /// Adds an obstacle to the world's mesh, in place ([`NavMesh::add_obstacle`]): the
    /// agents whose route it blocks re-plan at the next step, and agents it caught are
    /// moved out (see the docs of `world/edits.rs`).
    ///
    /// # Errors
    /// [`WorldError::NoMesh`] for a world on open ground; [`WorldError::Edit`] for a
    /// polygon the mesh refuses (NaN, degenerate, crossing itself, outside the mesh).
    /// The world is then unchanged.
    ///
    /// # Example
    /// ```
    /// use crowdnav::mesh::{Level, NavMesh};
    /// use crowdnav::world::{AgentParams, World, WorldParams};
    /// use crowdnav::Orca;
    /// use glam::Vec2;
    /// let level = Level::from_json(r#"{"boundary": [[0,0],[20,0],[20,10],[0,10]]}"#)?;
    /// let mesh = NavMesh::from_level(&level)?;
    /// let mut world = World::new(Some(mesh), Box::new(Orca::default()), WorldParams::default());
    /// let id = world.add_agent(AgentParams::new(Vec2::new(2.0, 5.0), Vec2::new(18.0, 5.0)))?;
    /// world.step(0.1)?;
    /// // A crate drops across its way, and another on top of where it stands.
    /// let crate_ = [[9.0, 3.0], [11.0, 3.0], [11.0, 7.0], [9.0, 7.0]].map(Vec2::from);
    /// let edit = world.add_mesh_obstacle(&crate_)?;
    /// assert_eq!(edit.replanning, vec![id]);
    /// let here = world.agent(id).map(|a| a.position).unwrap_or_default();
    /// let on_it = [[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]].map(|p| Vec2::from(p) + here);
    /// let edit = world.add_mesh_obstacle(&on_it)?;
    /// assert_eq!(edit.moved, vec![id]);
    /// world.remove_mesh_obstacle(edit.obstacle)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn add_mesh_obstacle(&mut self, polygon: &[Vec2]) -> Result<MeshEdit, WorldError> {
        let mesh = self.mesh.as_mut().ok_or(WorldError::NoMesh)?;
        let id = mesh.add_obstacle(polygon)?;
        let added = mesh.obstacle(id).map(<[Vec2]>::to_vec).unwrap_or_default();
        Ok(self.follow_edit(id, None, Some(&added)))
    }

    /// Moves (or reshapes) an obstacle of the world's mesh
    /// ([`NavMesh::move_obstacle`]): as removing it and adding `polygon`, in one edit.
    ///
    /// # Errors
    /// [`WorldError::NoMesh`] for a world on open ground; [`WorldError::Edit`] for an
    /// unknown id or a polygon the mesh refuses. The world is then unchanged.
    pub fn move_mesh_obstacle(
        &mut self,
        id: MeshObstacleId,
        polygon: &[Vec2],
    ) -> Result<MeshEdit, WorldError> {
        let mesh = self.mesh.as_mut().ok_or(WorldError::NoMesh)?;
        let old = mesh.obstacle(id).map(<[Vec2]>::to_vec);
        mesh.move_obstacle(id, polygon)?;
        let new = mesh.obstacle(id).map(<[Vec2]>::to_vec).unwrap_or_default();
        Ok(self.follow_edit(id, old.as_deref(), Some(&new)))
    }

    /// Removes an obstacle from the world's mesh ([`NavMesh::remove_obstacle`]): the
    /// agents that may now find a shorter path re-plan over the next steps
    /// ([`MeshEdit::improving`]).
    ///
    /// # Errors
    /// [`WorldError::NoMesh`] for a world on open ground; [`WorldError::Edit`] for an
    /// id naming no obstacle of the mesh (never added, or removed). The world is then
    /// unchanged.
    pub fn remove_mesh_obstacle(&mut self, id: MeshObstacleId) -> Result<MeshEdit, WorldError> {
        let mesh = self.mesh.as_mut().ok_or(WorldError::NoMesh)?;
        let old = mesh
            .obstacle(id)
            .map(<[Vec2]>::to_vec)
            .ok_or(WorldError::Edit(EditError::UnknownObstacle(id)))?;
        mesh.remove_obstacle(id)?;
        Ok(self.follow_edit(id, Some(&old), None))
    }

    /// After the mesh was edited (`removed`'s space freed, `added`'s blocked): the
    /// walls, who re-plans, who is moved.
    fn follow_edit(
        &mut self,
        obstacle: MeshObstacleId,
        removed: Option<&[Vec2]>,
        added: Option<&[Vec2]>,
    ) -> MeshEdit {
        if let Some(mesh) = self.mesh.as_ref() {
            self.walls.follow(mesh);
        }
        let Some(mesh) = self.mesh.as_ref() else {
            return MeshEdit {
                obstacle,
                replanning: Vec::new(),
                improving: Vec::new(),
                moved: Vec::new(),
            };
        };
        let walls = &self.walls;
        let added = added.map(Polygon::new);
        let removed = removed.map(Polygon::new);
        let verdicts: Vec<(bool, bool, bool)> = self
            .crowd
            .agents
            .par_iter()
            .map(|a| {
                let caught = added.as_ref().is_some_and(|p| is_caught(a, p, mesh, walls));
                let replan = !a.needs_plan && added.as_ref().is_some_and(|p| blocks(a, p));
                let improve = !a.needs_plan
                    && !a.improve
                    && removed.as_ref().is_some_and(|p| may_shorten(a, p));
                (caught, replan, improve)
            })
            .collect();
        let caught: Vec<usize> = (0..verdicts.len()).filter(|&i| verdicts[i].0).collect();
        let moved = self.move_out(&caught);
        let (mut replanning, mut improving) = (Vec::new(), Vec::new());
        for (a, &(caught, replan, improve)) in self.crowd.agents.iter_mut().zip(&verdicts) {
            if replan || (caught && !a.needs_plan) {
                replanning.push(a.id);
            } else if improve {
                improving.push(a.id);
                a.improve = true;
            }
            a.needs_plan |= replan || caught;
        }
        if !improving.is_empty() {
            self.phases.follow.improving = true;
        }
        if !moved.is_empty() {
            self.index.invalidate();
        }
        MeshEdit {
            obstacle,
            replanning,
            improving,
            moved,
        }
    }

    /// Moves the agents at `caught` (agent order) to the nearest places where their
    /// discs fit, clear of every other agent and moving obstacle ([`nearest_fit`],
    /// [`clear_place`]); returns the ids of those moved.
    fn move_out(&mut self, caught: &[usize]) -> Vec<AgentId> {
        let Some(mesh) = self.mesh.as_ref() else {
            return Vec::new();
        };
        let max_r = self.crowd.radii.1;
        let mut moved = Vec::new();
        let mut near: Vec<(Vec2, f32)> = Vec::new();
        let mut scratch = Vec::new();
        for &i in caught {
            let (p, r) = (self.crowd.agents[i].position, self.crowd.agents[i].radius);
            let fits = |q: Vec2, ids: &mut Vec<u32>| fits(mesh, &self.walls, q, r, ids);
            // The nearest place it fits, found among the walls ever further out.
            let mut first = None;
            let mut range = (4.0 * r).max(2.0);
            for _ in 0..8 {
                first = nearest_fit(p, r, range, &self.walls, &mut scratch, &fits);
                if first.is_some() {
                    break;
                }
                range *= 2.0;
            }
            let Some(first) = first else {
                // No room near: the step's *keep on mesh* does what it can.
                continue;
            };
            let reach = first.distance(p) + (RINGS as f32 + 1.0) * r + r + max_r;
            near.clear();
            near.extend(
                self.crowd
                    .agents
                    .iter()
                    .enumerate()
                    .filter(|&(j, b)| j != i && b.position.distance(p) <= reach)
                    .map(|(_, b)| (b.position, b.radius)),
            );
            near.extend(
                self.obstacles
                    .iter()
                    .filter(|o| o.position.distance(p) <= reach + o.radius)
                    .map(|o| (o.position, o.radius)),
            );
            let clear = |q: Vec2| near.iter().all(|&(o, ro)| o.distance(q) >= ro + r);
            let at = if clear(first) {
                first
            } else {
                clear_place(p, first, r, &self.walls, &mut scratch, &|q, ids| {
                    clear(q) && fits(q, ids)
                })
                .unwrap_or(first)
            };
            let a = &mut self.crowd.agents[i];
            if a.position != at {
                a.position = at;
                moved.push(a.id);
            }
        }
        moved
    }
}

/// Whether a disc of radius `r` centred at `q` fits on `mesh`: its centre walkable,
/// and no wall of `walls` nearer than `r` (less a hair for rounding).
fn fits(mesh: &NavMesh, walls: &Walls, q: Vec2, r: f32, ids: &mut Vec<u32>) -> bool {
    if !matches!(mesh.locate(q), Location::Walkable(_)) {
        return false;
    }
    walls.grid.walls_near(q, r, ids);
    let room = r * (1.0 - 1e-4);
    ids.iter()
        .filter_map(|&w| walls.segments.get(w as usize))
        .all(|w| w.distance_squared(q) >= room * room)
}

/// The nearest place to `p` where a disc of radius `r` fits (`fits`), among the
/// places that touch a wall within `range` of `p`: a radius off a wall's side or
/// corner (the free space's boundary; where two such pieces meet in a concave corner,
/// the candidates a radius off either are pushed by the other and refused, and the
/// ring candidates of [`clear_place`] serve). `p` itself when it fits; `None` when no
/// candidate fits.
fn nearest_fit(
    p: Vec2,
    r: f32,
    range: f32,
    walls: &Walls,
    ids: &mut Vec<u32>,
    fits: &dyn Fn(Vec2, &mut Vec<u32>) -> bool,
) -> Option<Vec2> {
    let mut probe = Vec::new();
    if fits(p, &mut probe) {
        return Some(p);
    }
    walls.grid.walls_near(p, range, ids);
    // The walls within `range`, whatever cells the grid has.
    ids.retain(|&w| {
        walls
            .segments
            .get(w as usize)
            .is_some_and(|s| s.distance_squared(p) <= range * range)
    });
    let off = r * (1.0 + 1e-3) + 1e-4;
    let mut best: Option<(f32, Vec2)> = None;
    let mut consider = |q: Vec2, probe: &mut Vec<u32>| {
        let d = q.distance_squared(p);
        if best.is_none_or(|(b, _)| d < b) && fits(q, probe) {
            best = Some((d, q));
        }
    };
    for &w in ids.iter() {
        let Some(&wall) = walls.segments.get(w as usize) else {
            continue;
        };
        // Walkable on the left of a → b.
        let normal = (wall.b - wall.a).perp().normalize_or_zero();
        consider(wall.closest_point(p) + normal * off, &mut probe);
        for corner in [wall.a, wall.b] {
            let away = (p - corner).normalize_or(normal);
            consider(corner + away * off, &mut probe);
        }
    }
    best.map(|(_, q)| q)
}

/// The nearest place to `p` clear of everything (`ok`: it fits, and overlaps no other
/// body) among candidates around `first` (the nearest place the disc fits): rings of
/// candidates half a radius apart, out to [`RINGS`] radii, and the places a radius off
/// the walls near each ring's candidates (as [`nearest_fit`]). The first ring holding
/// one gives the answer; `None` when none does.
fn clear_place(
    p: Vec2,
    first: Vec2,
    r: f32,
    walls: &Walls,
    ids: &mut Vec<u32>,
    ok: &dyn Fn(Vec2, &mut Vec<u32>) -> bool,
) -> Option<Vec2> {
    let mut probe = Vec::new();
    for ring in 1..=2 * RINGS {
        let count = 6 * ring;
        let radius = 0.5 * r * ring as f32;
        let mut best: Option<(f32, Vec2)> = None;
        for k in 0..count {
            let angle = std::f32::consts::TAU * k as f32 / count as f32;
            let c = first + Vec2::from_angle(angle) * radius;
            let q = if ok(c, &mut probe) {
                Some(c)
            } else {
                nearest_fit(c, r, 2.0 * r, walls, ids, ok)
            };
            if let Some(q) = q {
                let d = q.distance(p);
                if best.is_none_or(|(b, _)| d < b) {
                    best = Some((d, q));
                }
            }
        }
        if let Some((_, q)) = best {
            return Some(q);
        }
    }
    None
}

/// A polygon of an edit with its bounding box.
struct Polygon<'a> {
    points: &'a [Vec2],
    lo: Vec2,
    hi: Vec2,
}

impl<'a> Polygon<'a> {
    fn new(points: &'a [Vec2]) -> Polygon<'a> {
        let lo = points.iter().copied().fold(Vec2::INFINITY, Vec2::min);
        let hi = points.iter().copied().fold(Vec2::NEG_INFINITY, Vec2::max);
        Polygon { points, lo, hi }
    }

    fn edges(&self) -> impl Iterator<Item = (Vec2, Vec2)> + '_ {
        let n = self.points.len();
        (0..n).map(move |i| (self.points[i], self.points[(i + 1) % n]))
    }

    /// Whether `p` lies inside (non-zero winding) or on it.
    fn contains(&self, p: Vec2) -> bool {
        if p.cmplt(self.lo).any() || p.cmpgt(self.hi).any() {
            return false;
        }
        let winding: i32 = self
            .edges()
            .map(|(a, b)| crate::mesh::level::winding_contribution(&Segment::new(a, b), p))
            .sum();
        winding != 0
            || self
                .edges()
                .any(|(a, b)| Segment::new(a, b).distance(p) == 0.0)
    }

    /// Distance from `p` to it (0 inside).
    fn distance(&self, p: Vec2) -> f32 {
        if self.contains(p) {
            return 0.0;
        }
        self.edges()
            .map(|(a, b)| Segment::new(a, b).distance(p))
            .fold(f32::INFINITY, f32::min)
    }

    /// Whether the convex piece `k` (a point, a segment or a triangle) comes within
    /// `reach` of it.
    fn meets(&self, k: &[Vec2], reach: f32) -> bool {
        if k.is_empty() {
            return false;
        }
        let klo = k.iter().copied().fold(Vec2::INFINITY, Vec2::min);
        let khi = k.iter().copied().fold(Vec2::NEG_INFINITY, Vec2::max);
        if (klo - reach).cmpgt(self.hi).any() || (khi + reach).cmplt(self.lo).any() {
            return false;
        }
        if k.iter().any(|&p| self.contains(p)) {
            return true;
        }
        if let [a, b, c] = *k {
            if self.points.iter().any(|&q| point_in_triangle(q, a, b, c)) {
                return true;
            }
        }
        // A point is a segment of no length; a segment has one edge, a triangle three.
        let m = k.len();
        let edges = if m <= 2 { 1 } else { m };
        self.edges().any(|(a, b)| {
            (0..edges).any(|j| segment_distance(a, b, k[j % m], k[(j + 1) % m]) < reach)
        })
    }
}

/// Distance between segments `ab` and `cd` (0 when they meet).
fn segment_distance(a: Vec2, b: Vec2, c: Vec2, d: Vec2) -> f32 {
    let [a, b, c, d] = [a, b, c, d].map(|v| v.as_dvec2());
    segments_distance_squared_f64(a, b, c, d).sqrt() as f32
}

/// What agent `a` still has to walk: where it stands, then its remaining waypoints.
fn route(a: &Agent) -> impl Iterator<Item = Vec2> + '_ {
    let ahead = a.waypoints.get(a.next_waypoint..).unwrap_or(&[]);
    std::iter::once(a.position).chain(ahead.iter().copied())
}

/// Whether the new obstacle `p` caught agent `a`: its centre is inside, or its disc
/// meets it and no longer fits where it stands (by more than 1 % of its radius).
fn is_caught(a: &Agent, p: &Polygon<'_>, mesh: &NavMesh, walls: &Walls) -> bool {
    if !p.meets(&[a.position], a.radius) {
        return false;
    }
    p.contains(a.position) || !fits(mesh, walls, a.position, 0.99 * a.radius, &mut Vec::new())
}

/// Whether the new obstacle `p` meets agent `a`'s route swept by its disc, or (portal
/// steering) the way to and from a door's opening ahead.
fn blocks(a: &Agent, p: &Polygon<'_>) -> bool {
    let reach = a.radius * CHORD_SAG + 1e-3 * (1.0 + a.radius);
    let route: Vec<Vec2> = route(a).collect();
    if route.len() == 1 && p.meets(&route, reach) {
        return true;
    }
    if route.windows(2).any(|w| p.meets(w, reach)) {
        return true;
    }
    a.portals.iter().any(|portal| {
        let (corner, across) = portal.opening();
        // The route's points on this corner (its arc), and the points before and after.
        let on = |w: &Vec2| w.distance(corner) <= a.radius * 1.05 + 1e-3;
        let (Some(first), Some(last)) = (route.iter().position(on), route.iter().rposition(on))
        else {
            // Passed (or its arc is behind the agent).
            return false;
        };
        let before = route[first.saturating_sub(1)];
        let after = route[(last + 1).min(route.len() - 1)];
        p.meets(&[corner, across], reach)
            || p.meets(&[before, corner, across], reach)
            || p.meets(&[corner, across, after], reach)
    })
}

/// Whether freeing the space of `p` may give agent `a` a shorter path (see the docs of
/// `world/edits.rs`).
fn may_shorten(a: &Agent, p: &Polygon<'_>) -> bool {
    if a.path.is_none() || a.reachable_goal.is_some() || matches!(a.state, AgentState::NoPath(_)) {
        return true;
    }
    let route: Vec<Vec2> = route(a).collect();
    let end = route.last().copied().unwrap_or(a.position);
    let left: f32 = route.windows(2).map(|w| w[0].distance(w[1])).sum();
    let left = left * ARC_OVER_CHORD + 1e-3 * (1.0 + a.radius);
    let r = a.radius;
    let bound = (p.distance(a.position) - r).max(0.0) + (p.distance(end) - r).max(0.0);
    bound < left
}
