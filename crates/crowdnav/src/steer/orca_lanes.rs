//! The ORCA half-planes of up to four neighbours at once, one neighbour per SIMD lane
//! (structure of arrays).
//!
//! Each lane repeats [`half_plane_disc`]'s formulas for discs that are apart, operation
//! for operation (IEEE addition, subtraction, multiplication, division and square root
//! round the same in a lane as in a scalar, and nothing is fused), so every half-plane
//! is the scalar one, bit for bit: the cut-off arc, both legs, the head-on turn by
//! [`OrcaParams::symmetry_bias`](super::OrcaParams::symmetry_bias), the check that the
//! preferred velocity is admitted and the finiteness test. Lanes that need anything else
//! (overlapping discs, a radius that is not positive, a NaN distance, a binding arc
//! whose normal lies too close to the turning threshold to decide without the turn's
//! exact sine, or whose discs almost touch) are built by the scalar code.

use super::{half_plane_disc, HalfPlane, HeadOnTurn, Neighbor, NeighborKind, SteerAgent};
use glam::Vec2;
use wide::{f32x4, CmpEq, CmpGe, CmpGt, CmpLe, CmpLt};

/// How far, relative to the turn's sine, the lanes' near-axis test keeps from it: a
/// binding arc's normal whose sine off the axis lies within this of the turn's is left to
/// the scalar code, which decides exactly. (The lanes' sine is off by a few units in the
/// last place at most.)
const NEAR_AXIS_MARGIN: f32 = 2.0e-3;

/// Smallest squared distance for which the lanes' near-axis test is trusted (its
/// products stay normal floats); nearer neighbours go to the scalar code.
const NEAR_AXIS_MIN_DISTANCE_SQUARED: f32 = 1.0e-30;

/// The lanes of `x` with their signs flipped, as scalar negation does (`0 - x` would
/// turn `-0` into `+0`).
#[inline(always)]
fn negate(x: f32x4) -> f32x4 {
    x ^ f32x4::splat(-0.0)
}

/// The neighbours of `chunk` (1 to 4 of them) as four lanes, the last repeated.
#[inline(always)]
pub(super) fn lanes_of(chunk: &[Neighbor]) -> [&Neighbor; 4] {
    let lane = |k: usize| &chunk[k.min(chunk.len().saturating_sub(1))];
    [lane(0), lane(1), lane(2), lane(3)]
}

/// What the lanes share: the agent, `1 / max(time_horizon, MIN_TIME)`, the head-on
/// turn, the step and the preferred velocity clamped to the top speed.
#[derive(Clone, Copy, Debug)]
pub(super) struct Own<'a> {
    /// The agent.
    pub agent: &'a SteerAgent,
    /// The horizon's inverse.
    pub inv_tau: f32,
    /// The head-on turn.
    pub turn: &'a HeadOnTurn,
    /// The step, seconds.
    pub dt: f32,
    /// The preferred velocity, clamped to the top speed.
    pub preferred: Vec2,
}

/// The first `count` (1 to 4) of `neighbors`' half-planes for `own.agent`, appended in
/// order to `planes` when finite, exactly as `half_plane_disc` would give them; returns
/// whether every half-plane appended admits `own.preferred`. Lanes from `count` on are
/// computed and dropped: fill them with any neighbour.
#[inline(never)]
pub(super) fn half_planes_of_four(
    own: Own<'_>,
    neighbors: &[&Neighbor; 4],
    count: usize,
    planes: &mut Vec<HalfPlane>,
) -> bool {
    match lanes_half_planes::<false>(own, neighbors, count, planes, (f32::INFINITY, 0.0)) {
        Some((admitted, _)) => admitted,
        None => true,
    }
}

/// [`half_planes_of_four`] for the neighbours that come next in a world's list, when
/// all `count` of them lie within the range (squared distance below `range_squared`)
/// and in order (none nearer than the one before, nor than `previous`); then it also
/// returns the last one's squared distance (`Vec2::distance_squared`'s, bit for bit).
/// `None`, with `planes` untouched, when they do not.
#[inline(always)]
pub(super) fn half_planes_of_four_in_order(
    own: Own<'_>,
    neighbors: &[&Neighbor; 4],
    count: usize,
    planes: &mut Vec<HalfPlane>,
    (range_squared, previous): (f32, f32),
) -> Option<(bool, f32)> {
    lanes_half_planes::<true>(own, neighbors, count, planes, (range_squared, previous))
}

