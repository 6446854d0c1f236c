//! The buffers of a search, kept per thread between queries.

use super::apex::Arrival;
use super::astar::{Check, Open};
use super::disc::{Span, SpanMemo};
use super::portal::PortalRecord;
use super::tree::{Link, Node};
use crate::path::beside::BesideScratch;
use crate::path::funnel::{Wrap, WrapArena};
use smallvec::SmallVec;
use std::collections::BinaryHeap;

/// Buffers of a search, kept per thread between queries: a query then allocates (and
/// touches fresh pages) only when it outgrows the ones before it.
#[derive(Default)]
pub(super) struct Scratch {
    pub(super) nodes: Vec<Node>,
    pub(super) links: Vec<Link>,
    pub(super) arena: WrapArena,
    pub(super) open: BinaryHeap<Open>,
    /// Complete paths waiting in the open list.
    pub(super) done: Vec<Vec<Wrap>>,
    /// Per complete path (same index as `done`), for a disc: the check it still needs
    /// against corners beside its channel, made when it is popped.
    pub(super) unchecked: Vec<Option<Check>>,
    /// Best arrivals recorded per corner vertex, for dominance pruning.
    pub(super) arrivals: Stamped<u32>,
    pub(super) arrival_lists: ListPool<Arrival>,
    /// Funnels recorded per directed portal (`3 * triangle + exit edge`), for
    /// dominance pruning of whole portals.
    pub(super) portals: Stamped<u32>,
    pub(super) portal_lists: ListPool<PortalRecord>,
    /// Per directed portal (same handles as `portal_lists`), for a disc: where its
    /// centre may cross it. Kept with the lists, not in a slot per portal, so that a
    /// node looks up one small slot.
    pub(super) portal_spans: Vec<Span>,
    /// The newest node per triangle; older ones follow `Node::same_tri`.
    pub(super) last_in: Stamped<Option<u32>>,
    /// The generation of the search using the buffers, in the stamped slots.
    pub(super) generation: u32,
    /// The buffers of the check beside the channel, and its channel.
    pub(super) beside: BesideScratch,
    pub(super) channel: Vec<u32>,
    /// Crossing segments of portals for the mesh and radius of the last disc search.
    pub(super) span_memo: SpanMemo,
}

/// The list of id `id` in `lists`, through its handle in `slots` (0: none yet), made
/// on first use in a search. Slots stay small (the per-id arrays are large and touched
/// sparsely); the lists of one search sit together.
pub(super) fn list_of<'a, X>(
    slots: &mut Stamped<u32>,
    lists: &'a mut ListPool<X>,
    generation: u32,
    id: u32,
) -> &'a mut SmallVec<[X; 2]> {
    let handle = slots.get_mut(generation, id);
    if *handle == 0 {
        *handle = lists.open() as u32 + 1;
    }
    &mut lists[*handle as usize - 1]
}

/// Short lists handed out by handle during one search and kept between searches: a
/// list that outgrew its inline room keeps its heap buffer for the next search that
/// takes it, instead of freeing it and growing a new one.
pub(super) struct ListPool<X> {
    pub(super) lists: Vec<SmallVec<[X; 2]>>,
    /// Lists handed out in this search (the first `used`).
    pub(super) used: usize,
}

impl<X> Default for ListPool<X> {
    fn default() -> Self {
        ListPool {
            lists: Vec::new(),
            used: 0,
        }
    }
}

impl<X> ListPool<X> {
    /// Forgets every list handed out (their buffers stay).
    pub(super) fn reset(&mut self) {
        self.used = 0;
    }

    /// Hands out an empty list; returns its handle.
    pub(super) fn open(&mut self) -> usize {
        if let Some(list) = self.lists.get_mut(self.used) {
            list.clear();
        } else {
            self.lists.push(SmallVec::new());
        }
        self.used += 1;
        self.used - 1
    }
}

impl<X> std::ops::Index<usize> for ListPool<X> {
    type Output = SmallVec<[X; 2]>;
    fn index(&self, handle: usize) -> &Self::Output {
        &self.lists[handle]
    }
}

impl<X> std::ops::IndexMut<usize> for ListPool<X> {
    fn index_mut(&mut self, handle: usize) -> &mut Self::Output {
        &mut self.lists[handle]
    }
}

/// Per-id slots (vertices, triangles, directed edges) that read as empty in each new
/// search without being cleared: each slot carries the generation of the search that
/// last wrote it.
pub(super) struct Stamped<T> {
    slots: Vec<(u32, T)>,
}

impl<T> Default for Stamped<T> {
    fn default() -> Self {
        Stamped { slots: Vec::new() }
    }
}

impl<T: Default> Stamped<T> {
    /// Makes room for `len` ids; with `fresh`, forgets every slot.
    pub(super) fn prepare(&mut self, len: usize, fresh: bool) {
        if fresh {
            self.slots.clear();
        }
        if self.slots.len() < len {
            self.slots.resize_with(len, || (0, T::default()));
        }
    }

    /// The slot of `id` in the search of generation `generation`.
    pub(super) fn get_mut(&mut self, generation: u32, id: u32) -> &mut T {
        let slot = &mut self.slots[id as usize];
        if slot.0 != generation {
            *slot = (generation, T::default());
        }
        &mut slot.1
    }

    /// The slot of `id` if written in this search.
    pub(super) fn get(&self, generation: u32, id: u32) -> Option<&T> {
        self.slots
            .get(id as usize)
            .filter(|slot| slot.0 == generation)
            .map(|slot| &slot.1)
    }
}

/// Searches with more nodes than this hand their buffers back to the allocator.
pub(super) const KEEP_NODES: usize = 1 << 16;

thread_local! {
    pub(super) static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}
