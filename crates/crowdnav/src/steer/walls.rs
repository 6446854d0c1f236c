//! Walls as point obstacles for the two seed methods: a wall pushes from its closest
//! point, like an obstacle of radius 0.

use crate::geom::Segment;
use glam::Vec2;

/// How a wall pushes an agent: the unit direction away from the wall and the distance
/// from the agent's centre to the wall.
///
/// Walkable space lies on the wall's left. An agent on that side is pushed away from
/// the wall's closest point. An agent behind the wall is ignored unless it overlaps the
/// wall (then it is pushed back out along the wall's left normal): the back of a wall
/// is the far face of an obstacle, and pushing from it would pull the agent into the
/// obstacle. A degenerate wall seen from exactly its position pushes nobody.
pub(super) fn wall_push(wall: &Segment, position: Vec2, radius: f32) -> Option<(Vec2, f32)> {
    let closest = wall.closest_point(position);
    let offset = position - closest;
    let distance = offset.length();
    let left = (wall.b - wall.a).perp().try_normalize();
    let side = (wall.b - wall.a).perp_dot(position - wall.a);
    if side >= 0.0 {
        Some((offset.try_normalize().or(left)?, distance))
    } else if distance < radius {
        Some((left?, distance))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wall_pushes_its_walkable_side_and_ignores_its_back() {
        let wall = Segment::new(Vec2::ZERO, Vec2::new(4.0, 0.0));
        // Walkable side (left of a -> b is +y).
        assert_eq!(
            wall_push(&wall, Vec2::new(1.0, 2.0), 0.5),
            Some((Vec2::Y, 2.0))
        );
        // Behind and clear: ignored.
        assert_eq!(wall_push(&wall, Vec2::new(1.0, -2.0), 0.5), None);
        // Behind and overlapping: pushed back to the walkable side.
        assert_eq!(
            wall_push(&wall, Vec2::new(1.0, -0.25), 0.5),
            Some((Vec2::Y, 0.25))
        );
        // On the wall: pushed along the left normal.
        assert_eq!(
            wall_push(&wall, Vec2::new(1.0, 0.0), 0.5),
            Some((Vec2::Y, 0.0))
        );
        // A degenerate wall under the agent pushes nobody.
        let point = Segment::new(Vec2::ONE, Vec2::ONE);
        assert_eq!(wall_push(&point, Vec2::ONE, 0.5), None);
    }
}
