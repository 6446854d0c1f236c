//! The disc raycast walked as a point over the radius's kept boundary
//! (`mesh/query_radius.rs`): what [`NavMesh::raycast`](crate::mesh::NavMesh::raycast)
//! tries first at `r > 0`, on the ray grid's cells (`mesh/query_ray.rs`), falling back
//! on the ray grid's walk whenever the rule below cannot vouch for its answer.
//!
//! From a start where the disc fits, the disc's first touch is where its centre first
//! meets the boundary of the walls' capsules of radius `r`, which the kept pieces
//! cover. Each cell lists the kept pieces (offset segments, arcs round wall ends, and
//! the crossings kept alone) whose box, grown by a pad, meets it, each with the walls
//! it bounds and their ends, in `f32`. The walk crosses the ray's cells in order,
//! tests each listing against the ray's line (one branch a listing: a segment's ends,
//! or an arc's circle, on one side), crosses the others, and stops once the first
//! crossing lies no later than the cell being left. The answer is then the least
//! `capsule_entry` (ties to the lower wall index) over the walls of the pieces crossed
//! up to the first crossing plus a margin: no other wall can touch first.
//!
//! The bound (tested in `f64` by `mesh/query_radius_ray_test.rs`, and whole, to the
//! bit, by `mesh/query_ray_exact_test.rs`). Let `S` be the kept boundary's scale. A
//! listed piece lies within `ε = τ + 2^-23 S + 1e-12 S` of its wall's offset (`τ =
//! 1e-6 S`, the tolerance pieces are kept to; `2^-23 S`, their `f32` rounding; the
//! arithmetic's rounding far below `1e-12 S`), so a crossing at angle `θ` to its piece
//! is off by at most `ε / sin θ` along the ray. With `σ = 4ε` and `m = 2σ / |d|`, the
//! walls of the pieces crossed up to the first crossing `t1` (or 1) plus `m` hold the
//! answer, unless before `t1 + 2m` a piece's end (a junction, or a crossing kept
//! alone) lies within `σ` of the ray, a segment piece is crossed with
//! `sin θ < ε / σ`, or the ray passes an arc's centre within `σ` of `r` (nearly
//! tangent): then, and when the start has less than `r + σ` of clearance (a second
//! bitmap of sub-cells, marked with that pad), the ray grid's walk answers. The
//! listings are binned with a pad of `6σ` (and a rounding margin), so that every
//! piece within `σ` of the ray up to `t1 + 2m` is listed in a cell the walk visits.
//!
//! **Edits.** The pieces near a point depend only on the walls within `r` of it and
//! on whether it is walkable. An edit marks stale the cells within `2r`, the pad and a
//! margin of the changed triangles' boxes (a bit of the cells' starts, read anyway); a
//! ray that starts in or walks into a stale cell takes the ray grid's walk (which
//! edits patch). The other cells list pieces of walls the edit kept, whose order the
//! renumbering keeps, so ties still go to the lower index. The stale cells are made
//! again when the kept boundary is next brought up to date at the radius
//! ([`Kept::refreshed`]).

use super::radius::{Piece, RadiusIndex};
use super::ray::capsule_entry_by_selects;
use super::walkable::{self, Lattice};
use super::Wall64;
use crate::geom::Segment;
use crate::mesh::navmesh::NavMesh;
use glam::{DVec2, Vec2};
use std::collections::HashMap;

/// Sub-cells of a cell along each side, in the bitmap where the disc fits.
const SUB: usize = 8;

/// The bit of a cell's start that marks it stale.
const STALE: u32 = 1 << 31;

/// Kinds of listings (`Listing::kind`, low bits).
const SEGMENT: u32 = 0;
const POINT: u32 = 1;
const ARC: u32 = 2;
const SMALL_ARC: u32 = 3;
const CIRCLE: u32 = 4;
/// A flag of `Listing::kind`: an arc round an end of more than two walls (a crossing
/// of it falls back, as the listing carries two).
const CROWDED: u32 = 8;

/// Listings near the ray a cell may hold; more fall back.
const GATHERED: usize = 16;

