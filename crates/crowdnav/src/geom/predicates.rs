//! Exact orientation predicates.

use glam::Vec2;

/// Which side of a directed line a point lies on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Orientation {
    /// The point is to the left of the line (the three points turn counter-clockwise).
    CounterClockwise,
    /// The point is to the right of the line (the three points turn clockwise).
    Clockwise,
    /// The three points are exactly collinear.
    Collinear,
}

impl Orientation {
    /// `true` for [`Orientation::CounterClockwise`].
    pub fn is_ccw(self) -> bool {
        self == Orientation::CounterClockwise
    }

    /// `true` for [`Orientation::Clockwise`].
    pub fn is_cw(self) -> bool {
        self == Orientation::Clockwise
    }
}

/// Twice the signed area of triangle `a b c`, evaluated exactly and then rounded to
/// `f64`: positive when `a b c` turn counter-clockwise, negative when clockwise, zero
/// exactly when the points are collinear.
///
/// *See also* [`orient2d`].
#[doc(alias = "cross")]
pub fn orient2d_value(a: Vec2, b: Vec2, c: Vec2) -> f64 {
    let p = |v: Vec2| robust::Coord {
        x: f64::from(v.x),
        y: f64::from(v.y),
    };
    robust::orient2d(p(a), p(b), p(c))
}

/// Exact orientation of `c` relative to the directed line `a → b`.
///
/// # Example
/// ```
/// use crowdnav::geom::{orient2d, Orientation};
/// use glam::Vec2;
/// let o = orient2d(Vec2::ZERO, Vec2::X, Vec2::Y);
/// assert_eq!(o, Orientation::CounterClockwise);
/// ```
pub fn orient2d(a: Vec2, b: Vec2, c: Vec2) -> Orientation {
    let v = orient2d_value(a, b, c);
    if v > 0.0 {
        Orientation::CounterClockwise
    } else if v < 0.0 {
        Orientation::Clockwise
    } else {
        Orientation::Collinear
    }
}

/// Exact in-circle test: positive when `d` lies inside the circle through the
/// counter-clockwise triangle `a b c`, negative outside, zero on it (the Delaunay
/// condition).
pub fn incircle_value(a: Vec2, b: Vec2, c: Vec2, d: Vec2) -> f64 {
    let p = |v: Vec2| robust::Coord {
        x: f64::from(v.x),
        y: f64::from(v.y),
    };
    robust::incircle(p(a), p(b), p(c), p(d))
}

/// `true` when `p` lies inside or on the boundary of the triangle `a b c` (either
/// orientation), decided exactly.
pub fn point_in_triangle(p: Vec2, a: Vec2, b: Vec2, c: Vec2) -> bool {
    let d1 = orient2d_value(a, b, p);
    let d2 = orient2d_value(b, c, p);
    let d3 = orient2d_value(c, a, p);
    let has_neg = d1 < 0.0 || d2 < 0.0 || d3 < 0.0;
    let has_pos = d1 > 0.0 || d2 > 0.0 || d3 > 0.0;
    !(has_neg && has_pos)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn incircle_signs() {
        let (a, b, c) = (Vec2::ZERO, Vec2::X, Vec2::Y);
        assert!(incircle_value(a, b, c, Vec2::splat(0.5)) > 0.0);
        assert!(incircle_value(a, b, c, Vec2::splat(2.0)) < 0.0);
        // (1, 1) lies exactly on the circle through the unit right triangle.
        assert_eq!(incircle_value(a, b, c, Vec2::ONE), 0.0);
    }

    #[test]
    fn orientation_of_hand_picked_points() {
        let a = Vec2::new(0.0, 0.0);
        let b = Vec2::new(2.0, 0.0);
        assert_eq!(
            orient2d(a, b, Vec2::new(1.0, 1.0)),
            Orientation::CounterClockwise
        );
        assert_eq!(orient2d(a, b, Vec2::new(1.0, -1.0)), Orientation::Clockwise);
        assert_eq!(orient2d(a, b, Vec2::new(7.0, 0.0)), Orientation::Collinear);
        assert_eq!(orient2d_value(a, b, Vec2::new(1.0, 1.0)), 2.0);
    }

    #[test]
    fn orientation_is_exact_where_naive_float_math_is_not() {
        // Points on the line y = x, shifted by one ulp: a naive f32 cross product
        // rounds these to zero or to the wrong sign.
        let a = Vec2::new(0.5, 0.5);
        let b = Vec2::new(12.0, 12.0);
        let c = Vec2::new(24.0, 24.0);
        assert_eq!(orient2d(a, b, c), Orientation::Collinear);
        let above = Vec2::new(24.0, f32::from_bits(24.0f32.to_bits() + 1));
        assert_eq!(orient2d(a, b, above), Orientation::CounterClockwise);
        let below = Vec2::new(24.0, f32::from_bits(24.0f32.to_bits() - 1));
        assert_eq!(orient2d(a, b, below), Orientation::Clockwise);
    }

    #[test]
    fn point_in_triangle_includes_the_boundary() {
        let (a, b, c) = (Vec2::ZERO, Vec2::new(4.0, 0.0), Vec2::new(0.0, 4.0));
        assert!(point_in_triangle(Vec2::new(1.0, 1.0), a, b, c));
        assert!(point_in_triangle(Vec2::new(2.0, 2.0), a, b, c));
        assert!(point_in_triangle(a, a, b, c));
        assert!(!point_in_triangle(Vec2::new(2.1, 2.0), a, b, c));
        assert!(point_in_triangle(Vec2::new(1.0, 1.0), a, c, b));
    }
}
