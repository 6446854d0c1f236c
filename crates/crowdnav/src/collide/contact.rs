//! Contact kernels: circle–circle, circle–segment and sphere–sphere.
//!
//! Each kernel is a free function on plain shapes that returns `None` when the shapes
//! do not touch. Detection compares squared distances with squared radius sums, so a
//! square root is taken only for shapes that do touch.

use super::space::{unit_and_length, Space};
use crate::geom::{closest_point_on_segment, Circle, Segment};
use glam::{Vec2, Vec3};

/// Where and how deeply two shapes touch, in 2D.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Contact {
    /// The contact point. Between two circles it divides the centre line by the radius
    /// ratio, `(c1 r2 + c2 r1) / (r1 + r2)`; on a segment it is the segment's point
    /// closest to the circle's centre.
    pub point: Vec2,
    /// Unit normal pointing from the first shape towards the second: moving the first
    /// shape along `-normal` (or the second along `normal`) separates them.
    pub normal: Vec2,
    /// Penetration depth, metres: `0` when the shapes just touch, positive when they
    /// overlap.
    pub depth: f32,
}

impl Contact {
    /// The same contact seen from the second shape: the normal is reversed.
    pub fn flipped(self) -> Self {
        Self {
            normal: -self.normal,
            ..self
        }
    }

    /// Reverses the normal in place. *See also* [`Self::flipped`].
    pub fn flip(&mut self) {
        self.normal = -self.normal;
    }
}

/// A ball in 3D.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sphere {
    /// Centre.
    pub center: Vec3,
    /// Radius, metres. [Limit: >= 0]
    pub radius: f32,
}

impl Sphere {
    /// The sphere of radius `radius` around `center`.
    pub const fn new(center: Vec3, radius: f32) -> Self {
        Self { center, radius }
    }
}

/// Where and how deeply two spheres touch: [`Contact`] in 3D.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Contact3 {
    /// The contact point, dividing the centre line by the radius ratio.
    pub point: Vec3,
    /// Unit normal pointing from the first sphere towards the second.
    pub normal: Vec3,
    /// Penetration depth, metres: `0` when touching, positive when overlapping.
    pub depth: f32,
}

impl Contact3 {
    /// The same contact seen from the second sphere: the normal is reversed.
    pub fn flipped(self) -> Self {
        Self {
            normal: -self.normal,
            ..self
        }
    }

    /// Reverses the normal in place. *See also* [`Self::flipped`].
    pub fn flip(&mut self) {
        self.normal = -self.normal;
    }
}

/// A contact in either dimension, as the shared kernels and the resolver see it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Hit<V> {
    pub point: V,
    pub normal: V,
    pub depth: f32,
}

impl From<Hit<Vec2>> for Contact {
    fn from(h: Hit<Vec2>) -> Self {
        Self {
            point: h.point,
            normal: h.normal,
            depth: h.depth,
        }
    }
}

impl From<Hit<Vec3>> for Contact3 {
    fn from(h: Hit<Vec3>) -> Self {
        Self {
            point: h.point,
            normal: h.normal,
            depth: h.depth,
        }
    }
}

/// Ball–ball contact in any dimension: the one implementation behind
/// [`contact_circle_circle`] and [`contact_sphere_sphere`].
pub(super) fn contact_ball_ball<V: Space>(
    center_a: V,
    radius_a: f32,
    center_b: V,
    radius_b: f32,
) -> Option<Hit<V>> {
    let d = center_b - center_a;
    let distance_squared = d.length_squared();
    let reach = radius_a + radius_b;
    // Written so that NaN input counts as "no contact".
    let touching = distance_squared <= reach * reach;
    if !touching {
        return None;
    }
    // Coincident centres: any direction separates them; +x keeps it deterministic.
    let (normal, distance) =
        unit_and_length(d, distance_squared).unwrap_or((V::FALLBACK_NORMAL, 0.0));
    let ratio = if reach > 0.0 { radius_a / reach } else { 0.0 };
    Some(Hit {
        point: center_a + d * ratio,
        normal,
        depth: (reach - distance).max(0.0),
    })
}

