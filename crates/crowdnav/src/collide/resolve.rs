//! The collision phase: detect contacts among candidate pairs, exchange impulses, then
//! push overlapping bodies apart.

use super::contact::{
    contact_ball_ball, contact_circle_segment, contact_circle_segment_swept, in_front_of_wall,
    Contact, Hit,
};
use super::space::Space;
use crate::geom::{Circle, Segment};
use glam::{Vec2, Vec3};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A disc that collides: an agent, or a scripted moving obstacle when immovable.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Body {
    /// Centre, metres.
    pub position: Vec2,
    /// Velocity, metres per second.
    pub velocity: Vec2,
    /// Radius, metres. [Limit: >= 0]
    pub radius: f32,
    /// Mass, kilograms; `f32::INFINITY` makes the body immovable: it keeps its velocity
    /// and is never displaced. A mass that is not positive (0, negative, NaN) or so
    /// small that its inverse overflows is treated as immovable too. \[Limit: > 0\]
    pub mass: f32,
}

impl Body {
    /// A body of mass `mass` (kilograms).
    pub const fn new(position: Vec2, velocity: Vec2, radius: f32, mass: f32) -> Self {
        Self {
            position,
            velocity,
            radius,
            mass,
        }
    }

    /// An immovable body (infinite mass): a scripted obstacle that pushes others but is
    /// never pushed.
    pub const fn immovable(position: Vec2, velocity: Vec2, radius: f32) -> Self {
        Self::new(position, velocity, radius, f32::INFINITY)
    }

    /// `1 / mass`, or `0` for an immovable body (see the `mass` field).
    pub fn inverse_mass(&self) -> f32 {
        inverse_mass(self.mass)
    }

    /// Momentum, `m v` (infinite for a moving immovable body).
    pub fn momentum(&self) -> Vec2 {
        self.velocity * self.mass
    }

    /// Kinetic energy, `m v² / 2`.
    pub fn kinetic_energy(&self) -> f32 {
        0.5 * self.mass * self.velocity.length_squared()
    }
}

/// A sphere that collides: [`Body`] in 3D.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Body3 {
    /// Centre, metres.
    pub position: Vec3,
    /// Velocity, metres per second.
    pub velocity: Vec3,
    /// Radius, metres. [Limit: >= 0]
    pub radius: f32,
    /// Mass, kilograms, as for [`Body`]; `f32::INFINITY` is immovable. \[Limit: > 0\]
    pub mass: f32,
}

impl Body3 {
    /// A body of mass `mass` (kilograms).
    pub const fn new(position: Vec3, velocity: Vec3, radius: f32, mass: f32) -> Self {
        Self {
            position,
            velocity,
            radius,
            mass,
        }
    }

    /// An immovable body (infinite mass).
    pub const fn immovable(position: Vec3, velocity: Vec3, radius: f32) -> Self {
        Self::new(position, velocity, radius, f32::INFINITY)
    }

    /// `1 / mass`, or `0` for an immovable body.
    pub fn inverse_mass(&self) -> f32 {
        inverse_mass(self.mass)
    }

    /// Momentum, `m v`.
    pub fn momentum(&self) -> Vec3 {
        self.velocity * self.mass
    }

    /// Kinetic energy, `m v² / 2`.
    pub fn kinetic_energy(&self) -> f32 {
        0.5 * self.mass * self.velocity.length_squared()
    }
}

fn inverse_mass(mass: f32) -> f32 {
    let inverse = mass.recip();
    if mass > 0.0 && inverse.is_finite() {
        inverse
    } else {
        0.0
    }
}

/// What a body collided with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Collider {
    /// Another body, by index into the bodies slice.
    Body(u32),
    /// A wall, by index into the walls slice.
    Wall(u32),
}

/// One touching pair found by [`Resolver::resolve`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CollisionEvent {
    /// The body (the first index of the candidate pair), by index.
    pub body: u32,
    /// What it touched.
    pub other: Collider,
    /// Contact point: by radius ratio between two bodies, the wall's closest point for
    /// a wall.
    pub point: Vec2,
    /// Unit normal from `body` towards `other`.
    pub normal: Vec2,
    /// Magnitude of the impulse exchanged along the normal, kilogram metres per
    /// second: `body` received `-impulse · normal`, `other` `+impulse · normal`. Zero
    /// for a pair that was touching but not approaching.
    pub impulse: f32,
    /// Penetration depth when detected, metres (before depenetration).
    pub depth: f32,
}

