//! The crowd the 2D and 3D views show: a [`World`] with the level it was built from,
//! the seed demo's formation keys, selection, goals and live obstacle edits.

use crowdnav::collide::{Collider, CollisionEvent};
use crowdnav::mesh::{read_walls, Level, MeshObstacleId, NavMesh};
use crowdnav::scenario::{
    self, formation_goals, formation_starts, FormationArea, FormationKind, Method, Scenario,
    WorldSpec,
};
use crowdnav::world::{AgentId, AgentParams, Goal, World, COLLISION_DEPTH};
use glam::Vec2;
use std::path::Path;

/// Seconds of simulation per step (the demo's and most scenarios' step).
pub const DEMO_DT: f32 = 0.05;
/// How long a collision point stays on screen, seconds of simulation.
const HIT_LIFETIME: f64 = 1.0;
/// At most this many steps per frame, so a slow frame cannot snowball.
const MAX_STEPS_PER_FRAME: u32 = 8;

/// Where the crowd came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// The seed demo: empty until a key loads the 32 entities.
    Demo,
    /// A scenario file: its agents are there from the start.
    Scenario,
    /// A level file: empty until a key scatters agents on it.
    Level,
}

/// The crowd, its level and the viewer's figures about it.
pub struct Crowd {
    /// The simulation.
    pub world: World,
    /// Steering parameters per method (and, for the demo, the level).
    scenario: Scenario,
    /// The steering method in use.
    pub method: Method,
    /// The level with its static obstacles, when it can be edited (a `.json` world).
    pub level: Option<Level>,
    /// Per obstacle of `level`, the mesh obstacle that stands for it when the world's
    /// mesh holds it as an edit (see [`editable_mesh`]): moving it is then a mesh edit,
    /// not a rebuild. `None` for obstacles built into the mesh.
    edits: Vec<Option<MeshObstacleId>>,
    /// Where the crowd came from.
    pub origin: Origin,
    /// Its name, for the status line.
    pub name: String,
    /// Whether the entities have been loaded.
    pub loaded: bool,
    /// Selected agents (empty: all).
    pub selection: Vec<AgentId>,
    /// Milliseconds per step, smoothed.
    pub step_ms: f64,
    /// Step, seconds.
    pub dt: f32,
    /// Unsimulated time, seconds.
    acc: f32,
    /// Recent collision points and when they happened.
    pub hits: Vec<(Vec2, f64)>,
    /// Where formations are laid out.
    area: FormationArea,
    /// Formations started so far (seeds each one).
    formations: u64,
    /// Lower-left and upper-right corners of the level.
    pub bounds: (Vec2, Vec2),
    /// Whether the simulation is paused.
    pub paused: bool,
    /// The agent the W, A, S and D keys drive, once they have been pressed.
    pub player: Option<AgentId>,
}

/// How fast the player walks, m/s.
pub const PLAYER_SPEED: f32 = 2.0;

/// The seed demo's room (the library's), with two pillars to drag around.
pub fn demo_level() -> Level {
    let square = |c: Vec2, s: f32| {
        vec![
            c + Vec2::new(-s, -s),
            c + Vec2::new(s, -s),
            c + Vec2::new(s, s),
            c + Vec2::new(-s, s),
        ]
    };
    let mut level = scenario::demo::level();
    level.obstacles = vec![
        square(Vec2::new(-5.0, 4.0), 0.9),
        square(Vec2::new(5.0, -4.0), 0.9),
    ];
    level
}

/// The demo's scenario (the library's, as the CLI's demo) in the room with pillars.
fn demo_scenario(method: Method) -> Scenario {
    let mut s = scenario::demo::scenario(method);
    s.world = Some(WorldSpec::Inline(demo_level()));
    s
}

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

