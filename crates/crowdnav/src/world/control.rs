//! What a game does to the agents it controls, between steps: drive one by velocity,
//! set its preferred velocity, teleport it, change its body and its priority.

use super::agent::{Agent, AgentBody, AgentId};
use super::params::{BadValue, Quantity, WorldError};
use super::step::World;
#[cfg(doc)]
use crate::mesh::NavMesh;
use glam::Vec2;

impl World {
    /// The place of agent `id`, or [`WorldError::UnknownAgent`].
    fn live(&self, id: AgentId) -> Result<usize, WorldError> {
        self.index_of(id).ok_or(WorldError::UnknownAgent(id))
    }

    /// Drives agent `id` at exactly `velocity` (a player, a vehicle on rails): from the
    /// next step on it is not steered and yields to nobody (collisions do not push it:
    /// it is an immovable body; only its centre is kept on the mesh), and the others
    /// avoid it as a body that will not cooperate, taking the whole avoidance. Its
    /// speed is not limited by its `max_speed`. `None` hands it back to its goal: it
    /// re-plans from where it is.
    ///
    /// # Errors
    /// [`WorldError::UnknownAgent`] when `id` names no agent of the world;
    /// [`WorldError::InvalidValue`] for a NaN or infinite velocity. The world is left
    /// unchanged.
    ///
    /// # Example
    /// ```
    /// use crowdnav::world::{AgentParams, World, WorldParams};
    /// use crowdnav::Orca;
    /// use glam::Vec2;
    ///
    /// let mut world = World::new(None, Box::new(Orca::default()), WorldParams::default());
    /// let player = world.add_agent(AgentParams::new(Vec2::ZERO, Vec2::ZERO))?;
    /// world.set_velocity(player, Some(Vec2::new(3.0, 0.0)))?;
    /// world.step(0.1)?;
    /// assert_eq!(world.agent(player).map(|a| a.velocity), Some(Vec2::new(3.0, 0.0)));
    /// world.set_velocity(player, None)?; // back to its goal
    /// # Ok::<(), crowdnav::world::WorldError>(())
    /// ```
    pub fn set_velocity(&mut self, id: AgentId, velocity: Option<Vec2>) -> Result<(), WorldError> {
        let index = self.live(id)?;
        check_velocity(id, velocity, Quantity::Velocity)?;
        let a = &mut self.crowd.agents[index];
        if velocity.is_none() && a.driven.is_some() {
            a.needs_plan = true;
        }
        self.crowd.driven =
            self.crowd.driven + usize::from(velocity.is_some()) - usize::from(a.driven.is_some());
        a.driven = velocity;
        Ok(())
    }

    /// Sets the velocity agent `id` wants instead of following its path (a learning
    /// agent's action, as RVO2's `setAgentPrefVelocity`): it still avoids the others
    /// and the walls, and is avoided as usual, but it heads this way rather than along
    /// its path, and does not arrive. `None` hands it back to its goal: it re-plans
    /// from where it is.
    ///
    /// # Errors
    /// [`WorldError::UnknownAgent`] when `id` names no agent of the world;
    /// [`WorldError::InvalidValue`] for a NaN or infinite velocity. The world is left
    /// unchanged.
    pub fn set_preferred_velocity(
        &mut self,
        id: AgentId,
        velocity: Option<Vec2>,
    ) -> Result<(), WorldError> {
        let index = self.live(id)?;
        check_velocity(id, velocity, Quantity::PreferredVelocity)?;
        let a = &mut self.crowd.agents[index];
        if velocity.is_none() && a.wanted.is_some() {
            a.needs_plan = true;
        }
        self.crowd.pointed =
            self.crowd.pointed + usize::from(velocity.is_some()) - usize::from(a.wanted.is_some());
        a.wanted = velocity;
        Ok(())
    }

    /// Moves agent `id` to `position` at once (a teleport): onto the nearest place to
    /// `position` where its disc fits on the mesh ([`NavMesh::nearest_point`]: exact;
    /// `position` itself when it fits, or without a mesh). It re-plans at the next
    /// step. Returns where it was put.
    ///
    /// # Errors
    /// [`WorldError::UnknownAgent`] when `id` names no agent of the world;
    /// [`WorldError::InvalidValue`] for a NaN or infinite position;
    /// [`WorldError::NoRoom`] when the disc fits nowhere on the mesh. The world is left
    /// unchanged.
    pub fn set_position(&mut self, id: AgentId, position: Vec2) -> Result<Vec2, WorldError> {
        let index = self.live(id)?;
        if !position.is_finite() {
            return Err(WorldError::InvalidValue {
                agent: id,
                problem: BadValue::NotFinite(Quantity::Position),
            });
        }
        let radius = self.crowd.agents[index].radius;
        let at = match &self.mesh {
            // (The position is finite and the radius positive: the query refuses
            // neither.)
            Some(mesh) => match mesh.nearest_point(position, radius) {
                Ok(Some(near)) => near.point,
                _ => {
                    return Err(WorldError::NoRoom {
                        agent: id,
                        position,
                    })
                }
            },
            None => position,
        };
        let a = &mut self.crowd.agents[index];
        a.position = at;
        a.needs_plan = true;
        self.index.invalidate();
        Ok(at)
    }

    /// Changes agent `id`'s radius, speeds and mass; a new radius re-plans its path
    /// at the next step. The cruising speed is capped at the top speed.
    ///
    /// # Errors
    /// [`WorldError::UnknownAgent`] when `id` names no agent of the world;
    /// [`WorldError::InvalidValue`] for a radius, speed or mass that is not positive
    /// and finite. The world is left unchanged.
    pub fn set_params(&mut self, id: AgentId, body: AgentBody) -> Result<(), WorldError> {
        let index = self.live(id)?;
        if let Some(problem) = body.problem() {
            return Err(WorldError::InvalidValue { agent: id, problem });
        }
        let a = &mut self.crowd.agents[index];
        if a.radius != body.radius {
            a.needs_plan = true;
            a.radius = body.radius;
            self.crowd.radii = radii_of(&self.crowd.agents);
            self.index.invalidate();
        }
        let a = &mut self.crowd.agents[index];
        a.max_speed = body.max_speed;
        a.pref_speed = body.pref_speed.min(body.max_speed);
        a.mass = body.mass;
        Ok(())
    }

    /// Sets agent `id`'s priority: every agent of a lower priority yields to it,
    /// taking the whole avoidance between them and expecting it to walk as it wants
    /// to; agents of one priority share the avoidance (as they do by default, all at
    /// priority 0).
    ///
    /// # Errors
    /// [`WorldError::UnknownAgent`] when `id` names no agent of the world; the world
    /// is left unchanged.
    pub fn set_priority(&mut self, id: AgentId, priority: u8) -> Result<(), WorldError> {
        let index = self.live(id)?;
        self.crowd.agents[index].priority = priority;
        Ok(())
    }
}

/// The smallest and largest radius of `agents` (`INFINITY` and 0 without agents).
pub(super) fn radii_of(agents: &[Agent]) -> (f32, f32) {
    agents.iter().fold((f32::INFINITY, 0.0), |(lo, hi), a| {
        (lo.min(a.radius), hi.max(a.radius))
    })
}

fn check_velocity(id: AgentId, v: Option<Vec2>, quantity: Quantity) -> Result<(), WorldError> {
    match v {
        Some(v) if !v.is_finite() => Err(WorldError::InvalidValue {
            agent: id,
            problem: BadValue::NotFinite(quantity),
        }),
        _ => Ok(()),
    }
}