/// One touching pair found by [`Resolver::resolve3`]: [`CollisionEvent`] in 3D.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CollisionEvent3 {
    /// The body (the first index of the candidate pair), by index.
    pub body: u32,
    /// The other body, by index.
    pub other: u32,
    /// Contact point, by radius ratio.
    pub point: Vec3,
    /// Unit normal from `body` towards `other`.
    pub normal: Vec3,
    /// Magnitude of the impulse exchanged along the normal (see
    /// [`CollisionEvent::impulse`]).
    pub impulse: f32,
    /// Penetration depth when detected, metres.
    pub depth: f32,
}

/// How collisions are answered.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CollideParams {
    /// Coefficient of restitution along the normal: `1` is elastic (kinetic energy is
    /// kept, the seed's pool balls), `0` perfectly inelastic. Default `1`.
    /// [Limit: 0..=1]
    pub restitution: f32,
    /// Overlap allowed to survive depenetration, as a fraction of the smaller radius of
    /// each pair (the body's radius against a wall). Default `0.01`. [Limit: >= 0]
    pub tolerance: f32,
    /// Most depenetration sweeps per call. Default `100`. [Limit: >= 1]
    pub max_iterations: u32,
    /// Successive over-relaxation of depenetration: after the first sweep, each
    /// overlap is pushed apart by this multiple of its depth (the overshoot capped at
    /// half the smaller radius), leaving a small gap. Dense crowds converge several
    /// times faster (50 discs pressed into a corner: under 50 sweeps at `1.8`, up to
    /// 180 at `1`). Default `1.8`. [Limit: 1..2]
    pub over_relaxation: f32,
}

impl Default for CollideParams {
    fn default() -> Self {
        Self {
            restitution: 1.0,
            tolerance: 0.01,
            max_iterations: 100,
            over_relaxation: 1.8,
        }
    }
}

impl CollideParams {
    /// The defaults: elastic, 1% tolerance, at most 100 sweeps over-relaxed by 1.8.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets [`Self::restitution`].
    pub fn with_restitution(self, restitution: f32) -> Self {
        Self {
            restitution,
            ..self
        }
    }

    /// Sets [`Self::tolerance`].
    pub fn with_tolerance(self, tolerance: f32) -> Self {
        Self { tolerance, ..self }
    }

    /// Sets [`Self::max_iterations`].
    pub fn with_max_iterations(self, max_iterations: u32) -> Self {
        Self {
            max_iterations,
            ..self
        }
    }

    /// Sets [`Self::over_relaxation`].
    pub fn with_over_relaxation(self, over_relaxation: f32) -> Self {
        Self {
            over_relaxation,
            ..self
        }
    }
}

/// What one call of the resolver did and left.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ResolveSummary {
    /// Candidate pairs (body–body and body–wall) found touching, one event each.
    pub contacts: u32,
    /// Of those, the approaching pairs that received an impulse.
    pub impulses: u32,
    /// Depenetration sweeps run, the last one being the sweep that found nothing left
    /// to correct (unless the cap was hit).
    pub iterations: u32,
    /// Deepest overlap left among the candidates, metres.
    pub max_penetration: f32,
    /// Deepest overlap left among the candidates over the pair's smaller radius
    /// (`0.01` is 1%). Pairs with a zero radius do not count here.
    pub max_penetration_ratio: f32,
    /// Whether every candidate overlap is now within [`CollideParams::tolerance`].
    pub converged: bool,
}

/// Magnitude `j >= 0` of the impulse along a contact normal `n` (pointing from body `a`
/// to body `b`), given the normal component of the relative velocity
/// `normal_speed = (v_b - v_a) · n`, the inverse masses and the restitution `e`:
///
/// `j = -(1 + e) (v_b - v_a)·n / (1/m_a + 1/m_b)`, applied as `v_a -= j n / m_a`,
/// `v_b += j n / m_b`.
///
/// Zero when the pair is separating or at rest (`normal_speed >= 0`) or when neither
/// body can move. This is the one impulse formula for discs, spheres and walls (a wall
/// is an immovable body at rest). For `e = 1` it keeps momentum and kinetic energy and,
/// with equal masses, exchanges the normal velocities.
pub fn normal_impulse(
    normal_speed: f32,
    inverse_mass_a: f32,
    inverse_mass_b: f32,
    restitution: f32,
) -> f32 {
    let inverse_mass = inverse_mass_a + inverse_mass_b;
    let approaching = normal_speed < 0.0 && inverse_mass > 0.0;
    if !approaching {
        return 0.0;
    }
    let j = -(1.0 + restitution) * normal_speed / inverse_mass;
    if j.is_finite() {
        j
    } else {
        0.0
    }
}