impl Crowd {
    /// The seed demo, with `method` (ORCA by default).
    pub fn demo(method: Option<Method>) -> Result<Crowd, String> {
        let method = method.unwrap_or(Method::Orca);
        let scenario = demo_scenario(method);
        let world = scenario.build(None).map_err(err)?;
        let area = scenario::demo::AREA;
        Ok(Self::with(
            world,
            scenario,
            Some(demo_level()),
            Origin::Demo,
            area,
        ))
    }

    /// A scenario file, or a level file (`.json` world, `.mesh`, `.map`).
    ///
    /// A `.json` file is a scenario when it parses as one, else a level.
    pub fn open(path: &Path, method: Option<Method>) -> Result<Crowd, String> {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        let shown = path.display();
        if ext.as_deref() == Some("json") {
            let text = std::fs::read_to_string(path).map_err(|e| format!("{shown}: {e}"))?;
            let level = match Scenario::from_json(&text) {
                Ok(_) => {
                    // Again from the file, which resolves a level path beside it.
                    let scenario =
                        Scenario::from_file(path).map_err(|e| format!("{shown}: {e}"))?;
                    return Self::from_scenario(scenario, path, method)
                        .map_err(|e| format!("{shown}: {e}"));
                }
                // A world file is no scenario: try it as a level, and if it is neither,
                // name the fault of what it looks most like.
                Err(scenario_err) => match Level::from_json(&text) {
                    Ok(level) => level,
                    Err(level_err) if text.contains("\"boundary\"") => {
                        return Err(format!("{shown}: {level_err}"))
                    }
                    Err(_) => return Err(format!("{shown}: {scenario_err}")),
                },
            };
            let mesh = NavMesh::from_level(&level);
            return Self::from_level(Some(level), mesh, path, method);
        }
        let walls = read_walls(path).map_err(err)?;
        Self::from_level(None, NavMesh::from_walls(&walls), path, method)
    }

    fn from_scenario(
        scenario: Scenario,
        path: &Path,
        method: Option<Method>,
    ) -> Result<Crowd, String> {
        // An editable level: inline, or a `.json` world file beside the scenario.
        let level = match &scenario.world {
            Some(WorldSpec::Inline(l)) => Some(l.clone()),
            Some(WorldSpec::File(f)) => std::fs::read_to_string(f)
                .ok()
                .and_then(|t| Level::from_json(&t).ok()),
            None => None,
        };
        let mut world = scenario.build(method).map_err(err)?;
        let method = method.unwrap_or(scenario.method);
        world.set_steering(scenario.steering(method));
        let radius = world.agents().first().map_or(0.5, |a| a.radius);
        let mut crowd = Self::with(
            world,
            scenario,
            level,
            Origin::Scenario,
            FormationArea {
                center: Vec2::ZERO,
                size: 1.0,
                agent_radius: radius,
            },
        );
        crowd.method = method;
        crowd.dt = crowd.scenario.dt;
        crowd.area = crowd.area_from_bounds(radius);
        crowd.loaded = true;
        crowd.name = path.display().to_string();
        if let Some(f) = &crowd.scenario.formation {
            crowd.area = f.area();
        }
        Ok(crowd)
    }

    fn from_level<E: std::fmt::Display>(
        level: Option<Level>,
        mesh: Result<NavMesh, E>,
        path: &Path,
        method: Option<Method>,
    ) -> Result<Crowd, String> {
        let mesh = mesh.map_err(|e| format!("{}: {e}", path.display()))?;
        let method = method.unwrap_or(Method::Orca);
        let mut scenario = demo_scenario(method);
        scenario.world = None;
        scenario.name = path.display().to_string();
        let world = World::new(
            Some(mesh),
            scenario.steering(method),
            scenario.world_params(method),
        );
        let mut crowd = Self::with(
            world,
            scenario,
            level,
            Origin::Level,
            FormationArea {
                center: Vec2::ZERO,
                size: 1.0,
                agent_radius: 0.5,
            },
        );
        crowd.area = crowd.area_from_bounds(0.5);
        crowd.name = path.display().to_string();
        Ok(crowd)
    }