/// Crossings a ray keeps (up to its first plus the margin); more fall back.
const MAX_CROSSINGS: usize = 8;

/// A kept piece as a cell lists it, with the walls it bounds.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
struct Listing {
    /// A segment's ends (a point's twice), or an arc's centre twice.
    p: Vec2,
    q: Vec2,
    /// An arc's ends, counter-clockwise from `from` to `to`.
    from: Vec2,
    to: Vec2,
    /// The kind (and [`CROWDED`]).
    kind: u32,
    /// The walls' indices (`u32::MAX`: none), lower first, and their ends.
    walls: [u32; 2],
    ends: [[Vec2; 2]; 2],
}

/// What the walk reads of every listing: a segment's ends (a point's twice), or an
/// arc's centre twice, and the radius round them (0 for a segment, `r` for an arc).
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
struct Hot {
    p: Vec2,
    q: Vec2,
    rho: f32,
}

/// The kept-boundary walk's data for one radius: see the [module](self)'s notes.
#[derive(Clone, Debug)]
pub(crate) struct Kept {
    radius: f64,
    /// The ray grid's cells.
    origin: DVec2,
    cell: f64,
    inv_cell: f64,
    cols: usize,
    rows: usize,
    /// The slack of the rule, and the pad listings are binned with.
    sigma: f64,
    pad: f64,
    /// The kept boundary's scale.
    scale: f64,
    /// Cell `c` lists `items[starts[c]..starts[c + 1]]` (bit [`STALE`] masked off);
    /// [`STALE`] set in `starts[c]`: the cell is stale.
    starts: Vec<u32>,
    items: Vec<Listing>,
    /// What the walk reads of each of `items`, in the same order.
    hot: Vec<Hot>,
    /// Per cell: which of its 8 × 8 sub-cells lie where the disc fits with `σ` to
    /// spare (bit `8 j + i`, as the ray grid's walkable bits).
    fits: Vec<u64>,
    /// The boxes of the triangles changed since the cells were made (for the stale
    /// cells' refresh).
    boxes: Vec<(DVec2, DVec2)>,
}

/// The grid's cells: origin, side, columns and rows.
pub(crate) type Cells = (DVec2, f64, usize, usize);

/// What a ray's walk gathers.
struct Walk {
    /// The first crossing, or 1.
    t1: f64,
    /// The earliest doubt (a reason to fall back) seen.
    doubt: f64,
    crossings: [(f64, u32); MAX_CROSSINGS],
    count: usize,
    /// The ray's length and its square, and the margin `m`.
    dl: f64,
    dl2: f64,
    m: f64,
}

impl Kept {
    /// The data for `index`'s radius (`r > 0`) on the cells `cells` of the ray grid,
    /// over the mesh's `walls` (as the query index numbers them); `None` when the
    /// lists would pass the bits of their indices or the bitmap its size.
    pub(crate) fn new(
        mesh: &NavMesh,
        index: &RadiusIndex,
        walls: &[Segment],
        (origin, cell, cols, rows): Cells,
    ) -> Option<Kept> {
        let r = index.radius;
        if r.is_nan()
            || r <= 0.0
            || cols == 0
            || rows == 0
            || cols.saturating_mul(rows).saturating_mul(SUB * SUB) > walkable::MAX_CELLS as usize
        {
            return None;
        }
        let scale = index.scale();
        let eps = 1e-6 * scale + scale / f64::from(1u32 << 23) + 1e-12 * scale;
        let sigma = 4.0 * eps;
        let mut kept = Kept {
            radius: r,
            origin,
            cell,
            inv_cell: 1.0 / cell,
            cols,
            rows,
            sigma,
            pad: 6.0 * sigma + 1e-6 * scale,
            scale,
            starts: Vec::new(),
            items: Vec::new(),
            hot: Vec::new(),
            fits: vec![0; cols * rows],
            boxes: Vec::new(),
        };
        let pairs = kept.listings(index, walls, |_| true);
        kept.fill(pairs, |_| None)?;
        kept.mark(mesh, walls, [0, 0, cols, rows], scale);
        Some(kept)
    }

