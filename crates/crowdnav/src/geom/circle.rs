//! Circles and their tangents: from a point, to a point, and between two circles.
//!
//! One formula serves every case. A tangent leaves circle 1 and reaches circle 2; each
//! circle lies on a chosen [`Side`] of the directed tangent line. With signed radii
//! `ρ = +r` (circle on the left) or `-r` (on the right) and the line's left normal `n`,
//! the touching points are `T = c - ρ n`, and the line is tangent to both exactly when
//! `(c2 - c1) · n = ρ2 - ρ1`. Requiring the tangent to run forward (from circle 1
//! towards circle 2) makes the solution unique. A point is a circle of radius 0.

use glam::Vec2;

/// A circle (in the funnel: an obstacle corner grown by the agent's radius).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Circle {
    /// Centre.
    pub center: Vec2,
    /// Radius, `>= 0`.
    pub radius: f32,
}

impl Circle {
    /// The circle of radius `radius` around `center`.
    pub const fn new(center: Vec2, radius: f32) -> Self {
        Self { center, radius }
    }

    /// A circle of radius 0: a point.
    pub const fn point(p: Vec2) -> Self {
        Self::new(p, 0.0)
    }

    /// Where the tangent from point `p` touches this circle, with the circle on side
    /// `side` of the line from `p`. `None` when `p` is strictly inside.
    pub fn tangent_point_from(self, p: Vec2, side: Side) -> Option<Vec2> {
        tangent_between(Circle::point(p), Side::Left, self, side).map(|t| t.b)
    }

    /// Where the tangent from this circle towards point `p` leaves it, with the circle
    /// on side `side` of the line towards `p`. `None` when `p` is strictly inside.
    pub fn tangent_point_towards(self, p: Vec2, side: Side) -> Option<Vec2> {
        tangent_between(self, side, Circle::point(p), Side::Left).map(|t| t.a)
    }

    /// Both touching points of the tangents from `p`: `[0]` with the circle on the left
    /// of the line from `p`, `[1]` with it on the right. `None` when `p` is strictly
    /// inside; a point on the circle is returned twice.
    ///
    /// # Example
    /// ```
    /// use crowdnav::geom::Circle;
    /// use glam::Vec2;
    /// let circle = Circle::new(Vec2::new(2.0, 0.0), 1.0);
    /// let [left, right] = circle.tangent_points_from(Vec2::ZERO).unwrap();
    /// assert!((left - Vec2::new(1.5, -0.8660254)).length() < 1e-6);
    /// assert!((right - Vec2::new(1.5, 0.8660254)).length() < 1e-6);
    /// ```
    pub fn tangent_points_from(self, p: Vec2) -> Option<[Vec2; 2]> {
        Some([
            self.tangent_point_from(p, Side::Left)?,
            self.tangent_point_from(p, Side::Right)?,
        ])
    }
}

/// Which side of a directed line something lies on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// To the left: walking along the line, a circle on this side is passed
    /// counter-clockwise (the walker turns left around it).
    Left,
    /// To the right: passed clockwise.
    Right,
}

impl Side {
    /// The other side.
    pub fn flipped(self) -> Side {
        match self {
            Side::Left => Side::Right,
            Side::Right => Side::Left,
        }
    }

    fn sign(self) -> f64 {
        match self {
            Side::Left => 1.0,
            Side::Right => -1.0,
        }
    }
}

/// A tangent segment: from the touching point on the first shape to the touching point
/// on the second.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tangent {
    /// Touching point on the first circle (or the first point).
    pub a: Vec2,
    /// Touching point on the second circle (or the second point).
    pub b: Vec2,
}