    fn with(
        mut world: World,
        scenario: Scenario,
        level: Option<Level>,
        origin: Origin,
        area: FormationArea,
    ) -> Crowd {
        world.set_record_debug(true);
        let method = scenario.method;
        let mut c = Crowd {
            world,
            name: scenario.name.clone(),
            scenario,
            method,
            level,
            edits: Vec::new(),
            origin,
            loaded: false,
            selection: Vec::new(),
            step_ms: 0.0,
            dt: DEMO_DT,
            acc: 0.0,
            hits: Vec::new(),
            area,
            formations: 0,
            bounds: (Vec2::splat(-1.0), Vec2::splat(1.0)),
            paused: false,
            player: None,
        };
        c.bounds = c.compute_bounds();
        c.make_editable();
        c
    }

    /// Gives the world a mesh of the level on which its obstacles are edits
    /// ([`editable_mesh`]), so that dragging one patches the mesh in place.
    fn make_editable(&mut self) {
        let Some(level) = &self.level else {
            return;
        };
        if self.world.mesh().is_none() {
            return;
        }
        if let Some((mesh, edits)) = editable_mesh(level) {
            self.world.set_mesh(Some(mesh));
            self.edits = edits;
        }
    }

    /// The level's bounding box (the agents' when there is no level).
    fn compute_bounds(&self) -> (Vec2, Vec2) {
        let mut lo = Vec2::splat(f32::INFINITY);
        let mut hi = Vec2::splat(f32::NEG_INFINITY);
        if let Some(m) = self.world.mesh() {
            for &v in m.vertices() {
                lo = lo.min(v);
                hi = hi.max(v);
            }
        }
        for a in self.world.agents() {
            lo = lo.min(a.position - a.radius);
            hi = hi.max(a.position + a.radius);
        }
        if !(lo.is_finite() && hi.is_finite()) {
            return (Vec2::splat(-15.0), Vec2::splat(15.0));
        }
        (lo, hi)
    }

    fn area_from_bounds(&self, radius: f32) -> FormationArea {
        let (lo, hi) = self.bounds;
        FormationArea {
            center: (lo + hi) * 0.5,
            size: ((hi - lo).min_element() * 0.35).max(radius * 4.0),
            agent_radius: radius,
        }
    }

    /// Loads the entities: the demo's 32 scattered on a circle, or agents scattered on
    /// a level's walkable floor. Does nothing once loaded.
    pub fn load(&mut self) {
        if self.loaded {
            return;
        }
        self.loaded = true;
        let r = self.area.agent_radius;
        let starts: Vec<Vec2> = match self.origin {
            Origin::Demo => {
                formation_starts(FormationKind::Circle, 32, self.area, 1, self.world.mesh())
            }
            _ => self.scatter(32, r),
        };
        for p in starts {
            // The world refuses only bad numbers; these are finite and positive.
            let _ = self
                .world
                .add_agent(AgentParams::new(p, p).with_radius(r).with_speeds(2.0, 1.4));
        }
    }