/// Runs the collision phase over many bodies. Holds its parameters and scratch
/// buffers reused from call to call, so a step allocates nothing once warm.
///
/// One call ([`Self::resolve`]):
/// 1. **Contacts and impulses.** For each candidate pair in the given order, then each
///    candidate wall, detect the contact at the current positions; an approaching pair
///    gets the [`normal_impulse`] at once (sequential impulses, so later pairs see the
///    new velocities); each touching pair gives one [`CollisionEvent`].
/// 2. **Depenetration.** Projected Gauss–Seidel sweeps over every candidate pair and
///    then every candidate wall: an overlap deeper than the tolerance is removed,
///    split between the two bodies by inverse mass (walls and immovable bodies take
///    none); after the first sweep the corrections are over-relaxed
///    ([`CollideParams::over_relaxation`]). Sweeps stop when one finds nothing to
///    correct, or at the cap. Velocities are not touched.
///
/// A body pushed by its neighbours through a wall it was in front of (or touching) at
/// detection is pulled back to the wall's walkable side however far it went, so a
/// crowd pressed into a corner stays in the room.
///
/// Everything runs in the caller's order with no hashing, so the same input gives
/// the same bits. The cost is linear in candidates times sweeps: about 1 ms for
/// 100 000 moving discs with few contacts (`benches/collide.rs`).
#[derive(Clone, Debug, Default)]
pub struct Resolver {
    params: CollideParams,
    /// Scratch: each body's inverse mass.
    inverse_mass: Vec<f32>,
    /// Scratch, per body pair: not touching (or not movable) at detection, so the first
    /// depenetration sweep can skip it while neither body has moved.
    apart: Vec<bool>,
    /// Scratch: the depenetration sweeps' bookkeeping.
    sweeps: SweepScratch,
    /// Scratch: per wall candidate, its body's anchor when in front of the wall.
    wall_starts: Vec<Option<Vec2>>,
    /// Scratch: per body, its centre freed from the walls it touched at detection.
    wall_anchors: Vec<Vec2>,
}

/// A body as the shared solver sees it.
trait Rigid {
    type V: Space;
    fn center(&self) -> Self::V;
    fn center_mut(&mut self) -> &mut Self::V;
    fn velocity(&self) -> Self::V;
    fn velocity_mut(&mut self) -> &mut Self::V;
    fn radius(&self) -> f32;
    fn mass(&self) -> f32;
}

macro_rules! impl_rigid {
    ($body:ty, $v:ty) => {
        impl Rigid for $body {
            type V = $v;
            fn center(&self) -> $v {
                self.position
            }
            fn center_mut(&mut self) -> &mut $v {
                &mut self.position
            }
            fn velocity(&self) -> $v {
                self.velocity
            }
            fn velocity_mut(&mut self) -> &mut $v {
                &mut self.velocity
            }
            fn radius(&self) -> f32 {
                self.radius
            }
            fn mass(&self) -> f32 {
                self.mass
            }
        }
    };
}

impl_rigid!(Body, Vec2);
impl_rigid!(Body3, Vec3);

/// Which walls each body may touch, and how to touch one.
trait WallSet<V> {
    /// `(body, wall)` candidates.
    fn candidates(&self) -> &[(u32, u32)];
    /// The contact between a ball and a wall at detection.
    fn detect(&self, wall: u32, center: V, radius: f32) -> Option<Hit<V>>;
    /// Before detection: anchors every body at its centre.
    fn anchor(&mut self, centers: impl Iterator<Item = V>);
    /// Moves a body's anchor out of a wall contact found at detection, so that once
    /// every contact is seen the anchor lies on the walkable side of all of them.
    fn free_anchor(&mut self, body: u32, hit: &Hit<V>);
    /// After detection: a candidate whose body's anchor is in front of the wall is
    /// watched for being pushed through it.
    fn track(&mut self);
    /// The contact between candidate `k`'s ball and its wall during depenetration,
    /// which also catches a watched body pushed through the wall since its anchor.
    fn contact(&self, k: usize, wall: u32, center: V, radius: f32) -> Option<Hit<V>>;
}

/// One-sided wall segments (2D).
struct SegmentWalls<'a> {
    segments: &'a [Segment],
    candidates: &'a [(u32, u32)],
    /// Scratch, per body: its centre freed from the walls it touched at detection.
    anchors: &'a mut Vec<Vec2>,
    /// Scratch, per candidate: the body's anchor when it lies in front of the wall.
    starts: &'a mut Vec<Option<Vec2>>,
}

fn hit2(c: Contact) -> Hit<Vec2> {
    Hit {
        point: c.point,
        normal: c.normal,
        depth: c.depth,
    }
}