/// The tangent from circle `c1` to circle `c2` with `c1`'s centre on side `side1` and
/// `c2`'s centre on side `side2` of the directed line. Same sides give an outer
/// tangent, different sides an inner (crossing) one; radius-0 circles give tangents
/// from or to points, or the segment between two points.
///
/// `None` when no such tangent exists: for an outer tangent, when one circle lies
/// strictly inside the other; for an inner one, when the circles overlap. Circles that
/// touch give a zero-length tangent at the touching point.
///
/// # Example
/// ```
/// use crowdnav::geom::{tangent_between, Circle, Side};
/// use glam::Vec2;
/// let c1 = Circle::new(Vec2::new(0.0, 0.0), 1.0);
/// let c2 = Circle::new(Vec2::new(4.0, 0.0), 1.0);
/// // Both circles on the right of the line: the upper outer tangent, y = 1.
/// let t = tangent_between(c1, Side::Right, c2, Side::Right).unwrap();
/// assert!((t.a - Vec2::new(0.0, 1.0)).length() < 1e-6);
/// assert!((t.b - Vec2::new(4.0, 1.0)).length() < 1e-6);
/// ```
pub fn tangent_between(c1: Circle, side1: Side, c2: Circle, side2: Side) -> Option<Tangent> {
    let (p1, p2) = (c1.center.as_dvec2(), c2.center.as_dvec2());
    let rho1 = side1.sign() * f64::from(c1.radius);
    let rho2 = side2.sign() * f64::from(c2.radius);
    let d = p2 - p1;
    let len = d.length();
    let delta = rho2 - rho1;
    if len == 0.0 {
        // Concentric: only two equal circles on the same side "touch" everywhere; a
        // point to itself is the empty tangent.
        return (delta == 0.0 && rho1 == 0.0).then_some(Tangent {
            a: c1.center,
            b: c2.center,
        });
    }
    let cos = delta / len;
    if cos.abs() > 1.0 + 1e-12 {
        return None;
    }
    let cos = cos.clamp(-1.0, 1.0);
    let sin = (1.0 - cos * cos).max(0.0).sqrt();
    let u = d / len;
    let n = u * cos + u.perp() * sin;
    Some(Tangent {
        a: (p1 - n * rho1).as_vec2(),
        b: (p2 - n * rho2).as_vec2(),
    })
}

/// The two outer tangents (both circles on the same side): `[0]` with both circles on
/// the left of the line from `c1` to `c2`, `[1]` with both on the right. `None` when
/// one circle lies strictly inside the other.
pub fn outer_tangents(c1: Circle, c2: Circle) -> Option<[Tangent; 2]> {
    Some([
        tangent_between(c1, Side::Left, c2, Side::Left)?,
        tangent_between(c1, Side::Right, c2, Side::Right)?,
    ])
}

/// The two inner (crossing) tangents: `[0]` with `c1` on the left and `c2` on the
/// right, `[1]` the other way round. `None` when the circles overlap.
pub fn inner_tangents(c1: Circle, c2: Circle) -> Option<[Tangent; 2]> {
    Some([
        tangent_between(c1, Side::Left, c2, Side::Right)?,
        tangent_between(c1, Side::Right, c2, Side::Left)?,
    ])
}