    /// Up to `n` points on the walkable floor, with room for radius `r`, spread over
    /// the level (a fixed sequence, so runs repeat).
    fn scatter(&self, n: usize, r: f32) -> Vec<Vec2> {
        let Some(mesh) = self.world.mesh() else {
            return formation_starts(FormationKind::Circle, n, self.area, 1, None);
        };
        let (lo, hi) = self.bounds;
        let mut out: Vec<Vec2> = Vec::new();
        let mut seed = 0x9e37_79b9_u32;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed as f32 / u32::MAX as f32
        };
        for _ in 0..n * 400 {
            if out.len() == n {
                break;
            }
            let p = lo + (hi - lo) * Vec2::new(next(), next());
            let roomy = mesh.clearance(p).is_some_and(|c| c >= r * 1.05);
            if roomy && out.iter().all(|q| q.distance(p) > 2.2 * r) {
                out.push(p);
            }
        }
        out
    }

    /// Sends everyone to a formation chosen from where they stand now. The demo's
    /// formations are laid out around the room's centre; on a level or a scenario's,
    /// around the agents' centroid (the library moves each shape to where it fits).
    pub fn formation(&mut self, kind: FormationKind) {
        self.load();
        self.formations += 1;
        let player = self.player;
        let walkers = || {
            self.world
                .agents()
                .iter()
                .filter(move |a| Some(a.id) != player)
        };
        let now: Vec<Vec2> = walkers().map(|a| a.position).collect();
        if self.origin != Origin::Demo && !now.is_empty() {
            let centroid = now.iter().sum::<Vec2>() / now.len() as f32;
            if centroid.is_finite() {
                self.area.center = centroid;
            }
        }
        let goals = formation_goals(kind, &now, self.area, self.formations, self.world.mesh());
        let ids: Vec<AgentId> = walkers().map(|a| a.id).collect();
        for (id, g) in ids.into_iter().zip(goals) {
            let _ = self.world.set_goal(id, Goal::Point(g));
        }
    }

    /// The agents a goal click moves: the selection, or everyone but the player.
    pub fn targets(&self) -> Vec<AgentId> {
        if self.selection.is_empty() {
            self.world
                .agents()
                .iter()
                .map(|a| a.id)
                .filter(|&id| Some(id) != self.player)
                .collect()
        } else {
            self.selection.clone()
        }
    }

    /// Sends the selected agents (all when none is) to `at`, packed around it on a
    /// sunflower spiral so that they do not fight for one point.
    pub fn set_goal(&mut self, at: Vec2) {
        if !at.is_finite() {
            return;
        }
        let ids = self.targets();
        let spacing = 2.4 * self.area.agent_radius;
        // The closest agent takes the centre, and so on outwards.
        // (Ids of agents no longer in the world are dropped.)
        let mut order: Vec<(f32, AgentId)> = ids
            .into_iter()
            .filter_map(|id| Some((self.world.agent(id)?.position.distance_squared(at), id)))
            .collect();
        order.sort_by(|(da, _), (db, _)| da.total_cmp(db));
        let order = order.into_iter().map(|(_, id)| id);
        let golden = std::f32::consts::PI * (3.0 - 5f32.sqrt());
        for (k, id) in order.enumerate() {
            let rho = spacing * 0.6 * (k as f32).sqrt() * 1.2;
            let g = at + Vec2::from_angle(k as f32 * golden) * rho;
            // Finite goals for existing agents are always accepted; say so if not.
            if let Err(e) = self.world.set_goal(id, Goal::Point(g)) {
                eprintln!("crowdnav-view: {e}");
            }
        }
    }

    /// Removes the selected agents from the world (the player too, if selected) and
    /// clears the selection; returns how many were removed.
    pub fn delete_selected(&mut self) -> usize {
        let mut removed = 0;
        for id in std::mem::take(&mut self.selection) {
            if self.world.remove_agent(id).is_ok() {
                removed += 1;
            }
            if Some(id) == self.player {
                self.player = None;
            }
        }
        removed
    }

    /// Drives the player at [`PLAYER_SPEED`] along `direction` (unit or zero; zero
    /// holds it still, still driven): the crowd avoids it and it does not yield. The
    /// first non-zero direction puts the player on the mesh, at the nearest place it
    /// fits to the level's centre.
    pub fn drive_player(&mut self, direction: Vec2) {
        if !direction.is_finite() {
            return;
        }
        let id = match self.player.filter(|&id| self.world.agent(id).is_some()) {
            Some(id) => id,
            None if direction == Vec2::ZERO => return,
            None => match self.spawn_player() {
                Some(id) => id,
                None => return,
            },
        };
        // The id is in the world and the velocity finite: nothing to refuse.
        let _ = self.world.set_velocity(id, Some(direction * PLAYER_SPEED));
    }

    /// Adds the player at the nearest place it fits to the level's centre.
    fn spawn_player(&mut self) -> Option<AgentId> {
        let r = self.area.agent_radius;
        let centre = 0.5 * (self.bounds.0 + self.bounds.1);
        let at = match self.world.mesh() {
            Some(mesh) => mesh.nearest_point(centre, r).ok().flatten()?.point,
            None => centre,
        };
        let params = AgentParams::new(at, at)
            .with_radius(r)
            .with_speeds(PLAYER_SPEED, PLAYER_SPEED);
        let id = self.world.add_agent(params).ok()?;
        self.player = Some(id);
        Some(id)
    }

    /// Selects the agents whose centre lies in the box between `a` and `b`.
    pub fn select_box(&mut self, a: Vec2, b: Vec2) {
        let (lo, hi) = (a.min(b), a.max(b));
        self.selection = self
            .world
            .agents()
            .iter()
            .filter(|ag| ag.position.cmpge(lo).all() && ag.position.cmple(hi).all())
            .map(|ag| ag.id)
            .collect();
    }

    /// The next steering method: ORCA → anti-gravity → swarm → ORCA.
    pub fn cycle_method(&mut self) {
        self.method = match self.method {
            Method::Orca => Method::AntiGravity,
            Method::AntiGravity => Method::Swarm,
            Method::Swarm => Method::Orca,
        };
        self.world.set_steering(self.scenario.steering(self.method));
    }

    /// The static obstacle under `p`, if the level can be edited.
    pub fn obstacle_at(&self, p: Vec2) -> Option<usize> {
        self.level
            .as_ref()?
            .obstacles
            .iter()
            .position(|poly| point_in_polygon(p, poly))
    }

    /// Moves static obstacle `k` by `delta`: a mesh edit when the mesh holds it as one
    /// (only the agents whose way it changes re-plan), else a rebuild of the mesh
    /// (every agent re-plans). A move that breaks the level (the obstacle out of the
    /// room) is refused. Returns whether it moved.
    pub fn move_obstacle(&mut self, k: usize, delta: Vec2) -> bool {
        let Some(level) = &self.level else {
            return false;
        };
        let mut moved = level.clone();
        let Some(poly) = moved.obstacles.get_mut(k) else {
            return false;
        };
        for v in poly.iter_mut() {
            *v += delta;
        }
        if let Some(&Some(id)) = self.edits.get(k) {
            if self
                .world
                .move_mesh_obstacle(id, &moved.obstacles[k])
                .is_err()
            {
                return false;
            }
            self.level = Some(moved);
            return true;
        }
        match NavMesh::from_level(&moved) {
            Ok(mesh) => {
                self.world.set_mesh(Some(mesh));
                self.level = Some(moved);
                self.make_editable();
                true
            }
            Err(_) => false,
        }
    }

    /// Places a square box `size` metres across centred at `at` (a mesh edit); agents
    /// it covers are moved out. Returns whether it was placed (it must lie inside the
    /// level's outline).
    pub fn place_box(&mut self, at: Vec2, size: f32) -> bool {
        let h = 0.5 * size;
        let square = vec![
            at + Vec2::new(-h, -h),
            at + Vec2::new(h, -h),
            at + Vec2::new(h, h),
            at + Vec2::new(-h, h),
        ];
        let Some(level) = &mut self.level else {
            return false;
        };
        match self.world.add_mesh_obstacle(&square) {
            Ok(edit) => {
                level.obstacles.push(square);
                self.edits.resize(level.obstacles.len() - 1, None);
                self.edits.push(Some(edit.obstacle));
                true
            }
            Err(_) => false,
        }
    }

    /// Removes the obstacle under `at` when the mesh holds it as an edit (a mesh
    /// edit: the agents it may give a shorter way re-plan). Returns whether it did.
    pub fn remove_obstacle_at(&mut self, at: Vec2) -> bool {
        let Some(k) = self.obstacle_at(at) else {
            return false;
        };
        let Some(&Some(id)) = self.edits.get(k) else {
            return false;
        };
        if self.world.remove_mesh_obstacle(id).is_err() {
            return false;
        }
        if let Some(level) = &mut self.level {
            level.obstacles.remove(k);
        }
        self.edits.remove(k);
        true
    }

    /// Advances the simulation by `frame_dt` seconds of wall (or scripted) time in
    /// fixed steps of [`Crowd::dt`].
    pub fn update(&mut self, frame_dt: f32) {
        if self.paused {
            return;
        }
        self.acc += frame_dt;
        let mut n = 0;
        while self.acc >= self.dt && n < MAX_STEPS_PER_FRAME {
            self.acc -= self.dt;
            n += 1;
            self.step_once();
        }
        if n == MAX_STEPS_PER_FRAME {
            self.acc = 0.0;
        }
    }

    /// One step, timed, with its collision points recorded.
    pub fn step_once(&mut self) {
        let t0 = crate::edge::seconds();
        // Only a non-positive dt fails; ours is the scenario's, checked positive.
        let _ = self.world.step(self.dt);
        let ms = (crate::edge::seconds() - t0) * 1000.0;
        self.step_ms = if self.step_ms == 0.0 {
            ms
        } else {
            0.9 * self.step_ms + 0.1 * ms
        };
        let now = self.world.time();
        self.hits.retain(|&(_, t)| now - t < HIT_LIFETIME);
        let world = &self.world;
        self.hits.extend(
            world
                .events()
                .iter()
                .filter(|e| counted(world, e))
                .map(|e| (e.point, now)),
        );
    }

    /// Collisions so far.
    pub fn collisions(&self) -> u64 {
        self.world.metrics().collisions
    }
}