impl WallSet<Vec2> for SegmentWalls<'_> {
    fn candidates(&self) -> &[(u32, u32)] {
        self.candidates
    }

    fn detect(&self, wall: u32, center: Vec2, radius: f32) -> Option<Hit<Vec2>> {
        let segment = self.segments[wall as usize];
        contact_circle_segment(Circle::new(center, radius), segment).map(hit2)
    }

    fn anchor(&mut self, centers: impl Iterator<Item = Vec2>) {
        self.anchors.clear();
        self.starts.clear();
        if !self.candidates.is_empty() {
            self.anchors.extend(centers);
        }
    }

    fn free_anchor(&mut self, body: u32, hit: &Hit<Vec2>) {
        self.anchors[body as usize] -= hit.normal * hit.depth;
    }

    fn track(&mut self) {
        let (segments, anchors) = (self.segments, &*self.anchors);
        self.starts
            .extend(self.candidates.iter().map(|&(body, wall)| {
                let anchor = anchors[body as usize];
                in_front_of_wall(anchor, segments[wall as usize]).then_some(anchor)
            }));
    }

    fn contact(&self, k: usize, wall: u32, center: Vec2, radius: f32) -> Option<Hit<Vec2>> {
        let segment = self.segments[wall as usize];
        let circle = Circle::new(center, radius);
        match self.starts[k] {
            Some(start) => contact_circle_segment_swept(circle, segment, start),
            None => contact_circle_segment(circle, segment),
        }
        .map(hit2)
    }
}

/// No walls (3D).
struct NoWalls;

impl WallSet<Vec3> for NoWalls {
    fn candidates(&self) -> &[(u32, u32)] {
        &[]
    }

    fn detect(&self, _: u32, _: Vec3, _: f32) -> Option<Hit<Vec3>> {
        None
    }

    fn anchor(&mut self, _: impl Iterator<Item = Vec3>) {}

    fn free_anchor(&mut self, _: u32, _: &Hit<Vec3>) {}

    fn track(&mut self) {}

    fn contact(&self, _: usize, _: u32, _: Vec3, _: f32) -> Option<Hit<Vec3>> {
        None
    }
}

/// Running maximum of the overlap left in a sweep.
#[derive(Clone, Copy, Default)]
struct Worst {
    depth: f32,
    ratio: f32,
}

impl Resolver {
    /// A resolver with these parameters.
    pub fn new(params: CollideParams) -> Self {
        Self {
            params,
            inverse_mass: Vec::new(),
            apart: Vec::new(),
            sweeps: SweepScratch::default(),
            wall_starts: Vec::new(),
            wall_anchors: Vec::new(),
        }
    }

    /// Its parameters.
    pub fn params(&self) -> &CollideParams {
        &self.params
    }

    /// Changes its parameters.
    pub fn set_params(&mut self, params: CollideParams) {
        self.params = params;
    }

