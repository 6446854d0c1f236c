//! The space scene (the swarm seed's): planets on elliptical orbits around a sun, and
//! ships flying planet to planet with [`Swarm::steer_3d`], avoiding the planets and
//! each other; ships that still touch are pushed apart by [`Resolver::resolve3`].

use crate::draw2d::colour;
use crate::draw3d::Orbit;
use crate::edge::to_mq3;
use crowdnav::collide::{Body3, CollideParams, CollisionEvent3, Resolver};
use crowdnav::steer::{Neighbor3, SteerAgent3, Swarm, SwarmParams};
use glam::Vec3;
use macroquad::prelude as mq;
use std::f32::consts::TAU;

/// Seconds per step.
pub const DT: f32 = 0.02;
/// At most this many steps per frame.
const MAX_STEPS_PER_FRAME: u32 = 8;
/// Ships look this far for other ships, metres.
const SHIP_LOOKOUT: f32 = 6.0;
/// Points kept in each ship's trail.
const TRAIL: usize = 60;

/// A planet on a tilted elliptical orbit around the sun.
#[derive(Clone, Copy, Debug)]
pub struct Planet {
    /// Semi-axes of the orbit, metres.
    pub semi_axes: (f32, f32),
    /// Seconds per turn.
    pub period: f32,
    /// Angle at time 0, radians.
    pub phase: f32,
    /// Tilt of the orbit's plane about the x axis, radians.
    pub tilt: f32,
    /// Radius of the planet, metres.
    pub radius: f32,
    /// Its colour.
    pub colour: mq::Color,
}

impl Planet {
    /// Position at time `t`.
    pub fn at(&self, t: f32) -> Vec3 {
        self.at_angle(self.phase + TAU * t / self.period)
    }

    /// The point of the orbit at angle `a`, radians.
    pub fn at_angle(&self, a: f32) -> Vec3 {
        let flat = Vec3::new(self.semi_axes.0 * a.cos(), 0.0, self.semi_axes.1 * a.sin());
        let (s, c) = self.tilt.sin_cos();
        Vec3::new(flat.x, -flat.z * s, flat.z * c)
    }
}

/// A ship.
#[derive(Clone, Debug)]
pub struct Ship {
    /// Centre.
    pub position: Vec3,
    /// Velocity.
    pub velocity: Vec3,
    /// Index of the planet it flies to.
    pub target: usize,
    /// Trips completed.
    pub trips: u32,
    /// Recent positions.
    pub trail: Vec<Vec3>,
}

/// The scene.
pub struct Space {
    /// The sun's radius (it sits at the origin).
    pub sun_radius: f32,
    /// The planets.
    pub planets: Vec<Planet>,
    /// The ships.
    pub ships: Vec<Ship>,
    /// Radius of every ship.
    pub ship_radius: f32,
    /// Cruise speed of every ship.
    pub ship_speed: f32,
    /// Simulated time, seconds.
    pub time: f32,
    /// Ship collisions so far.
    pub collisions: u64,
    /// Milliseconds per step, smoothed.
    pub step_ms: f64,
    /// Whether the simulation is paused.
    pub paused: bool,
    /// The camera.
    pub orbit: Orbit,
    swarm: Swarm,
    resolver: Resolver,
    acc: f32,
    events: Vec<CollisionEvent3>,
}

impl Space {
    /// Five planets, a sun, `ships` ships spread over the planets.
    pub fn new(ships: usize) -> Space {
        let palette = [
            mq::Color::new(0.55, 0.75, 0.95, 1.0),
            mq::Color::new(0.85, 0.55, 0.35, 1.0),
            mq::Color::new(0.45, 0.85, 0.55, 1.0),
            mq::Color::new(0.80, 0.45, 0.85, 1.0),
            mq::Color::new(0.90, 0.85, 0.50, 1.0),
        ];
        let planets: Vec<Planet> = (0..5)
            .map(|i| {
                let f = i as f32;
                Planet {
                    semi_axes: (10.0 + 6.5 * f, 8.0 + 5.5 * f),
                    period: 40.0 + 18.0 * f,
                    phase: f * 2.1,
                    tilt: 0.12 * (f - 2.0),
                    radius: 1.0 + 0.25 * ((i * 7) % 4) as f32,
                    colour: palette[i],
                }
            })
            .collect();
        let ship_radius = 0.35;
        let ships = (0..ships)
            .map(|k| {
                let home = k % planets.len();
                let p = planets[home].at(0.0);
                let out = p.normalize_or_zero()
                    * (planets[home].radius + 1.0 + 0.8 * (k / planets.len()) as f32);
                let pos = p + out + Vec3::Y * (0.6 * (k % 3) as f32 - 0.6);
                Ship {
                    position: pos,
                    velocity: Vec3::ZERO,
                    target: (home + 1 + k % 3) % planets.len(),
                    trips: 0,
                    trail: Vec::new(),
                }
            })
            .collect();
        Space {
            sun_radius: 3.0,
            planets,
            ships,
            ship_radius,
            ship_speed: 6.0,
            time: 0.0,
            collisions: 0,
            step_ms: 0.0,
            paused: false,
            orbit: Orbit {
                target: mq::Vec3::ZERO,
                yaw: -0.5,
                pitch: 0.75,
                distance: 95.0,
            },
            swarm: Swarm::new(SwarmParams::default()),
            resolver: Resolver::new(CollideParams::default()),
            acc: 0.0,
            events: Vec::new(),
        }
    }