/// A mesh of `level` on which its obstacles are mesh edits, and per obstacle its mesh
/// obstacle id: the level's outline (and the obstacles a mesh edit refuses, those
/// reaching its outer edge) is built, the others are added one by one. `None` when the
/// outline does not build.
fn editable_mesh(level: &Level) -> Option<(NavMesh, Vec<Option<MeshObstacleId>>)> {
    let mut built = Level {
        boundary: level.boundary.clone(),
        obstacles: Vec::new(),
        doors: level.doors.clone(),
    };
    let mut mesh = NavMesh::from_level(&built).ok()?;
    let first: Vec<Option<MeshObstacleId>> = level
        .obstacles
        .iter()
        .map(|o| mesh.add_obstacle(o).ok())
        .collect();
    if first.iter().all(Option::is_some) {
        return Some((mesh, first));
    }
    // Build those a mesh edit refuses into the mesh, and add the others again.
    built.obstacles = level
        .obstacles
        .iter()
        .zip(&first)
        .filter(|(_, id)| id.is_none())
        .map(|(o, _)| o.clone())
        .collect();
    mesh = NavMesh::from_level(&built).ok()?;
    let mut edits = Vec::with_capacity(first.len());
    for (o, id) in level.obstacles.iter().zip(&first) {
        edits.push(match id {
            None => None,
            Some(_) => Some(mesh.add_obstacle(o).ok()?),
        });
    }
    Some((mesh, edits))
}