    /// Resolves collisions among `bodies` (positions already integrated for the step):
    /// impulses to approaching pairs, then depenetration. Appends one event per
    /// touching pair to `events` (it does not clear it) and returns what it did.
    ///
    /// - `pairs`: candidate body pairs `(i, j)` from the caller's broadphase, each
    ///   unordered pair at most once; the order is the processing order (sort them for
    ///   results that do not depend on how the broadphase found them). `(i, i)` is
    ///   skipped.
    /// - `walls`: wall segments, walkable space on each one's left (see
    ///   [`contact_circle_segment`](super::contact_circle_segment)).
    /// - `wall_candidates`: `(body, wall)` pairs to test, each at most once.
    ///
    /// Events come in processing order: body pairs, then walls. Pairs where neither
    /// side can move (two immovable bodies, an immovable body and a wall) are skipped
    /// entirely: no impulse, no push, no event. Only candidates are looked at, so the
    /// broadphase margin must cover how far depenetration moves bodies.
    ///
    /// One-sided walls cannot tell a body that crossed a wall from one legitimately
    /// behind it, so: a wall thinner than a body's diameter should not offer its back
    /// face as a candidate to a body on its front; and a centre that has crossed
    /// through a concave corner's vertex (behind both walls, nearest their common end)
    /// is pushed radially from that end, not back into the room.
    ///
    /// # Panics
    /// If an index is out of range for `bodies` or `walls`.
    ///
    /// # Example
    /// ```
    /// use crowdnav::collide::{Body, Collider, Resolver};
    /// use crowdnav::geom::Segment;
    /// use glam::Vec2;
    /// // Two equal discs meeting head-on just above a floor (walkable side: up).
    /// let mut bodies = [
    ///     Body::new(Vec2::new(0.0, 0.6), Vec2::new(1.0, 0.0), 0.5, 70.0),
    ///     Body::new(Vec2::new(0.9, 0.6), Vec2::new(-1.0, 0.0), 0.5, 70.0),
    /// ];
    /// let floor = [Segment::new(Vec2::new(-5.0, 0.0), Vec2::new(5.0, 0.0))];
    /// let mut events = Vec::new();
    /// let mut resolver = Resolver::default();
    /// let summary = resolver.resolve(&mut bodies, &[(0, 1)], &floor, &[(0, 0), (1, 0)], &mut events);
    /// // Elastic, equal masses: they swap velocities; the overlap is gone.
    /// assert_eq!(bodies[0].velocity, Vec2::new(-1.0, 0.0));
    /// assert_eq!(bodies[1].velocity, Vec2::new(1.0, 0.0));
    /// assert!(summary.converged && summary.max_penetration_ratio <= 0.01);
    /// assert_eq!(events.len(), 1);
    /// assert_eq!(events[0].other, Collider::Body(1));
    /// ```
    pub fn resolve(
        &mut self,
        bodies: &mut [Body],
        pairs: &[(u32, u32)],
        walls: &[Segment],
        wall_candidates: &[(u32, u32)],
        events: &mut Vec<CollisionEvent>,
    ) -> ResolveSummary {
        let mut starts = std::mem::take(&mut self.wall_starts);
        let mut anchors = std::mem::take(&mut self.wall_anchors);
        let mut walls = SegmentWalls {
            segments: walls,
            candidates: wall_candidates,
            anchors: &mut anchors,
            starts: &mut starts,
        };
        let summary = self.run(
            bodies,
            pairs,
            &mut walls,
            &mut |body, other, hit, impulse| {
                events.push(CollisionEvent {
                    body,
                    other,
                    point: hit.point,
                    normal: hit.normal,
                    impulse,
                    depth: hit.depth,
                });
            },
        );
        self.wall_starts = starts;
        self.wall_anchors = anchors;
        summary
    }

    /// Whether the last call had a constraint (a candidate pair or wall) on body
    /// `body`. A body without one was left exactly as it was, so a caller copying
    /// results back may skip it. `false` for a body out of range.
    pub fn constrained(&self, body: usize) -> bool {
        let starts = &self.sweeps.starts;
        match (starts.get(body), starts.get(body + 1)) {
            (Some(first), Some(end)) => end > first,
            _ => false,
        }
    }

    /// [`Self::resolve`] for spheres in 3D (no walls).
    ///
    /// # Panics
    /// If an index is out of range for `bodies`.
    pub fn resolve3(
        &mut self,
        bodies: &mut [Body3],
        pairs: &[(u32, u32)],
        events: &mut Vec<CollisionEvent3>,
    ) -> ResolveSummary {
        self.run(
            bodies,
            pairs,
            &mut NoWalls,
            &mut |body, other, hit, impulse| {
                let Collider::Body(other) = other else {
                    return;
                };
                events.push(CollisionEvent3 {
                    body,
                    other,
                    point: hit.point,
                    normal: hit.normal,
                    impulse,
                    depth: hit.depth,
                });
            },
        )
    }