/// Length of the arc of radius `radius` from angle `from` to angle `to`, in `[0, 2π)`
/// turns, walked with the centre on side `centre`: counter-clockwise when it is on the
/// walker's left ([`Side::Left`]), clockwise when on the right.
pub fn arc_length(radius: f32, from: f32, to: f32, centre: Side) -> f32 {
    let tau = std::f64::consts::TAU;
    let (from, to) = (f64::from(from), f64::from(to));
    let sweep = match centre {
        Side::Left => to - from,
        Side::Right => from - to,
    };
    (f64::from(radius) * sweep.rem_euclid(tau)) as f32
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    const SEED: u64 = 0x7a46_e475;

    fn close(a: Vec2, b: Vec2) -> bool {
        (a - b).length() <= 1e-5 * (1.0 + a.length().max(b.length()))
    }

    #[test]
    fn tangents_from_a_point_touch_at_sixty_degrees() {
        let c = Circle::new(Vec2::new(2.0, 0.0), 1.0);
        let [left, right] = c.tangent_points_from(Vec2::ZERO).expect("outside");
        let h = 3f32.sqrt() / 2.0;
        assert!(close(left, Vec2::new(1.5, -h)), "{left}");
        assert!(close(right, Vec2::new(1.5, h)), "{right}");
        assert!(c.tangent_points_from(Vec2::new(2.5, 0.0)).is_none());
        let on = c
            .tangent_points_from(Vec2::new(3.0, 0.0))
            .expect("on the circle");
        assert!(close(on[0], Vec2::new(3.0, 0.0)) && close(on[1], Vec2::new(3.0, 0.0)));
    }

    #[test]
    fn outer_tangents_of_equal_circles_are_parallel_to_the_centre_line() {
        let (c1, c2) = (
            Circle::new(Vec2::ZERO, 1.0),
            Circle::new(Vec2::new(4.0, 0.0), 1.0),
        );
        let [left, right] = outer_tangents(c1, c2).expect("disjoint");
        assert!(close(left.a, Vec2::new(0.0, -1.0)) && close(left.b, Vec2::new(4.0, -1.0)));
        assert!(close(right.a, Vec2::new(0.0, 1.0)) && close(right.b, Vec2::new(4.0, 1.0)));
        let inside = Circle::new(Vec2::new(0.5, 0.0), 0.2);
        assert!(outer_tangents(Circle::new(Vec2::ZERO, 2.0), inside).is_none());
    }

    #[test]
    fn inner_tangents_cross_midway_between_equal_circles() {
        let (c1, c2) = (
            Circle::new(Vec2::ZERO, 1.0),
            Circle::new(Vec2::new(4.0, 0.0), 1.0),
        );
        let [lr, rl] = inner_tangents(c1, c2).expect("disjoint");
        // The crossing point is (2, 0); the touching points are at 60° from the axis.
        let h = 3f32.sqrt() / 2.0;
        assert!(close(lr.a, Vec2::new(0.5, -h)), "{lr:?}");
        assert!(close(lr.b, Vec2::new(3.5, h)), "{lr:?}");
        assert!(close(rl.a, Vec2::new(0.5, h)) && close(rl.b, Vec2::new(3.5, -h)));
        let overlapping = Circle::new(Vec2::new(1.5, 0.0), 1.0);
        assert!(inner_tangents(c1, overlapping).is_none());
    }

    #[test]
    fn point_to_point_tangent_is_the_segment() {
        let t = tangent_between(
            Circle::point(Vec2::ZERO),
            Side::Left,
            Circle::point(Vec2::new(3.0, 4.0)),
            Side::Right,
        )
        .expect("two points");
        assert_eq!((t.a, t.b), (Vec2::ZERO, Vec2::new(3.0, 4.0)));
    }

    #[test]
    fn arc_length_turns_the_right_way() {
        let q = std::f32::consts::FRAC_PI_2;
        assert!((arc_length(2.0, 0.0, q, Side::Left) - 2.0 * q).abs() < 1e-6);
        assert!((arc_length(2.0, 0.0, q, Side::Right) - 2.0 * 3.0 * q).abs() < 1e-5);
    }

    #[test]
    fn random_tangents_touch_both_circles_at_right_angles_on_the_claimed_sides() {
        let mut rng = ChaCha8Rng::seed_from_u64(SEED);
        let mut found = 0;
        for _ in 0..4000 {
            let c1 = Circle::new(
                Vec2::new(rng.gen_range(-50.0..50.0), rng.gen_range(-50.0..50.0)),
                if rng.gen_bool(0.2) {
                    0.0
                } else {
                    rng.gen_range(0.0..5.0)
                },
            );
            let c2 = Circle::new(
                Vec2::new(rng.gen_range(-50.0..50.0), rng.gen_range(-50.0..50.0)),
                if rng.gen_bool(0.2) {
                    0.0
                } else {
                    rng.gen_range(0.0..5.0)
                },
            );
            let s1 = if rng.gen_bool(0.5) {
                Side::Left
            } else {
                Side::Right
            };
            let s2 = if rng.gen_bool(0.5) {
                Side::Left
            } else {
                Side::Right
            };
            let dist = c1.center.distance(c2.center);
            let exists = if s1 == s2 {
                (c1.radius - c2.radius).abs() < dist
            } else {
                c1.radius + c2.radius < dist
            };
            let Some(t) = tangent_between(c1, s1, c2, s2) else {
                assert!(!exists || (dist - (c1.radius + c2.radius)).abs() < 1e-3);
                continue;
            };
            found += 1;
            let dir = t.b - t.a;
            let tol = 1e-3;
            for (c, p, side) in [(c1, t.a, s1), (c2, t.b, s2)] {
                assert!(
                    (p.distance(c.center) - c.radius).abs() < tol,
                    "{t:?} off {c:?}"
                );
                if c.radius > 0.01 && dir.length() > 0.01 {
                    let radial = (p - c.center).normalize();
                    assert!(
                        radial.dot(dir.normalize()).abs() < tol,
                        "not at a right angle"
                    );
                    let cross = dir.perp_dot(c.center - p);
                    match side {
                        Side::Left => assert!(cross > 0.0, "{c:?} not on the left of {t:?}"),
                        Side::Right => assert!(cross < 0.0, "{c:?} not on the right of {t:?}"),
                    }
                }
            }
            // Inner tangents separate the centres, outer ones do not.
            if dir.length() > 0.01 && c1.radius > 0.01 && c2.radius > 0.01 {
                let side_of = |q: Vec2| dir.perp_dot(q - t.a).signum();
                assert_eq!(side_of(c1.center) == side_of(c2.center), s1 == s2);
            }
        }
        // A coverage floor, so tangents are checked, not only their absence. Measured: 3 992.
        assert!(found > 2000, "only {found} tangents");
    }
}
