//! Line segments: closest points, distances and intersections.

use super::predicates::{orient2d_value, Orientation};
use glam::{DVec2, Vec2};
use serde::{Deserialize, Serialize};

/// A straight line segment from `a` to `b`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Segment {
    /// Start point.
    pub a: Vec2,
    /// End point.
    pub b: Vec2,
}

impl Segment {
    /// The segment from `a` to `b`.
    pub const fn new(a: Vec2, b: Vec2) -> Self {
        Self { a, b }
    }

    /// Length of the segment.
    pub fn length(&self) -> f32 {
        self.a.distance(self.b)
    }

    /// The point of the segment closest to `p`. *See also* [`closest_point_on_segment`].
    pub fn closest_point(&self, p: Vec2) -> Vec2 {
        closest_point_on_segment(p, self.a, self.b)
    }

    /// Squared distance from `p` to the segment.
    pub fn distance_squared(&self, p: Vec2) -> f32 {
        self.closest_point(p).distance_squared(p)
    }

    /// Distance from `p` to the segment.
    pub fn distance(&self, p: Vec2) -> f32 {
        self.distance_squared(p).sqrt()
    }

    /// The same segment, walked the other way.
    pub fn reversed(self) -> Self {
        Self::new(self.b, self.a)
    }
}

/// The point of segment `a b` closest to `p`.
///
/// The dot-product method: project `p` onto the line, `t = (p - a)·(b - a) / |b - a|²`,
/// clamp `t` to `[0, 1]`. A degenerate segment (`a == b`) returns `a`.
///
/// # Example
/// ```
/// use crowdnav::geom::closest_point_on_segment;
/// use glam::{DVec2, Vec2};
/// let q = closest_point_on_segment(Vec2::new(1.0, 5.0), Vec2::ZERO, Vec2::new(4.0, 0.0));
/// assert_eq!(q, Vec2::new(1.0, 0.0));
/// ```
pub fn closest_point_on_segment(p: Vec2, a: Vec2, b: Vec2) -> Vec2 {
    let ab = b - a;
    let len_sq = ab.length_squared();
    if len_sq <= 0.0 {
        return a;
    }
    let t = ((p - a).dot(ab) / len_sq).clamp(0.0, 1.0);
    a + ab * t
}

/// How two segments meet.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SegmentIntersection {
    /// They share no point.
    None,
    /// They meet in exactly one point (crossing, or touching at an end).
    Point(Vec2),
    /// They are collinear and share a piece, from the first point to the second (a
    /// single point when they only touch end to end).
    Overlap(Vec2, Vec2),
}

/// Intersection of segments `p` and `q`.
///
/// Whether they meet is decided exactly (orientation predicates); the meeting point is
/// then computed in `f64` and rounded.
pub fn segment_intersection(p: Segment, q: Segment) -> SegmentIntersection {
    let d1 = orient2d_value(q.a, q.b, p.a);
    let d2 = orient2d_value(q.a, q.b, p.b);
    let d3 = orient2d_value(p.a, p.b, q.a);
    let d4 = orient2d_value(p.a, p.b, q.b);
    if d1 == 0.0 && d2 == 0.0 {
        return collinear_overlap(p, q);
    }
    let straddles = |x: f64, y: f64| (x <= 0.0 && y >= 0.0) || (x >= 0.0 && y <= 0.0);
    if !(straddles(d1, d2) && straddles(d3, d4)) {
        return SegmentIntersection::None;
    }
    // Exact touch at an end point.
    for (d, point) in [(d1, p.a), (d2, p.b)] {
        if d == 0.0 {
            return SegmentIntersection::Point(point);
        }
    }
    for (d, point) in [(d3, q.a), (d4, q.b)] {
        if d == 0.0 {
            return SegmentIntersection::Point(point);
        }
    }
    // Proper crossing: p.a + t (p.b - p.a), with t = d1 / (d1 - d2).
    let t = d1 / (d1 - d2);
    let (ax, ay) = (f64::from(p.a.x), f64::from(p.a.y));
    let (bx, by) = (f64::from(p.b.x), f64::from(p.b.y));
    let x = ax + t * (bx - ax);
    let y = ay + t * (by - ay);
    SegmentIntersection::Point(Vec2::new(x as f32, y as f32))
}