/// Contact between circles `a` and `b`, or `None` when they neither touch nor
/// overlap (`|c_b - c_a|² > (r_a + r_b)²`; touching circles do collide).
///
/// The normal points from `a` to `b`; coincident centres get `+x`.
///
/// # Example
/// ```
/// use crowdnav::collide::contact_circle_circle;
/// use crowdnav::geom::Circle;
/// use glam::Vec2;
/// let c = contact_circle_circle(
///     Circle::new(Vec2::ZERO, 1.0),
///     Circle::new(Vec2::new(2.5, 0.0), 2.0),
/// )
/// .expect("in contact");
/// assert!((c.point - Vec2::new(2.5 / 3.0, 0.0)).length() < 1e-6); // radius ratio 1 : 2
/// assert_eq!(c.normal, Vec2::X);
/// assert_eq!(c.depth, 0.5);
/// ```
pub fn contact_circle_circle(a: Circle, b: Circle) -> Option<Contact> {
    contact_ball_ball(a.center, a.radius, b.center, b.radius).map(Contact::from)
}

/// Contact between spheres `a` and `b`: [`contact_circle_circle`] in 3D.
pub fn contact_sphere_sphere(a: Sphere, b: Sphere) -> Option<Contact3> {
    contact_ball_ball(a.center, a.radius, b.center, b.radius).map(Contact3::from)
}

/// Contact between a circle and a one-sided wall, or `None` when the circle does not
/// reach the segment (its squared distance exceeds `r²`).
///
/// Walkable space lies on the segment's left. The contact point is the segment's point
/// closest to the centre and the normal points from the circle towards the wall, so
/// moving the circle along `-normal` by `depth` frees it:
/// - where the centre projects inside the segment, the normal is the wall's right
///   normal and the depth is measured from the walkable side: a centre that crossed to
///   the right by `s` has depth `r + s` and is pushed back to the left, not out through
///   the back;
/// - where the closest point is an end point, the normal is radial (from the centre to
///   that end), which is right on both sides of a convex corner; a centre exactly on
///   the end point gets the right normal;
/// - a zero-length segment is a point: radial normal, `+x` when the centre is on it.
///
/// A circle whose centre lies further than `r` behind the wall does not touch it.
pub fn contact_circle_segment(circle: Circle, segment: Segment) -> Option<Contact> {
    let (c, r) = (circle.center, circle.radius);
    let ab = segment.b - segment.a;
    let length_squared = ab.length_squared();
    let right = unit_and_length(-ab.perp(), length_squared).map(|(n, _)| n);
    let t = (c - segment.a).dot(ab);
    let point = closest_point_on_segment(c, segment.a, segment.b);
    if let Some(right) = right.filter(|_| t > 0.0 && t < length_squared) {
        // Signed distance to the line, positive on the walkable (left) side.
        let signed = -(c - segment.a).dot(right);
        let touching = signed * signed <= r * r;
        if !touching {
            return None;
        }
        return Some(Contact {
            point,
            normal: right,
            depth: (r - signed).max(0.0),
        });
    }
    let to_wall = point - c;
    let distance_squared = to_wall.length_squared();
    let touching = distance_squared <= r * r;
    if !touching {
        return None;
    }
    let (normal, depth) = match unit_and_length(to_wall, distance_squared) {
        Some((n, distance)) => (n, r - distance),
        None => (right.unwrap_or(Vec2::FALLBACK_NORMAL), r),
    };
    Some(Contact {
        point,
        normal,
        depth: depth.max(0.0),
    })
}

/// [`contact_circle_segment`] for a circle that has moved from `start`: when the
/// centre went from the walkable side through the segment to its back, the contact is
/// at the crossing point, with the wall's right normal and the depth that brings the
/// circle back in front (`r` plus the distance behind), however far it went. The
/// resolver uses it so that pushes from other bodies can never shove one through a
/// wall for good.
pub(super) fn contact_circle_segment_swept(
    circle: Circle,
    segment: Segment,
    start: Vec2,
) -> Option<Contact> {
    let ab = segment.b - segment.a;
    let length_squared = ab.length_squared();
    let crossed = unit_and_length(-ab.perp(), length_squared).and_then(|(right, _)| {
        let before = -(start - segment.a).dot(right);
        let after = -(circle.center - segment.a).dot(right);
        let behind = before >= 0.0 && after < 0.0;
        if !behind {
            return None;
        }
        let crossing = start + (circle.center - start) * (before / (before - after));
        let t = (crossing - segment.a).dot(ab);
        let through_segment = t >= 0.0 && t <= length_squared;
        through_segment.then(|| Contact {
            point: closest_point_on_segment(crossing, segment.a, segment.b),
            normal: right,
            depth: circle.radius - after,
        })
    });
    crossed.or_else(|| contact_circle_segment(circle, segment))
}