    /// The solver, written once for 2D and 3D.
    fn run<B: Rigid>(
        &mut self,
        bodies: &mut [B],
        pairs: &[(u32, u32)],
        walls: &mut impl WallSet<B::V>,
        emit: &mut impl FnMut(u32, Collider, Hit<B::V>, f32),
    ) -> ResolveSummary {
        let params = self.params;
        let inverse = &mut self.inverse_mass;
        inverse.clear();
        inverse.extend(bodies.iter().map(|b| inverse_mass(b.mass())));
        let mut summary = ResolveSummary::default();

        // 1. Contacts and impulses.
        let apart = &mut self.apart;
        apart.clear();
        apart.resize(pairs.len(), true);
        for (c, &(i, j)) in pairs.iter().enumerate() {
            let (a, b) = (i as usize, j as usize);
            let (wa, wb) = (inverse[a], inverse[b]);
            if a == b || wa + wb <= 0.0 {
                continue;
            }
            let (ba, bb) = (&bodies[a], &bodies[b]);
            let Some(hit) = contact_ball_ball(ba.center(), ba.radius(), bb.center(), bb.radius())
            else {
                continue;
            };
            apart[c] = false;
            let normal_speed = (bb.velocity() - ba.velocity()).dot(hit.normal);
            let impulse = normal_impulse(normal_speed, wa, wb, params.restitution);
            if impulse > 0.0 {
                *bodies[a].velocity_mut() -= hit.normal * (impulse * wa);
                *bodies[b].velocity_mut() += hit.normal * (impulse * wb);
                summary.impulses += 1;
            }
            summary.contacts += 1;
            emit(i, Collider::Body(j), hit, impulse);
        }
        walls.anchor(bodies.iter().map(B::center));
        for k in 0..walls.candidates().len() {
            let (i, w) = walls.candidates()[k];
            let a = i as usize;
            let wa = inverse[a];
            if wa <= 0.0 {
                continue;
            }
            let body = &bodies[a];
            let Some(hit) = walls.detect(w, body.center(), body.radius()) else {
                continue;
            };
            walls.free_anchor(i, &hit);
            // A wall is an immovable body at rest.
            let normal_speed = -body.velocity().dot(hit.normal);
            let impulse = normal_impulse(normal_speed, wa, 0.0, params.restitution);
            if impulse > 0.0 {
                *bodies[a].velocity_mut() -= hit.normal * (impulse * wa);
                summary.impulses += 1;
            }
            summary.contacts += 1;
            emit(i, Collider::Wall(w), hit, impulse);
        }
        walls.track();

        // 2. Depenetration: projected Gauss–Seidel sweeps, over-relaxed after the first.
        let constraints = pairs.len() + walls.candidates().len();
        let scratch = &mut self.sweeps;
        scratch.prepare(bodies.len(), pairs, walls.candidates());
        let mut overlaps = std::mem::take(&mut scratch.overlaps);
        let mut sweep = Sweep {
            inverse,
            pairs,
            tolerance: params.tolerance,
            relaxation: 1.0,
            overlaps: &mut overlaps,
        };
        while summary.iterations < params.max_iterations.max(1) {
            summary.iterations += 1;
            let number = summary.iterations;
            let corrected = if number == 1 {
                let mut corrected = false;
                for c in 0..constraints {
                    // A pair found apart at detection, neither of whose bodies moved
                    // since (positions change only here), is still apart: the sweep
                    // would find nothing (its overlap is recorded as 0 already).
                    if apart.get(c) == Some(&true) && scratch.unmoved(pairs[c]) {
                        continue;
                    }
                    if sweep.constraint(bodies, walls, c, true) {
                        corrected = true;
                        scratch.moved(pairs, walls.candidates(), c, number, false);
                    }
                }
                corrected
            } else {
                scratch.link(pairs, walls.candidates());
                scratch.queue_moved(number);
                let mut corrected = false;
                while let Some(Reverse(c)) = scratch.queue.pop() {
                    let c = c as usize;
                    if sweep.constraint(bodies, walls, c, true) {
                        corrected = true;
                        scratch.moved(pairs, walls.candidates(), c, number, true);
                    }
                }
                corrected
            };
            if !corrected {
                summary.converged = true;
                break;
            }
            // (Written so that a NaN parameter means no over-relaxation.)
            sweep.relaxation = if params.over_relaxation > 1.0 {
                params.over_relaxation.min(2.0)
            } else {
                1.0
            };
        }
        if !summary.converged {
            // Measure what the last correcting sweep left, looking at every pair.
            for c in 0..constraints {
                sweep.constraint(bodies, walls, c, false);
            }
        }
        let mut worst = Worst::default();
        for &(depth, ratio) in sweep.overlaps.iter() {
            worst.depth = worst.depth.max(depth);
            worst.ratio = worst.ratio.max(ratio);
        }
        summary.max_penetration = worst.depth;
        summary.max_penetration_ratio = worst.ratio;
        scratch.overlaps = overlaps;
        summary
    }
}

/// The bookkeeping that lets a depenetration sweep look only at what may have changed.
///
/// Constraints are the body pairs, then the wall candidates (wall candidate `k` is
/// constraint `pairs.len() + k`), processed in that order. A constraint none of whose
/// bodies moved since the start of the previous sweep is where that sweep left it,
/// within the tolerance, so it is skipped; what is left is processed in the same order,
/// so the result is the same as sweeping everything, bit for bit, and a jam costs work
/// only where bodies still move. Sweep `s` (from the second) takes, in increasing
/// order, the constraints of the bodies moved in sweep `s - 1`, and those of a body
/// moved in sweep `s` that come after the constraint that moved it.
#[derive(Clone, Debug, Default)]
struct SweepScratch {
    /// Per body, its constraints (increasing) in `links[starts[b]..starts[b + 1]]`.
    starts: Vec<u32>,
    links: Vec<u32>,
    /// Whether `links` is filled for this call (only a second sweep needs it: most
    /// calls end after the first).
    linked: bool,
    /// Scratch of [`Self::link`]: per body, where its next link goes.
    cursor: Vec<u32>,
    /// Per body, the last sweep that moved it (0: none).
    moved_in: Vec<u32>,
    /// The bodies the last sweep moved, then those this sweep moves.
    moved_last: Vec<u32>,
    moved_now: Vec<u32>,
    /// Per constraint, the last sweep that queued it (0: none).
    queued_in: Vec<u32>,
    /// This sweep's constraints still to look at, smallest first.
    queue: BinaryHeap<Reverse<u32>>,
    /// Per constraint: `(depth, depth / smaller radius)` at its last look (the ratio 0
    /// for a zero radius).
    overlaps: Vec<(f32, f32)>,
}