fn collinear_overlap(p: Segment, q: Segment) -> SegmentIntersection {
    // Project on the dominant axis of p (or q when p is a point).
    let dir = if p.a != p.b { p.b - p.a } else { q.b - q.a };
    if dir == Vec2::ZERO {
        return if p.a == q.a {
            SegmentIntersection::Point(p.a)
        } else {
            SegmentIntersection::None
        };
    }
    let key = |v: Vec2| {
        if dir.x.abs() >= dir.y.abs() {
            v.x
        } else {
            v.y
        }
    };
    let (p0, p1) = if key(p.a) <= key(p.b) {
        (p.a, p.b)
    } else {
        (p.b, p.a)
    };
    let (q0, q1) = if key(q.a) <= key(q.b) {
        (q.a, q.b)
    } else {
        (q.b, q.a)
    };
    let lo = if key(p0) >= key(q0) { p0 } else { q0 };
    let hi = if key(p1) <= key(q1) { p1 } else { q1 };
    if key(lo) > key(hi) {
        SegmentIntersection::None
    } else if lo == hi {
        SegmentIntersection::Point(lo)
    } else {
        SegmentIntersection::Overlap(lo, hi)
    }
}

impl From<f64> for Orientation {
    fn from(v: f64) -> Self {
        if v > 0.0 {
            Orientation::CounterClockwise
        } else if v < 0.0 {
            Orientation::Clockwise
        } else {
            Orientation::Collinear
        }
    }
}

/// The point of segment `a b` nearest to `x`, in `f64`.
pub(crate) fn closest_point_f64(x: DVec2, a: DVec2, b: DVec2) -> DVec2 {
    let ab = b - a;
    let len_sq = ab.length_squared();
    let t = if len_sq > 0.0 {
        ((x - a).dot(ab) / len_sq).clamp(0.0, 1.0)
    } else {
        0.0
    };
    a + ab * t
}

/// Squared distance between segments `p q` and `a b`, in `f64`: 0 when they cross,
/// else the least distance from an end of one to the other.
pub(crate) fn segments_distance_squared_f64(p: DVec2, q: DVec2, a: DVec2, b: DVec2) -> f64 {
    let o = |u: DVec2, v: DVec2, w: DVec2| (v - u).perp_dot(w - u);
    let (o1, o2, o3, o4) = (o(p, q, a), o(p, q, b), o(a, b, p), o(a, b, q));
    if o1 * o2 < 0.0 && o3 * o4 < 0.0 {
        return 0.0;
    }
    let d2 = |x: DVec2, u: DVec2, v: DVec2| x.distance_squared(closest_point_f64(x, u, v));
    d2(p, a, b)
        .min(d2(q, a, b))
        .min(d2(a, p, q))
        .min(d2(b, p, q))
}