    /// The listings of the pieces of `index` in the cells `wanted` accepts, as (cell,
    /// listing) pairs in order of cells, then of pieces.
    fn listings(
        &self,
        index: &RadiusIndex,
        walls: &[Segment],
        wanted: impl Fn(usize) -> bool,
    ) -> Vec<(u32, Listing)> {
        let r = self.radius;
        let mut at_end: HashMap<[u32; 2], Vec<u32>> = HashMap::new();
        let mut pairs: Vec<(u32, u32, Listing)> = Vec::new();
        let wall_of = |k: u32| {
            walls
                .get(k as usize)
                .map_or([Vec2::ZERO; 2], |w| [w.a, w.b])
        };
        let mut order = 0u32;
        index.for_each_piece(|piece, owner| {
            let mut l = Listing {
                walls: [u32::MAX; 2],
                ..Listing::default()
            };
            match *piece {
                Piece::Segment(a, b) => {
                    (l.p, l.q, l.kind) = (a.as_vec2(), b.as_vec2(), SEGMENT);
                }
                Piece::Point(x) => {
                    (l.p, l.q, l.kind) = (x.as_vec2(), x.as_vec2(), POINT);
                }
                Piece::Arc {
                    center,
                    from,
                    to,
                    small,
                    full,
                } => {
                    let kind = match (full, small) {
                        (true, _) => CIRCLE,
                        (false, true) => SMALL_ARC,
                        (false, false) => ARC,
                    };
                    let c = center.as_vec2();
                    (l.p, l.q, l.from, l.to, l.kind) = (c, c, from.as_vec2(), to.as_vec2(), kind);
                }
            }
            match owner {
                Ok(k) => {
                    l.walls[0] = k;
                    l.ends[0] = wall_of(k);
                }
                Err(c) => {
                    if at_end.is_empty() {
                        for (k, w) in walls.iter().enumerate() {
                            for e in [w.a, w.b] {
                                at_end
                                    .entry(e.to_array().map(f32::to_bits))
                                    .or_default()
                                    .push(k as u32);
                            }
                        }
                    }
                    let c = c.as_vec2().to_array().map(f32::to_bits);
                    let ks = at_end.get(&c).map_or(&[][..], |v| &v[..]);
                    for (slot, &k) in ks.iter().take(2).enumerate() {
                        l.walls[slot] = k;
                        l.ends[slot] = wall_of(k);
                    }
                    if ks.len() > 2 {
                        l.kind |= CROWDED;
                    }
                }
            }
            let (lo, hi) = piece.bounds(r);
            let (lo, hi) = (lo - self.pad - self.origin, hi + self.pad - self.origin);
            let cell_of = |x: f64, n: usize| {
                ((x * self.inv_cell).floor().max(0.0) as usize).min(n.saturating_sub(1))
            };
            for y in cell_of(lo.y, self.rows)..=cell_of(hi.y, self.rows) {
                for x in cell_of(lo.x, self.cols)..=cell_of(hi.x, self.cols) {
                    let c = y * self.cols + x;
                    if wanted(c) {
                        pairs.push((c as u32, order, l));
                    }
                }
            }
            order += 1;
        });
        pairs.sort_unstable_by_key(|&(c, order, _)| (c, order));
        pairs.into_iter().map(|(c, _, l)| (c, l)).collect()
    }