impl SweepScratch {
    /// Counts every body's constraints and clears the marks; the links themselves are
    /// made by [`Self::link`] when a second sweep needs them.
    fn prepare(&mut self, bodies: usize, pairs: &[(u32, u32)], walls: &[(u32, u32)]) {
        let constraints = pairs.len() + walls.len();
        self.starts.clear();
        self.starts.resize(bodies + 1, 0);
        // As `constraint_bodies`: a pair of a body with itself counts once.
        for &(a, b) in pairs {
            self.starts[a as usize + 1] += 1;
            if b != a {
                self.starts[b as usize + 1] += 1;
            }
        }
        for &(a, _) in walls {
            self.starts[a as usize + 1] += 1;
        }
        for b in 0..bodies {
            self.starts[b + 1] += self.starts[b];
        }
        self.linked = false;
        self.moved_in.clear();
        self.moved_in.resize(bodies, 0);
        self.moved_last.clear();
        self.moved_now.clear();
        self.queued_in.clear();
        self.queued_in.resize(constraints, 0);
        self.queue.clear();
        self.overlaps.clear();
        self.overlaps.resize(constraints, (0.0, 0.0));
    }

    /// Links every body to its constraints (once per call).
    fn link(&mut self, pairs: &[(u32, u32)], walls: &[(u32, u32)]) {
        if self.linked {
            return;
        }
        self.linked = true;
        let bodies = self.starts.len().saturating_sub(1);
        self.links.clear();
        self.links.resize(self.starts[bodies] as usize, 0);
        // Filled in constraint order through a moving cursor per body, so each body's
        // list is increasing.
        self.cursor.clear();
        self.cursor.extend_from_slice(&self.starts[..bodies]);
        for c in 0..pairs.len() + walls.len() {
            let (a, b) = constraint_bodies(pairs, walls, c);
            for x in [Some(a), b].into_iter().flatten() {
                let at = &mut self.cursor[x as usize];
                self.links[*at as usize] = c as u32;
                *at += 1;
            }
        }
    }

    /// Whether neither body of `pair` has moved in any sweep yet.
    fn unmoved(&self, (a, b): (u32, u32)) -> bool {
        self.moved_in[a as usize] == 0 && self.moved_in[b as usize] == 0
    }

    /// Sweep `number` starts: queues the constraints of the bodies the last one moved.
    fn queue_moved(&mut self, number: u32) {
        std::mem::swap(&mut self.moved_last, &mut self.moved_now);
        self.moved_now.clear();
        for &x in &self.moved_last {
            let x = x as usize;
            for &d in &self.links[self.starts[x] as usize..self.starts[x + 1] as usize] {
                if self.queued_in[d as usize] != number {
                    self.queued_in[d as usize] = number;
                    self.queue.push(Reverse(d));
                }
            }
        }
    }

    /// Constraint `c` moved its bodies in sweep `number`: notes them, and with
    /// `queue_later` queues their constraints after `c` for this sweep.
    fn moved(
        &mut self,
        pairs: &[(u32, u32)],
        walls: &[(u32, u32)],
        c: usize,
        number: u32,
        queue_later: bool,
    ) {
        let (a, b) = constraint_bodies(pairs, walls, c);
        for x in [Some(a), b].into_iter().flatten() {
            let x = x as usize;
            if self.moved_in[x] != number {
                self.moved_in[x] = number;
                self.moved_now.push(x as u32);
            }
            if queue_later {
                for &d in &self.links[self.starts[x] as usize..self.starts[x + 1] as usize] {
                    if d as usize > c && self.queued_in[d as usize] != number {
                        self.queued_in[d as usize] = number;
                        self.queue.push(Reverse(d));
                    }
                }
            }
        }
    }
}

