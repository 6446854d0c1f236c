//! Generational handles: which agent of [`World::agents`](super::World::agents) an
//! [`AgentId`] names, if it still names one.

use super::agent::{Agent, AgentId};

/// One slot: the generation of the agent holding it (or of the next one, when free)
/// and that agent's index in the dense list of agents.
#[derive(Clone, Copy, Debug)]
struct Slot {
    generation: u32,
    /// Index into the agents, or [`FREE`].
    index: u32,
}

/// [`Slot::index`] of a free slot.
const FREE: u32 = u32::MAX;

/// The slot map from ids to the agents' places. Agents live in one dense list in the
/// order they were added (a removal moves the later ones down one place), so every
/// phase iterates them in a fixed order; ids stay as they were.
///
/// Freed slots are reused last freed first; a slot whose generation would wrap around
/// is retired, so no id ever names two agents.
#[derive(Clone, Debug, Default)]
pub(super) struct Slots {
    slots: Vec<Slot>,
    free: Vec<u32>,
}

impl Slots {
    /// A new id for the agent about to be pushed at `index`.
    pub fn insert(&mut self, index: usize) -> AgentId {
        let index = index as u32;
        match self.free.pop() {
            Some(slot) => {
                let s = &mut self.slots[slot as usize];
                s.index = index;
                AgentId::new(slot, s.generation)
            }
            None => {
                let slot = self.slots.len() as u32;
                self.slots.push(Slot {
                    generation: 0,
                    index,
                });
                AgentId::new(slot, 0)
            }
        }
    }

    /// The id [`Slots::insert`] hands out next.
    pub fn next_id(&self) -> AgentId {
        match self.free.last() {
            Some(&slot) => AgentId::new(slot, self.slots[slot as usize].generation),
            None => AgentId::new(self.slots.len() as u32, 0),
        }
    }

    /// The place of the agent `id` names, if it is still in the world.
    pub fn index_of(&self, id: AgentId) -> Option<usize> {
        let s = self.slots.get(id.slot() as usize)?;
        (s.generation == id.generation() && s.index != FREE).then_some(s.index as usize)
    }

    /// Frees `id`'s slot, which must be live (see [`Slots::index_of`]), after its agent
    /// left `agents` (the dense list, without it): the agents from its old place on
    /// moved down one.
    pub fn remove(&mut self, id: AgentId, agents: &[Agent], from: usize) {
        let Some(s) = self.slots.get_mut(id.slot() as usize) else {
            return;
        };
        s.index = FREE;
        // A slot whose generation would wrap around is retired: its last id must never
        // name another agent.
        if let Some(g) = s.generation.checked_add(1) {
            s.generation = g;
            self.free.push(id.slot());
        }
        for (k, a) in agents.iter().enumerate().skip(from) {
            if let Some(s) = self.slots.get_mut(a.id.slot() as usize) {
                s.index = k as u32;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_retired_slot_is_never_reused() {
        let mut slots = Slots::default();
        let id = slots.insert(0);
        slots.slots[0].generation = u32::MAX;
        let last = AgentId::new(id.slot(), u32::MAX);
        assert_eq!(slots.index_of(last), Some(0));
        slots.remove(last, &[], 0);
        assert_eq!(slots.index_of(last), None);
        let next = slots.insert(0);
        assert_ne!(next.slot(), id.slot());
    }
}