    /// Fills the cells' lists from `pairs` (in order of cells) for the cells `old`
    /// gives no list of its own (`old(c)`: the listings of cell `c` to keep as they
    /// are); `None` when the lists would pass [`STALE`]'s bit.
    fn fill<'a>(
        &mut self,
        pairs: Vec<(u32, Listing)>,
        old: impl Fn(usize) -> Option<&'a [Listing]>,
    ) -> Option<()> {
        let cells = self.cols * self.rows;
        let mut starts = Vec::with_capacity(cells + 1);
        let mut items = Vec::with_capacity(pairs.len());
        let mut next = pairs.into_iter().peekable();
        for c in 0..cells {
            starts.push(u32::try_from(items.len()).ok().filter(|&n| n < STALE)?);
            match old(c) {
                Some(list) => items.extend_from_slice(list),
                None => {
                    while let Some((_, l)) = next.next_if(|&(cell, _)| cell as usize == c) {
                        items.push(l);
                    }
                }
            }
        }
        starts.push(u32::try_from(items.len()).ok().filter(|&n| n < STALE)?);
        let r = self.radius as f32;
        self.hot = (items.iter())
            .map(|l| Hot {
                p: l.p,
                q: l.q,
                rho: if l.kind & !CROWDED >= ARC { r } else { 0.0 },
            })
            .collect();
        self.starts = starts;
        self.items = items;
        Some(())
    }

    /// Marks the sub-cells where the disc fits with `σ` to spare in the cells of the
    /// window `[x0, y0, x1, y1)`, after clearing them.
    fn mark(&mut self, mesh: &NavMesh, walls: &[Segment], window: [usize; 4], scale: f64) {
        let lattice = Lattice {
            origin: self.origin,
            cell: self.cell / SUB as f64,
            cols: self.cols * SUB,
            rows: self.rows * SUB,
            pad: self.radius + self.sigma + 1e-6 * scale,
        };
        let [x0, y0, x1, y1] = window;
        let cols = self.cols;
        for y in y0..y1.min(self.rows) {
            for cell in &mut self.fits[y * cols + x0..y * cols + x1.min(cols)] {
                *cell = 0;
            }
        }
        let fits = &mut self.fits;
        let sub = [x0 * SUB, y0 * SUB, x1 * SUB, y1 * SUB];
        lattice.mark(mesh, walls.iter(), sub, |x, y| {
            if let Some(cell) = fits.get_mut(y / SUB * cols + x / SUB) {
                *cell |= 1 << (y % SUB * SUB + x % SUB);
            }
        });
    }

    /// The cells within reach of an edit of the triangles in `boxes`: those within `2r`,
    /// twice the pad and a margin of them.
    fn cells_near(&self, boxes: &[(DVec2, DVec2)], scale: f64) -> Vec<bool> {
        let mut near = vec![false; self.cols * self.rows];
        let grow = 2.0 * self.radius + 2.0 * self.pad + 1e-2 + 1e-5 * scale;
        let cell_of = |x: f64, n: usize| {
            let c = (x * self.inv_cell).floor();
            (c.max(0.0) as usize).min(n - 1)
        };
        for &(lo, hi) in boxes {
            let (lo, hi) = (lo - grow - self.origin, hi + grow - self.origin);
            if !(lo.is_finite() && hi.is_finite()) {
                near.fill(true);
                break;
            }
            for y in cell_of(lo.y, self.rows)..=cell_of(hi.y, self.rows) {
                for x in cell_of(lo.x, self.cols)..=cell_of(hi.x, self.cols) {
                    near[y * self.cols + x] = true;
                }
            }
        }
        near
    }

    /// Notes an edit of the triangles in `boxes` (as they were and as they are): the
    /// cells within reach of them are marked stale.
    pub(crate) fn edited(&mut self, boxes: &[(DVec2, DVec2)]) {
        let near = self.cells_near(boxes, self.scale);
        for (start, _) in self.starts.iter_mut().zip(&near).filter(|(_, &n)| n) {
            *start |= STALE;
        }
        self.boxes.extend_from_slice(boxes);
    }

    /// Whether some cell is stale.
    pub(crate) fn is_stale(&self) -> bool {
        !self.boxes.is_empty()
    }

    /// This data with its stale cells made again from `index` (the kept boundary at
    /// the radius, up to date with `mesh`, whose walls are `walls`).
    pub(crate) fn refreshed(&self, mesh: &NavMesh, index: &RadiusIndex, walls: &[Segment]) -> Kept {
        let scale = index.scale();
        let near = self.cells_near(&self.boxes, scale);
        let stale = |c: usize| near.get(c).copied().unwrap_or(true);
        let pairs = self.listings(index, walls, stale);
        let mut kept = Kept {
            starts: Vec::new(),
            items: Vec::new(),
            hot: Vec::new(),
            fits: self.fits.clone(),
            boxes: Vec::new(),
            ..*self
        };
        let old = |c: usize| {
            if stale(c) {
                return None;
            }
            let (a, b) = (self.starts.get(c)?, self.starts.get(c + 1)?);
            self.items.get((a & !STALE) as usize..(b & !STALE) as usize)
        };
        if kept.fill(pairs, old).is_none() {
            // (Too many listings: every cell stale, as the edit left them.)
            return self.clone();
        }
        // The sub-cells where the disc fits, marked again in windows round the boxes.
        let (cols, rows) = (self.cols, self.rows);
        let mut windows: Vec<[usize; 4]> = Vec::new();
        for y in 0..rows {
            let mut x = 0;
            while x < cols {
                if !near[y * cols + x] {
                    x += 1;
                    continue;
                }
                let x0 = x;
                while x < cols && near[y * cols + x] {
                    x += 1;
                }
                windows.push([x0, y, x, y + 1]);
            }
        }
        for window in windows {
            kept.mark(mesh, walls, window, scale);
        }
        kept
    }

    /// The first touch of the disc moving from `s` along `d` (from time 0 to 1), as
    /// the walk over every wall gives it: its time and wall, `Some(None)` when the way
    /// is clear; `None` when the rule falls back (the caller takes the ray grid's walk).
    #[inline]
    pub(crate) fn first_touch(&self, s: DVec2, d: DVec2) -> Option<Option<(f64, Wall64)>> {
        let p = (s - self.origin) * self.inv_cell;
        if !(p.x >= 0.0 && p.y >= 0.0 && p.x < self.cols as f64 && p.y < self.rows as f64) {
            return None;
        }
        let (x, y) = (p.x as u32 as usize, p.y as u32 as usize);
        let fits = *self.fits.get(y * self.cols + x)?;
        let (i, j) = (
            ((p.x * SUB as f64) as u32 as usize).wrapping_sub(x * SUB),
            ((p.y * SUB as f64) as u32 as usize).wrapping_sub(y * SUB),
        );
        if i >= SUB || j >= SUB || fits >> (j * SUB + i) & 1 == 0 {
            return None;
        }
        self.walk(s, d, x, y)
    }

    /// The walk of [`Kept::first_touch`] from cell `(x, y)`, which holds `s`.
    #[inline]
    fn walk(&self, s: DVec2, d: DVec2, x: usize, y: usize) -> Option<Option<(f64, Wall64)>> {
        let (r, sigma) = (self.radius, self.sigma);
        let (cols, rows) = (self.cols, self.rows);
        let (mut x, mut y) = (x, y);
        let dl2 = d.length_squared();
        let dl = dl2.sqrt();
        if !(dl > 0.0 && dl.is_finite()) {
            return None;
        }
        let m = 2.0 * sigma / dl;
        // Listings with both ends (a segment's) or the whole circle (an arc's) farther
        // than `σ` from the ray's line, on one side, are neither crossed nor near it
        // (the sides are times |d|).
        let near = sigma * dl;
        let axis = |d: f64, s: f64, origin: f64, at: usize| {
            if d == 0.0 {
                return (0usize, f64::INFINITY, f64::INFINITY);
            }
            let inv = 1.0 / d;
            let side = (at as i64 + i64::from(d > 0.0)) as f64;
            let step = if d > 0.0 { 1 } else { usize::MAX };
            (
                step,
                self.cell * inv.abs(),
                (origin + side * self.cell - s) * inv,
            )
        };
        let (step_x, delta_x, mut tx) = axis(d.x, s.x, self.origin.x, x);
        let (step_y, delta_y, mut ty) = axis(d.y, s.y, self.origin.y, y);
        let (next_x, next_y) = (step_x, step_y.wrapping_mul(cols));
        let mut c = y * cols + x;
        let side0 = d.perp_dot(s);
        let mut walk = Walk {
            t1: 1.0,
            doubt: f64::INFINITY,
            crossings: [(0.0, 0); MAX_CROSSINGS],
            count: 0,
            dl,
            dl2,
            m,
        };
        let (starts, hot) = (&self.starts[..], &self.hot[..]);
        let mut gathered = [0u32; GATHERED];
        loop {
            let (Some(&start), Some(&end)) = (starts.get(c), starts.get(c.wrapping_add(1))) else {
                return None;
            };
            if start & STALE != 0 {
                return None;
            }
            let (start, end) = (start as usize, (end & !STALE) as usize);
            // The listings near the ray's line, gathered first and inspected after,
            // so that the scan holds the walk's state in registers (no call in it).
            let mut count = 0usize;
            for (k, h) in hot.get(start..end).unwrap_or(&[]).iter().enumerate() {
                let (p, q) = (h.p.as_dvec2(), h.q.as_dvec2());
                let (op, oq) = (d.perp_dot(p) - side0, d.perp_dot(q) - side0);
                // Aside: both farther than `ρ + σ` on one side (by selects, so that
                // one comparison, and one branch, decides a listing).
                let far = near + f64::from(h.rho) * dl;
                let (lo, hi) = if op < oq { (op, oq) } else { (oq, op) };
                let (above, below) = (lo - far, -far - hi);
                if (if above > below { above } else { below }) > 0.0 {
                    continue;
                }
                gathered[count % GATHERED] = (start + k) as u32;
                count += 1;
            }
            if count > 0 {
                if count > GATHERED {
                    return None;
                }
                self.inspect_all(&gathered[..count], s, d, &mut walk);
            }
            let exit = if tx < ty { tx } else { ty };
            // Every crossing up to `t1`, and every piece within σ of the ray up to
            // `t1 + 2m`, is listed in the cells visited (by the pad).
            if walk.t1 <= exit {
                break;
            }
            if tx <= ty {
                x = x.wrapping_add(step_x);
                if x >= cols {
                    return None;
                }
                c = c.wrapping_add(next_x);
                tx += delta_x;
            } else {
                y = y.wrapping_add(step_y);
                if y >= rows {
                    return None;
                }
                c = c.wrapping_add(next_y);
                ty += delta_y;
            }
        }
        let t1 = walk.t1;
        if walk.count > MAX_CROSSINGS || walk.doubt <= t1 + 2.0 * m {
            return None;
        }
        // The least touch over the walls of the pieces crossed up to `t1 + m`, ties to
        // the lower index: within a listing its walls come in order of index (which
        // edits keep); two walls of different listings tied fall back, as their
        // indices may come from before and after an edit (one wall, or two with the
        // same ends, give the same answer).
        let mut best: Option<(f64, u32, Wall64)> = None;
        let mut tied = false;
        for &(t, at) in &walk.crossings[..walk.count] {
            if t > t1 + m {
                continue;
            }
            let l = self.items.get(at as usize)?;
            for (&k, ends) in l.walls.iter().zip(&l.ends) {
                if k == u32::MAX {
                    continue;
                }
                let (a, b) = (ends[0].as_dvec2(), ends[1].as_dvec2());
                let Some(t) = capsule_entry_by_selects(s, d, a, b, r, 1.0) else {
                    continue;
                };
                match best {
                    Some((u, _, _)) if t > u => {}
                    Some((u, from, wall)) if t == u => {
                        let same = |(p, q): Wall64| [p, q].map(|v| v.to_array().map(f64::to_bits));
                        tied |= from != at && same(wall) != same((a, b));
                    }
                    _ => {
                        best = Some((t, at, (a, b)));
                        tied = false;
                    }
                }
            }
        }
        if tied {
            return None;
        }
        Some(best.map(|(t, _, wall)| (t, wall)))
    }

    /// [`Kept::inspect`] on the listings `at`.
    #[inline(never)]
    fn inspect_all(&self, at: &[u32], s: DVec2, d: DVec2, walk: &mut Walk) {
        for &k in at {
            if let Some(h) = self.hot.get(k as usize) {
                self.inspect(h, k, s, d, walk);
            }
        }
    }

    /// A listing near the ray's line: its crossings with the ray (up to `1 + m`), and
    /// its doubts (ends near the ray, grazing crossings, a near tangent).
    #[inline]
    fn inspect(&self, h: &Hot, at: u32, s: DVec2, d: DVec2, walk: &mut Walk) {
        let (r, sigma) = (self.radius, self.sigma);
        let (dl, dl2, m) = (walk.dl, walk.dl2, walk.m);
        // A point within σ of the ray's segment (up to `1 + m`): a doubt at its time.
        let end = |e: DVec2, walk: &mut Walk| {
            let w = e - s;
            if d.perp_dot(w).abs() <= sigma * dl {
                let t = w.dot(d) / dl2;
                let slack = sigma / dl;
                if t >= -slack && t <= 1.0 + m + slack && t < walk.doubt {
                    walk.doubt = t;
                }
            }
        };
        let cross = |t: f64, walk: &mut Walk| {
            if !(t >= 0.0 && t <= 1.0 + m) {
                return;
            }
            // (A piece listed by several cells is crossed once: the same time and
            // piece.)
            let seen = walk.crossings[..walk.count.min(MAX_CROSSINGS)]
                .iter()
                .any(|&(u, k)| {
                    u.to_bits() == t.to_bits()
                        && (self.items.get(k as usize).map(|o| o.walls))
                            == (self.items.get(at as usize).map(|o| o.walls))
                });
            if seen {
                return;
            }
            if walk.count < MAX_CROSSINGS {
                walk.crossings[walk.count] = (t, at);
            }
            walk.count += 1;
            if t < walk.t1 {
                walk.t1 = t;
            }
        };
        let (p, q) = (h.p.as_dvec2(), h.q.as_dvec2());
        // (Segments and points need only what the walk read; a point's ends are one.)
        let kind = match h.rho == 0.0 {
            true => SEGMENT,
            false => match self.items.get(at as usize) {
                Some(l) => l.kind,
                None => return,
            },
        };
        match kind & !CROWDED {
            SEGMENT | POINT => {
                end(p, walk);
                end(q, walk);
                let u = q - p;
                let den = d.perp_dot(u);
                if den == 0.0 {
                    return;
                }
                let w = p - s;
                let (t, v) = (w.perp_dot(u) / den, w.perp_dot(d) / den);
                if (0.0..=1.0).contains(&v) && t >= 0.0 && t <= 1.0 + m {
                    // Grazing: sin θ < ε / σ = 1/4.
                    if 16.0 * den * den < dl2 * u.length_squared() && t < walk.doubt {
                        walk.doubt = t;
                    }
                    cross(t, walk);
                }
            }
            arc => {
                let Some(l) = self.items.get(at as usize) else {
                    return;
                };
                let (from, to) = (l.from.as_dvec2(), l.to.as_dvec2());
                let w = s - p;
                let (qa, qb, qc) = (dl2, w.dot(d), w.length_squared() - r * r);
                if (d.perp_dot(w).abs() / dl - r).abs() <= sigma {
                    let t = -qb / qa;
                    if t < walk.doubt {
                        walk.doubt = t;
                    }
                }
                if arc != CIRCLE {
                    end(from, walk);
                    end(to, walk);
                }
                let disc = qb * qb - qa * qc;
                if disc.is_nan() || disc <= 0.0 {
                    return;
                }
                let root = disc.sqrt();
                for t in [(-qb - root) / qa, (-qb + root) / qa] {
                    let u = s + d * t - p;
                    let (s0, s1) = ((from - p).perp_dot(u), u.perp_dot(to - p));
                    let on = match arc {
                        CIRCLE => true,
                        SMALL_ARC => s0 >= 0.0 && s1 >= 0.0,
                        _ => !(s0 < 0.0 && s1 < 0.0),
                    };
                    if on {
                        if kind & CROWDED != 0 && t >= 0.0 && t < walk.doubt {
                            walk.doubt = t;
                        }
                        cross(t, walk);
                    }
                }
            }
        }
    }
}