/// Whether `e` is a collision that [`Metrics::collisions`] counts: an agent meeting
/// another agent or a moving obstacle while approaching it (an impulse was exchanged),
/// deeper than [`COLLISION_DEPTH`] of the smaller radius. Grazes, resting contacts and
/// wall contacts are not. The bodies of the step's events are its agents, then its
/// moving obstacles.
///
/// [`Metrics::collisions`]: crowdnav::world::Metrics::collisions
pub fn counted(world: &World, e: &CollisionEvent) -> bool {
    let Collider::Body(other) = e.other else {
        return false;
    };
    let radius = |i: u32| {
        let i = i as usize;
        let agents = world.agents();
        match agents.get(i) {
            Some(a) => Some(a.radius),
            None => world.obstacles().get(i - agents.len()).map(|o| o.radius),
        }
    };
    let (Some(a), Some(b)) = (radius(e.body), radius(other)) else {
        return false;
    };
    e.impulse > 0.0 && e.depth > COLLISION_DEPTH * a.min(b)
}

/// Even-odd test of `p` against a polygon.
pub fn point_in_polygon(p: Vec2, poly: &[Vec2]) -> bool {
    let mut inside = false;
    let n = poly.len();
    for i in 0..n {
        let (a, b) = (poly[i], poly[(i + n - 1) % n]);
        if (a.y > p.y) != (b.y > p.y) && p.x < (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x {
            inside = !inside;
        }
    }
    inside
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_demo_loads_32_entities_and_runs_formations() {
        let mut c = Crowd::demo(None).expect("demo builds");
        assert_eq!(c.world.agents().len(), 0);
        c.load();
        assert_eq!(c.world.agents().len(), 32);
        for kind in FormationKind::ALL {
            c.formation(kind);
            for _ in 0..20 {
                c.step_once();
            }
        }
        c.cycle_method();
        assert_eq!(c.method, Method::AntiGravity);
        c.step_once();
    }

    #[test]
    fn collision_dots_mark_only_the_collisions_the_counter_counts() {
        // Anti-gravity bumps: agents graze and rest against each other too.
        let mut c = Crowd::demo(Some(Method::AntiGravity)).expect("demo builds");
        c.load();
        let mut touches = 0;
        for kind in [FormationKind::Circle, FormationKind::Groups] {
            c.formation(kind);
            for _ in 0..200 {
                let (before, hits) = (c.collisions(), c.hits.len());
                c.step_once();
                touches += c.world.events().len();
                // Each new dot is a counted collision (two agents: one event, one count).
                let new_hits = c.hits.iter().filter(|h| h.1 == c.world.time()).count();
                assert_eq!(
                    new_hits as u64,
                    c.collisions() - before,
                    "{hits} dots before"
                );
            }
        }
        assert!(c.collisions() > 0, "anti-gravity bumped nobody");
        assert!(touches as u64 > c.collisions(), "every touch counted");
    }

    #[test]
    fn dragging_a_pillar_rebuilds_the_mesh_and_refuses_leaving_the_room() {
        let mut c = Crowd::demo(None).expect("demo builds");
        let k = c.obstacle_at(Vec2::new(-5.0, 4.0)).expect("pillar there");
        assert!(c.move_obstacle(k, Vec2::new(1.0, 0.0)));
        assert!(c.obstacle_at(Vec2::new(-4.0, 4.0)).is_some());
        assert!(!c.move_obstacle(k, Vec2::new(40.0, 0.0)));
    }

    /// The demo's pillars are mesh edits: dragging one, placing a box and removing it
    /// edit the mesh in place (no rebuild), and the mesh answers as the level says.
    #[test]
    fn pillars_and_boxes_are_mesh_edits() {
        let mut c = Crowd::demo(None).expect("demo builds");
        let edits = |c: &Crowd| c.world.mesh().map_or(0, NavMesh::edit_count);
        assert_eq!(edits(&c), 2, "the two pillars were added as edits");
        let k = c.obstacle_at(Vec2::new(-5.0, 4.0)).expect("pillar there");
        assert!(c.move_obstacle(k, Vec2::new(1.0, 0.0)));
        assert_eq!(edits(&c), 3, "a drag is one edit");
        let walkable =
            |c: &Crowd, p: Vec2| c.world.mesh().is_some_and(|m| m.clearance(p).is_some());
        assert!(!walkable(&c, Vec2::new(-4.0, 4.0)) && walkable(&c, Vec2::new(-5.7, 4.0)));
        assert!(c.place_box(Vec2::new(8.0, 8.0), 2.0));
        assert!(!walkable(&c, Vec2::new(8.0, 8.0)));
        assert!(!c.place_box(Vec2::new(30.0, 8.0), 2.0), "out of the room");
        assert!(c.remove_obstacle_at(Vec2::new(8.2, 7.9)));
        assert!(walkable(&c, Vec2::new(8.0, 8.0)));
        assert!(
            !c.remove_obstacle_at(Vec2::new(8.0, 8.0)),
            "nothing there now"
        );
        assert_eq!(edits(&c), 5);
        assert_eq!(c.level.as_ref().map(|l| l.obstacles.len()), Some(2));
    }

    #[test]
    fn goals_and_selection() {
        let mut c = Crowd::demo(None).expect("demo builds");
        c.load();
        c.select_box(Vec2::new(0.0, 0.0), Vec2::new(20.0, 20.0));
        // Some of the demo's 32 agents, not all.
        assert!(!c.selection.is_empty() && c.selection.len() < 32);
        c.set_goal(Vec2::new(-8.0, -8.0));
        let first = c.selection[0];
        // Within the goal spiral: at most 31 agents reach 2.4·0.5·0.72·√31 ≈ 4.8 m out.
        assert!(
            matches!(c.world.agent(first).map(|a| a.goal), Some(Goal::Point(g)) if g.distance(Vec2::new(-8.0, -8.0)) < 5.0)
        );
    }

    /// Delete removes exactly the selected agents; the others keep their ids.
    #[test]
    fn delete_removes_the_selected_agents_only() {
        let mut c = Crowd::demo(None).expect("demo builds");
        c.load();
        c.select_box(Vec2::new(0.0, 0.0), Vec2::new(20.0, 20.0));
        let chosen = c.selection.clone();
        let kept: Vec<AgentId> = c
            .world
            .agents()
            .iter()
            .map(|a| a.id)
            .filter(|id| !chosen.contains(id))
            .collect();
        assert_eq!(c.delete_selected(), chosen.len());
        assert!(c.selection.is_empty());
        assert_eq!(c.world.agents().len(), 32 - chosen.len());
        assert!(chosen.iter().all(|&id| c.world.agent(id).is_none()));
        assert!(kept.iter().all(|&id| c.world.agent(id).is_some()));
        // Nothing selected: nothing removed.
        assert_eq!(c.delete_selected(), 0);
        for _ in 0..20 {
            c.step_once();
        }
    }

    /// WASD puts a player on the mesh and drives it exactly; the crowd makes way and
    /// nobody overlaps it; formations and goal clicks leave it alone.
    #[test]
    fn the_player_goes_where_the_keys_point_and_the_crowd_makes_way() {
        let mut c = Crowd::demo(None).expect("demo builds");
        c.load();
        c.drive_player(Vec2::ZERO);
        assert_eq!(c.player, None, "no key, no player");
        c.drive_player(Vec2::X);
        let player = c.player.expect("spawned on the first key");
        let start = c.world.agent(player).expect("in the world").position;
        c.formation(FormationKind::Circle);
        assert!(!c.targets().contains(&player));
        let steps = 40;
        for _ in 0..steps {
            c.drive_player(Vec2::X);
            c.step_once();
        }
        let p = c.world.agent(player).expect("in the world");
        let expected = start + Vec2::X * PLAYER_SPEED * c.dt * steps as f32;
        assert!(
            p.position.distance(expected) < 1e-3,
            "{} vs {expected}",
            p.position
        );
        assert!(c.world.metrics().overlapping_pairs.is_empty());
        // Held still: it stands.
        c.drive_player(Vec2::ZERO);
        c.step_once();
        let still = c.world.agent(player).expect("in").position;
        c.step_once();
        assert_eq!(c.world.agent(player).expect("in").position, still);
        // Deleted with the selection: the next key spawns a new one.
        c.selection = vec![player];
        c.delete_selected();
        assert_eq!(c.player, None);
        c.drive_player(-Vec2::Y);
        assert!(c.player.is_some_and(|id| id != player));
    }
}