/// The first time `t` in `[0, limit]` at which a disc of radius `r` centred at
/// `s + t d` moves into the `r`-neighbourhood of segment `a b` (touching it while
/// moving inwards). A disc already nearer than `r` counts at `t = 0` only when it
/// moves closer; grazing (moving along the boundary) does not count.
pub(crate) fn capsule_entry(
    s: DVec2,
    d: DVec2,
    a: DVec2,
    b: DVec2,
    r: f64,
    limit: f64,
) -> Option<f64> {
    let c0 = closest_point_f64(s, a, b);
    let off = s - c0;
    if off.length_squared() < r * r {
        // Inside: a hit now if moving closer (the distance is convex along the ray).
        return (d.dot(off) < 0.0).then_some(0.0);
    }
    let mut best = f64::INFINITY;
    let ab = b - a;
    let len_sq = ab.length_squared();
    if len_sq > 0.0 {
        // The side distances along the normal `ab.perp()`, of length `|ab|`, rather
        // than the unit one: `h0` and `dn` are `|ab|` times the start's distance from
        // the wall's line and the ray's speed across it, and the strip's half-width is
        // `r |ab|`, so no division comes before the time's.
        let p = ab.perp();
        let (h0, dn, rl) = (p.dot(s - a), p.dot(d), r * len_sq.sqrt());
        // Entering the strip |h0 + t dn| <= rl through the side the ray starts on.
        let t = if h0 >= rl && dn < 0.0 {
            Some((rl - h0) / dn)
        } else if h0 <= -rl && dn > 0.0 {
            Some((-rl - h0) / dn)
        } else {
            None
        };
        if let Some(t) = t.filter(|&t| t >= 0.0 && t <= limit) {
            let u = (s + d * t - a).dot(ab) / len_sq;
            if (0.0..=1.0).contains(&u) {
                best = t;
            }
        }
    }
    if r > 0.0 {
        for c in [a, b] {
            // |s + t d - c|² = r²: the smaller root, when the ray truly enters.
            let m = s - c;
            let (qa, qb, qc) = (d.length_squared(), m.dot(d), m.length_squared() - r * r);
            let disc = qb * qb - qa * qc;
            if qa > 0.0 && disc > 0.0 && qb < 0.0 {
                let t = (-qb - disc.sqrt()) / qa;
                if t >= 0.0 && t <= limit && t < best {
                    best = t;
                }
            }
        }
    }
    (best <= limit).then_some(best)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(ax: f32, ay: f32, bx: f32, by: f32) -> Segment {
        Segment::new(Vec2::new(ax, ay), Vec2::new(bx, by))
    }

    #[test]
    fn closest_point_clamps_to_the_ends() {
        let (a, b) = (Vec2::new(0.0, 0.0), Vec2::new(4.0, 0.0));
        assert_eq!(closest_point_on_segment(Vec2::new(-3.0, 2.0), a, b), a);
        assert_eq!(closest_point_on_segment(Vec2::new(9.0, -2.0), a, b), b);
        assert_eq!(
            closest_point_on_segment(Vec2::new(3.0, 3.0), a, b),
            Vec2::new(3.0, 0.0)
        );
        assert_eq!(closest_point_on_segment(Vec2::new(3.0, 3.0), a, a), a);
        assert_eq!(seg(0.0, 0.0, 4.0, 0.0).distance(Vec2::new(7.0, 4.0)), 5.0);
    }

    #[test]
    fn crossing_segments_meet_in_one_point() {
        let r = segment_intersection(seg(0.0, 0.0, 4.0, 4.0), seg(0.0, 4.0, 4.0, 0.0));
        assert_eq!(r, SegmentIntersection::Point(Vec2::new(2.0, 2.0)));
    }

    #[test]
    fn touching_and_disjoint_segments() {
        let t = segment_intersection(seg(0.0, 0.0, 2.0, 0.0), seg(1.0, 0.0, 1.0, 5.0));
        assert_eq!(t, SegmentIntersection::Point(Vec2::new(1.0, 0.0)));
        let n = segment_intersection(seg(0.0, 0.0, 2.0, 0.0), seg(1.0, 0.1, 1.0, 5.0));
        assert_eq!(n, SegmentIntersection::None);
        let parallel = segment_intersection(seg(0.0, 0.0, 2.0, 0.0), seg(0.0, 1.0, 2.0, 1.0));
        assert_eq!(parallel, SegmentIntersection::None);
    }

    #[test]
    fn collinear_segments_overlap_on_their_common_piece() {
        let r = segment_intersection(seg(0.0, 0.0, 4.0, 0.0), seg(6.0, 0.0, 2.0, 0.0));
        assert_eq!(
            r,
            SegmentIntersection::Overlap(Vec2::new(2.0, 0.0), Vec2::new(4.0, 0.0))
        );
        let end_to_end = segment_intersection(seg(0.0, 0.0, 2.0, 0.0), seg(2.0, 0.0, 3.0, 0.0));
        assert_eq!(end_to_end, SegmentIntersection::Point(Vec2::new(2.0, 0.0)));
        let apart = segment_intersection(seg(0.0, 0.0, 1.0, 0.0), seg(2.0, 0.0, 3.0, 0.0));
        assert_eq!(apart, SegmentIntersection::None);
    }

    #[test]
    fn random_intersections_lie_on_both_segments_and_agree_with_orientation() {
        use crate::geom::orient2d;
        use rand::{Rng, SeedableRng};
        use rand_chacha::ChaCha8Rng;
        let mut rng = ChaCha8Rng::seed_from_u64(0x5e9);
        let point =
            |r: &mut ChaCha8Rng| Vec2::new(r.gen_range(-20.0..20.0), r.gen_range(-20.0..20.0));
        let mut hits = 0;
        for _ in 0..5000 {
            let p = Segment::new(point(&mut rng), point(&mut rng));
            let q = Segment::new(point(&mut rng), point(&mut rng));
            // Proper crossing by orientation: each segment's ends on opposite sides.
            let crosses = orient2d(p.a, p.b, q.a) != orient2d(p.a, p.b, q.b)
                && orient2d(q.a, q.b, p.a) != orient2d(q.a, q.b, p.b);
            match segment_intersection(p, q) {
                SegmentIntersection::Point(x) => {
                    hits += 1;
                    assert!(crosses);
                    assert!(
                        p.distance(x) < 1e-4 && q.distance(x) < 1e-4,
                        "{x} off {p:?} or {q:?}"
                    );
                }
                SegmentIntersection::None => assert!(!crosses),
                SegmentIntersection::Overlap(..) => panic!("random segments are not collinear"),
            }
            // Closest point: no sampled point of the segment is nearer.
            let x = point(&mut rng);
            let c = p.closest_point(x);
            for k in 0..=20 {
                let s = p.a.lerp(p.b, k as f32 / 20.0);
                assert!(c.distance(x) <= s.distance(x) + 1e-4);
            }
        }
        // A coverage floor, so crossings are checked, not only misses. Measured: 1 145.
        assert!(hits > 500, "only {hits} crossings");
    }
}