/// Both of the above: with `GATED`, the range and order check first.
#[inline(always)]
fn lanes_half_planes<const GATED: bool>(
    own: Own<'_>,
    neighbors: &[&Neighbor; 4],
    count: usize,
    planes: &mut Vec<HalfPlane>,
    (range_squared, previous): (f32, f32),
) -> Option<(bool, f32)> {
    let Own {
        agent,
        inv_tau,
        turn,
        dt,
        preferred,
    } = own;
    let zero = f32x4::ZERO;
    let inv_tau_lanes = f32x4::splat(inv_tau);
    // One row per neighbour, transposed into one lane per neighbour.
    let row = |n: &Neighbor| f32x4::from([n.position.x, n.position.y, n.velocity.x, n.velocity.y]);
    let [position_x, position_y, velocity_x, velocity_y] = f32x4::transpose([
        row(neighbors[0]),
        row(neighbors[1]),
        row(neighbors[2]),
        row(neighbors[3]),
    ]);
    let lanes = |f: fn(&Neighbor) -> f32| {
        f32x4::from([
            f(neighbors[0]),
            f(neighbors[1]),
            f(neighbors[2]),
            f(neighbors[3]),
        ])
    };
    // relative_position = neighbor.position - agent.position
    let cx = position_x - f32x4::splat(agent.position.x);
    let cy = position_y - f32x4::splat(agent.position.y);
    // relative_velocity = agent.velocity - neighbor.velocity
    let (avx, avy) = (
        f32x4::splat(agent.velocity.x),
        f32x4::splat(agent.velocity.y),
    );
    let vx = avx - velocity_x;
    let vy = avy - velocity_y;
    // radius = (agent.radius + neighbor.radius).max(0.0): the sum itself when positive.
    let radius = f32x4::splat(agent.radius) + lanes(|n| n.radius);
    let share = lanes(|n| match n.kind {
        NeighborKind::Agent => 0.5,
        NeighborKind::Obstacle => 1.0,
    });
    let distance_squared = cx * cx + cy * cy;
    let lanes_used = (1 << count) - 1;
    let mut last = 0.0;
    if GATED {
        let d = distance_squared.to_array();
        let before = f32x4::from([previous, d[0], d[1], d[2]]);
        // In range, hence not NaN: `>=` is `!(<)`.
        let kept =
            distance_squared.cmp_lt(f32x4::splat(range_squared)) & distance_squared.cmp_ge(before);
        if kept.move_mask() & lanes_used != lanes_used {
            return None;
        }
        last = d[count.clamp(1, 4) - 1];
    }
    let radius_squared = radius * radius;
    // Positive radius, and apart (which a NaN distance is not).
    let apart = radius.cmp_gt(zero) & distance_squared.cmp_gt(radius_squared);

    // closest_on_disc_velocity_obstacle: the cut-off arc ...
    let wx = vx - cx * inv_tau_lanes;
    let wy = vy - cy * inv_tau_lanes;
    let along = wx * cx + wy * cy;
    let w_squared = wx * wx + wy * wy;
    let arc = along.cmp_lt(zero)
        & (along * along).cmp_gt(radius_squared * w_squared)
        // is_positive_finite(w_squared)
        & w_squared.cmp_gt(zero)
        & w_squared.cmp_le(f32x4::splat(f32::MAX));
    let inverse = f32x4::ONE / w_squared.sqrt();
    let mut nx = wx * inverse;
    let mut ny = wy * inverse;
    let (arc_nx, arc_ny) = (nx, ny);
    let scaled_radius = radius * inv_tau_lanes;
    let mut px = cx * inv_tau_lanes + nx * scaled_radius;
    let mut py = cy * inv_tau_lanes + ny * scaled_radius;
    if (arc | !apart).move_mask() != 0b1111 {
        // ... or leg_boundary, for the lanes that need it.
        let leg = leg_lanes(cx, cy, vx, vy, distance_squared, radius, inv_tau_lanes);
        nx = arc.blend(nx, leg[0]);
        ny = arc.blend(ny, leg[1]);
        px = arc.blend(px, leg[2]);
        py = arc.blend(py, leg[3]);
    }

    // HalfPlane::from_point_normal(agent.velocity + u * share, normal), u = point - v.
    let plane = |px: f32x4, py: f32x4, nx: f32x4, ny: f32x4| {
        let qx = avx + (px - vx) * share;
        let qy = avy + (py - vy) * share;
        let (ex, ey) = (ny, negate(nx));
        // contains(preferred): direction.perp_dot(preferred - point) >= 0.
        let admits = (ex * (f32x4::splat(preferred.y) - qy)
            - ey * (f32x4::splat(preferred.x) - qx))
            .cmp_ge(zero);
        [qx, qy, ex, ey, admits]
    };
    let [mut qx, mut qy, mut ex, mut ey, mut admits] = plane(px, py, nx, ny);
    let mut scalar = !apart;
    let binding = arc & !admits;
    if binding.any() {
        // head_on_half_plane: a binding arc is turned when its normal lies near the
        // axis, within the turn's sine `s`. Certainly not when `|normal ×
        // relative_position|` is at least `s · (1 + NEAR_AXIS_MARGIN) ·
        // |relative_position|`; certainly so when it is below `s · (1 -
        // NEAR_AXIS_MARGIN) · …`, and then, unless the discs almost touch, by exactly the
        // turn's angle. The scalar code decides the rest.
        let not_near_squared = (turn.sin * (1.0 + NEAR_AXIS_MARGIN)).powi(2);
        let near_squared = (turn.sin * (1.0 - NEAR_AXIS_MARGIN)).powi(2);
        let cross = arc_nx * cy - arc_ny * cx;
        let cross_squared = cross * cross;
        let normal_distance = distance_squared.cmp_gt(f32x4::splat(NEAR_AXIS_MIN_DISTANCE_SQUARED))
            & distance_squared.cmp_le(f32x4::splat(f32::MAX));
        let not_near_axis = cross_squared.cmp_ge(f32x4::splat(not_near_squared) * distance_squared)
            & normal_distance;
        // `try_normalize` and the arc's half-angle cosine.
        let distance = distance_squared.sqrt();
        let inverse_distance = f32x4::ONE / distance;
        let turned = binding
            & normal_distance
            & cross_squared.cmp_lt(f32x4::splat(near_squared) * distance_squared)
            & (radius / distance).cmp_lt(f32x4::splat(turn.rotation.x));
        scalar |= binding & !not_near_axis & !turned;
        if turned.any() {
            let (ax, ay) = (cx * inverse_distance, cy * inverse_distance);
            // HeadOnTurn::turned: the axis line's direction on the normal's side, turned
            // by the turn's rotation.
            let back = (arc_nx * ax + arc_ny * ay).cmp_ge(zero);
            let (bx, by) = (back.blend(ax, negate(ax)), back.blend(ay, negate(ay)));
            let (cos, sin) = (f32x4::splat(turn.rotation.x), f32x4::splat(turn.rotation.y));
            let tx = cos * bx - sin * by;
            let ty = sin * bx + cos * by;
            let tpx = cx * inv_tau_lanes + tx * scaled_radius;
            let tpy = cy * inv_tau_lanes + ty * scaled_radius;
            let [tqx, tqy, tex, tey, tadmits] = plane(tpx, tpy, tx, ty);
            qx = turned.blend(tqx, qx);
            qy = turned.blend(tqy, qy);
            ex = turned.blend(tex, ex);
            ey = turned.blend(tey, ey);
            admits = turned.blend(tadmits, admits);
        }
    }
    // is_finite(&plane)
    let finite = ((qx * zero + ex * zero) + (qy * zero + ey * zero)).cmp_eq(zero);
    let scalar = scalar.move_mask() & lanes_used;
    let admits = admits.move_mask() & lanes_used;
    let finite = finite.move_mask() & lanes_used;

    let rows = f32x4::transpose([qx, qy, ex, ey]).map(|row| {
        let [px, py, dx, dy] = row.to_array();
        HalfPlane {
            point: Vec2::new(px, py),
            direction: Vec2::new(dx, dy),
        }
    });
    if scalar == 0 && finite == lanes_used {
        planes.extend_from_slice(&rows[..count]);
        return Some((admits == lanes_used, last));
    }
    let mut admitted = true;
    for (lane, (neighbor, &plane)) in neighbors.iter().zip(&rows).enumerate().take(count) {
        let bit = 1 << lane;
        if scalar & bit != 0 {
            let (plane, plane_admits) = half_plane_disc(
                agent,
                neighbor,
                inv_tau,
                turn,
                dt,
                preferred,
                super::reciprocal_share(neighbor),
            );
            if super::is_finite(&plane) {
                planes.push(plane);
                admitted &= plane_admits;
            }
        } else if finite & bit != 0 {
            planes.push(plane);
            admitted &= admits & bit != 0;
        }
    }
    Some((admitted, last))
}