    /// Advances by `frame_dt` seconds in fixed steps.
    pub fn update(&mut self, frame_dt: f32) {
        if self.paused {
            return;
        }
        self.acc += frame_dt;
        let mut n = 0;
        while self.acc >= DT && n < MAX_STEPS_PER_FRAME {
            self.acc -= DT;
            n += 1;
            let t0 = crate::edge::seconds();
            self.step();
            let ms = (crate::edge::seconds() - t0) * 1000.0;
            self.step_ms = if self.step_ms == 0.0 {
                ms
            } else {
                0.9 * self.step_ms + 0.1 * ms
            };
        }
        if n == MAX_STEPS_PER_FRAME {
            self.acc = 0.0;
        }
    }

    /// Centres of the sun (index 0) and planets at time `t`, with their radii.
    fn bodies_at(&self, t: f32) -> Vec<(Vec3, f32)> {
        std::iter::once((Vec3::ZERO, self.sun_radius))
            .chain(self.planets.iter().map(|p| (p.at(t), p.radius)))
            .collect()
    }

    /// One step: steer every ship from the same old state, move, resolve contacts.
    pub fn step(&mut self) {
        let now = self.bodies_at(self.time);
        let r = self.ship_radius;
        let mut velocities = Vec::with_capacity(self.ships.len());
        let mut neighbors = Vec::new();
        for (i, ship) in self.ships.iter().enumerate() {
            neighbors.clear();
            for (k, &(c, radius)) in now.iter().enumerate() {
                if k != ship.target + 1 {
                    neighbors.push(Neighbor3 {
                        position: c,
                        radius,
                    });
                }
            }
            for (j, other) in self.ships.iter().enumerate() {
                if j != i
                    && other.position.distance_squared(ship.position) < SHIP_LOOKOUT * SHIP_LOOKOUT
                {
                    neighbors.push(Neighbor3 {
                        position: other.position,
                        radius: r,
                    });
                }
            }
            let (target, target_radius) = now[ship.target + 1];
            let agent = SteerAgent3 {
                position: ship.position,
                radius: r,
                max_speed: self.ship_speed,
                target,
                target_radius,
            };
            velocities.push(self.swarm.steer_3d(&agent, &neighbors));
        }
        let n_planets = self.planets.len();
        for (i, (ship, v)) in self.ships.iter_mut().zip(velocities).enumerate() {
            if v == Vec3::ZERO {
                // Arrived: on to another planet.
                ship.trips += 1;
                ship.target =
                    (ship.target + 1 + (i + ship.trips as usize) % (n_planets - 1)) % n_planets;
            }
            ship.velocity = v;
            ship.position += v * DT;
        }
        self.time += DT;
        // Contacts: ships are bodies of 1 kg; the sun and planets are immovable.
        let later = self.bodies_at(self.time);
        let mut bodies: Vec<Body3> = self
            .ships
            .iter()
            .map(|s| Body3::new(s.position, s.velocity, r, 1.0))
            .collect();
        let ns = bodies.len();
        for (k, &(c, radius)) in later.iter().enumerate() {
            let v = (c - now[k].0) / DT;
            bodies.push(Body3::new(c, v, radius, f32::INFINITY));
        }
        let mut pairs = Vec::new();
        for i in 0..ns {
            for j in i + 1..bodies.len() {
                let reach = bodies[i].radius + bodies[j].radius + 0.05;
                if bodies[i].position.distance_squared(bodies[j].position) < reach * reach {
                    pairs.push((i as u32, j as u32));
                }
            }
        }
        self.events.clear();
        if !pairs.is_empty() {
            self.resolver
                .resolve3(&mut bodies, &pairs, &mut self.events);
        }
        self.collisions += self.events.len() as u64;
        for (ship, b) in self.ships.iter_mut().zip(&bodies) {
            ship.position = b.position;
            ship.velocity = b.velocity;
            ship.trail.push(b.position);
            if ship.trail.len() > TRAIL {
                ship.trail.remove(0);
            }
        }
    }

    /// Trips completed by all ships.
    pub fn trips(&self) -> u32 {
        self.ships.iter().map(|s| s.trips).sum()
    }

    /// Draws the scene.
    pub fn draw(&self) {
        mq::set_camera(&self.orbit.camera());
        let sun = mq::Color::new(1.0, 0.85, 0.3, 1.0);
        mq::draw_sphere(mq::Vec3::ZERO, self.sun_radius, None, sun);
        let orbit_line = mq::Color::new(0.3, 0.32, 0.4, 1.0);
        for p in &self.planets {
            let n = 96;
            for k in 0..n {
                let a = TAU * k as f32 / n as f32;
                let b = TAU * (k + 1) as f32 / n as f32;
                mq::draw_line_3d(to_mq3(p.at_angle(a)), to_mq3(p.at_angle(b)), orbit_line);
            }
            mq::draw_sphere(to_mq3(p.at(self.time)), p.radius, None, p.colour);
        }
        for ship in &self.ships {
            let c = self.planets[ship.target].colour;
            let faded = mq::Color::new(c.r, c.g, c.b, 0.45);
            for w in ship.trail.windows(2) {
                mq::draw_line_3d(to_mq3(w[0]), to_mq3(w[1]), faded);
            }
            mq::draw_sphere(to_mq3(ship.position), self.ship_radius, None, colour::TEXT);
        }
        mq::set_default_camera();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ships_travel_between_planets_without_entering_them() {
        let mut s = Space::new(20);
        for _ in 0..3000 {
            s.step();
        }
        assert!(s.trips() > 0, "no ship arrived in 60 s");
        let bodies = s.bodies_at(s.time);
        for ship in &s.ships {
            assert!(ship.position.is_finite());
            for &(c, radius) in &bodies {
                assert!(ship.position.distance(c) > radius + s.ship_radius * 0.5);
            }
        }
    }
}