/// Whether `center` lies on the walkable (left) side of the wall's line, or on it.
pub(super) fn in_front_of_wall(center: Vec2, segment: Segment) -> bool {
    (segment.b - segment.a).perp_dot(center - segment.a) >= 0.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn circle(x: f32, y: f32, r: f32) -> Circle {
        Circle::new(Vec2::new(x, y), r)
    }

    fn wall(ax: f32, ay: f32, bx: f32, by: f32) -> Segment {
        Segment::new(Vec2::new(ax, ay), Vec2::new(bx, by))
    }

    #[test]
    fn contact_point_divides_the_centre_line_by_the_radius_ratio() {
        let c = contact_circle_circle(circle(0.0, 0.0, 1.0), circle(3.0, 0.0, 2.0))
            .expect("in contact");
        // (c1 r2 + c2 r1) / (r1 + r2) = (0·2 + 3·1) / 3.
        assert_eq!(c.point, Vec2::new(1.0, 0.0));
        assert_eq!(c.normal, Vec2::X);
        assert_eq!(c.depth, 0.0);
        // Swapping the circles keeps the point and flips the normal.
        let d = contact_circle_circle(circle(3.0, 0.0, 2.0), circle(0.0, 0.0, 1.0))
            .expect("in contact");
        assert_eq!(d.point, c.point);
        assert_eq!(d, c.flipped());
        // Overlapping, off-axis: the point lies on the centre line at r1 / (r1 + r2).
        let (a, b) = (circle(1.0, 1.0, 0.5), circle(2.0, 3.0, 2.0));
        let e = contact_circle_circle(a, b).expect("in contact");
        let expected = (a.center * b.radius + b.center * a.radius) / (a.radius + b.radius);
        assert!(e.point.distance(expected) < 1e-6);
        assert!((e.depth - (2.5 - 5f32.sqrt())).abs() < 1e-6);
        let s = contact_sphere_sphere(
            Sphere::new(Vec3::ZERO, 1.0),
            Sphere::new(Vec3::new(0.0, 0.0, 2.5), 2.0),
        )
        .expect("in contact");
        assert!(s.point.distance(Vec3::new(0.0, 0.0, 2.5 / 3.0)) < 1e-6);
        assert_eq!(s.normal, Vec3::Z);
    }

    #[test]
    fn detection_counts_touching_and_rejects_a_gap_by_squared_distance() {
        // Exactly touching (3-4-5 triangle, radii summing to 5) collides with depth 0.
        let touching = contact_circle_circle(circle(0.0, 0.0, 2.0), circle(3.0, 4.0, 3.0));
        assert_eq!(touching.map(|c| c.depth), Some(0.0));
        // The next float apart does not.
        let gap = contact_circle_circle(circle(0.0, 0.0, 2.0), circle(3.0, 4.0 + 1e-6, 3.0));
        assert_eq!(gap, None);
        assert!(contact_sphere_sphere(
            Sphere::new(Vec3::ZERO, 1.0),
            Sphere::new(Vec3::new(2.0, 0.0, 0.0), 1.0)
        )
        .is_some());
        assert!(contact_sphere_sphere(
            Sphere::new(Vec3::ZERO, 1.0),
            Sphere::new(Vec3::new(2.0, 0.1, 0.0), 1.0)
        )
        .is_none());
    }

    #[test]
    fn coincident_centres_and_degenerate_shapes_give_finite_contacts() {
        let c = contact_circle_circle(circle(1.0, 1.0, 0.5), circle(1.0, 1.0, 0.5))
            .expect("in contact");
        assert_eq!((c.point, c.normal, c.depth), (Vec2::ONE, Vec2::X, 1.0));
        let p = contact_circle_circle(circle(1.0, 1.0, 0.0), circle(1.0, 1.0, 0.0))
            .expect("in contact");
        assert_eq!((p.point, p.normal, p.depth), (Vec2::ONE, Vec2::X, 0.0));
        let s = contact_sphere_sphere(Sphere::new(Vec3::ONE, 1.0), Sphere::new(Vec3::ONE, 1.0));
        assert_eq!(s.map(|s| s.normal), Some(Vec3::X));
        // A zero-length wall is a point.
        let w = contact_circle_segment(circle(0.0, 0.5, 1.0), wall(0.0, 0.0, 0.0, 0.0))
            .expect("in contact");
        assert_eq!((w.point, w.normal, w.depth), (Vec2::ZERO, -Vec2::Y, 0.5));
        let on = contact_circle_segment(circle(0.0, 0.0, 1.0), wall(0.0, 0.0, 0.0, 0.0))
            .expect("in contact");
        assert_eq!((on.normal, on.depth), (Vec2::X, 1.0));
        // A centre exactly on a wall's end point is pushed to the walkable side.
        let end = contact_circle_segment(circle(0.0, 0.0, 1.0), wall(0.0, 0.0, 4.0, 0.0))
            .expect("in contact");
        assert_eq!((end.normal, end.depth), (-Vec2::Y, 1.0));
        for c in [c, p, w, on, end] {
            assert!(c.point.is_finite() && c.normal.is_finite() && c.depth.is_finite());
        }
    }

    #[test]
    fn circle_touches_a_wall_at_its_closest_point() {
        // Wall along +x: walkable side is y > 0; the normal points down into the wall.
        let w = wall(0.0, 0.0, 4.0, 0.0);
        let c = contact_circle_segment(circle(1.0, 0.75, 1.0), w).expect("in contact");
        assert_eq!(c.point, Vec2::new(1.0, 0.0));
        assert_eq!(c.normal, -Vec2::Y);
        assert_eq!(c.depth, 0.25);
        assert_eq!(contact_circle_segment(circle(1.0, 1.5, 1.0), w), None);
        // Beyond the end, the contact is at the end point, radially.
        let e = contact_circle_segment(circle(4.3, 0.4, 1.0), w).expect("in contact");
        assert_eq!(e.point, Vec2::new(4.0, 0.0));
        assert!(e.normal.distance(Vec2::new(-0.6, -0.8)) < 1e-6);
        assert!((e.depth - 0.5).abs() < 1e-6);
    }

    #[test]
    fn centre_behind_a_wall_is_pushed_back_to_the_walkable_side() {
        let w = wall(0.0, 0.0, 4.0, 0.0);
        // The centre crossed 0.25 below the wall: depth r + 0.25, normal still down,
        // so moving along -normal by depth lands it just touching on the left.
        let c = contact_circle_segment(circle(2.0, -0.25, 1.0), w).expect("in contact");
        assert_eq!(c.point, Vec2::new(2.0, 0.0));
        assert_eq!(c.normal, -Vec2::Y);
        assert_eq!(c.depth, 1.25);
        let freed = Vec2::new(2.0, -0.25) - c.normal * c.depth;
        assert_eq!(freed, Vec2::new(2.0, 1.0));
        // The same wall walked the other way has its walkable side below.
        let r = contact_circle_segment(circle(2.0, -0.25, 1.0), w.reversed()).expect("in contact");
        assert_eq!((r.normal, r.depth), (Vec2::Y, 0.75));
        // Further than r behind the wall: no contact.
        assert_eq!(contact_circle_segment(circle(2.0, -1.5, 1.0), w), None);
    }

    #[test]
    fn a_circle_pushed_through_a_wall_is_caught_however_far_it_went() {
        let w = wall(0.0, 0.0, 4.0, 0.0);
        let start = Vec2::new(1.0, 0.6);
        // Two metres behind: the plain kernel has lost it, the swept one brings it back.
        let deep = circle(2.0, -2.0, 0.5);
        assert_eq!(contact_circle_segment(deep, w), None);
        let c = contact_circle_segment_swept(deep, w, start).expect("crossed the wall");
        assert_eq!((c.normal, c.depth), (-Vec2::Y, 2.5));
        assert!(c.point.distance(Vec2::new(1.0 + 1.0 * 0.6 / 2.6, 0.0)) < 1e-6);
        // Around the end instead of through the wall: no contact.
        let around = circle(6.0, -2.0, 0.5);
        assert_eq!(
            contact_circle_segment_swept(around, w, Vec2::new(5.0, 0.6)),
            None
        );
        // Still in front: the plain contact.
        let front = circle(2.0, 0.25, 0.5);
        assert_eq!(
            contact_circle_segment_swept(front, w, start),
            contact_circle_segment(front, w)
        );
    }
}