/// `leg_boundary` in every lane: the normal's and the point's `x` and `y`. (For discs
/// apart, `distance² - radius²` is positive: its `max(0.0)` changes nothing.)
#[inline(never)]
fn leg_lanes(
    cx: f32x4,
    cy: f32x4,
    vx: f32x4,
    vy: f32x4,
    distance_squared: f32x4,
    radius: f32x4,
    inv_tau: f32x4,
) -> [f32x4; 4] {
    let zero = f32x4::ZERO;
    let wx = vx - cx * inv_tau;
    let wy = vy - cy * inv_tau;
    let leg = (distance_squared - radius * radius).sqrt();
    let inv_distance_squared = f32x4::ONE / distance_squared;
    let left = (cx * wy - cy * wx).cmp_gt(zero);
    let signed_radius = left.blend(radius, negate(radius));
    let dx = (cx * leg - cy * signed_radius) * inv_distance_squared;
    let dy = (cx * signed_radius + cy * leg) * inv_distance_squared;
    let start = leg * inv_tau;
    // `max(0.0)` as a blend: a NaN gives 0, as `f32::max` does; the sign of a zero is
    // lost in the sum with `start`, which is `+0` or more.
    let projected = vx * dx + vy * dy - start;
    let along = projected.cmp_gt(zero).blend(projected, zero) + start;
    [
        left.blend(negate(dy), dy),
        left.blend(dx, negate(dx)),
        dx * along,
        dy * along,
    ]
}