/// The bodies of constraint `c`: body pair `c`, or wall candidate `c - pairs.len()`
/// (its body alone); the second body is `None` also for a pair of a body with itself.
fn constraint_bodies(pairs: &[(u32, u32)], walls: &[(u32, u32)], c: usize) -> (u32, Option<u32>) {
    match c.checked_sub(pairs.len()) {
        None => (pairs[c].0, Some(pairs[c].1).filter(|&j| j != pairs[c].0)),
        Some(k) => (walls[k].0, None),
    }
}

/// One depenetration sweep's inputs.
struct Sweep<'s> {
    inverse: &'s [f32],
    pairs: &'s [(u32, u32)],
    tolerance: f32,
    /// How far past touching each correction goes: 1 in the first sweep, then
    /// [`CollideParams::over_relaxation`].
    relaxation: f32,
    /// Per constraint (body pairs, then wall candidates): `(depth, depth / smaller
    /// radius)` at its last look (the ratio 0 for a zero radius).
    overlaps: &'s mut [(f32, f32)],
}

impl Sweep<'_> {
    /// How far to push an overlap of `depth` apart: the depth, plus the
    /// over-relaxation's overshoot capped at half the smaller radius (so a deep
    /// correction never throws a body far past what it touched).
    fn push(&self, depth: f32, smaller_radius: f32) -> f32 {
        depth + ((self.relaxation - 1.0) * depth).min(0.5 * smaller_radius)
    }

    /// Records the overlap of constraint `c`.
    fn record(&mut self, c: usize, depth: f32, smaller_radius: f32) {
        let ratio = if smaller_radius > 0.0 {
            depth / smaller_radius
        } else {
            0.0
        };
        self.overlaps[c] = (depth, ratio);
    }

    /// Constraint `c` (a body pair, or wall candidate `c - pairs.len()`): records its
    /// overlap and removes it if deeper than the tolerance (only measures unless
    /// `correct`). Returns whether it moved a body.
    fn constraint<B: Rigid>(
        &mut self,
        bodies: &mut [B],
        walls: &impl WallSet<B::V>,
        c: usize,
        correct: bool,
    ) -> bool {
        match c.checked_sub(self.pairs.len()) {
            None => {
                let (i, j) = self.pairs[c];
                self.pair(bodies, c, i, j, correct)
            }
            Some(k) => self.wall(bodies, walls, k, correct),
        }
    }

    /// Pair `k`, bodies `i` and `j`: records its overlap, removes it if deeper than the
    /// tolerance.
    fn pair<B: Rigid>(
        &mut self,
        bodies: &mut [B],
        k: usize,
        i: u32,
        j: u32,
        correct: bool,
    ) -> bool {
        let (a, b) = (i as usize, j as usize);
        let (wa, wb) = (self.inverse[a], self.inverse[b]);
        let w = wa + wb;
        if a == b || w <= 0.0 {
            return false;
        }
        let (ba, bb) = (&bodies[a], &bodies[b]);
        let smaller = ba.radius().min(bb.radius());
        let Some(hit) = contact_ball_ball(ba.center(), ba.radius(), bb.center(), bb.radius())
        else {
            self.overlaps[k] = (0.0, 0.0);
            return false;
        };
        self.record(k, hit.depth, smaller);
        let too_deep = hit.depth > self.tolerance * smaller;
        if !(correct && too_deep) {
            return false;
        }
        let share = self.push(hit.depth, smaller) / w;
        *bodies[a].center_mut() -= hit.normal * (share * wa);
        *bodies[b].center_mut() += hit.normal * (share * wb);
        true
    }

    /// Wall candidate `k`: records its overlap, removes it if deeper than the tolerance.
    fn wall<B: Rigid>(
        &mut self,
        bodies: &mut [B],
        walls: &impl WallSet<B::V>,
        k: usize,
        correct: bool,
    ) -> bool {
        let (i, wall) = walls.candidates()[k];
        let a = i as usize;
        let slot = self.pairs.len() + k;
        if self.inverse[a] <= 0.0 {
            return false;
        }
        let body = &bodies[a];
        let radius = body.radius();
        let Some(hit) = walls.contact(k, wall, body.center(), radius) else {
            self.overlaps[slot] = (0.0, 0.0);
            return false;
        };
        self.record(slot, hit.depth, radius);
        let too_deep = hit.depth > self.tolerance * radius;
        if !(correct && too_deep) {
            return false;
        }
        *bodies[a].center_mut() -= hit.normal * self.push(hit.depth, radius);
        true
    }
}

#[cfg(test)]
#[path = "resolve_test.rs"]
mod tests;
