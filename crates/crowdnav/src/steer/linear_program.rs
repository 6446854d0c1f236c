//! The small linear programs behind ORCA: pick the velocity closest to the preferred one
//! inside a disc of radius `max_speed` and a set of half-planes, and, when the
//! half-planes leave nothing, the velocity that violates the soft ones least.
//!
//! Following van den Berg, Guy, Lin and Manocha, "Reciprocal n-body collision
//! avoidance" (2011), section 5.2: the programs are solved incrementally, one constraint at a time. The
//! paper shuffles the constraints for expected linear time; we keep the caller's order
//! so that the result is a pure function of the input (the counts per agent are small):
//!
//! - [`linear_program_1d`]: the optimum on one constraint's boundary line;
//! - [`linear_program_2d`]: the optimum in the disc and all half-planes, or the first
//!   half-plane that makes the program infeasible;
//! - [`linear_program_3d`]: the velocity minimising the largest violation of the soft
//!   half-planes while keeping the hard ones (the "3D" program over `(v, distance)`);
//! - [`solve_velocity`]: the three together, as ORCA calls them.
//!
//! All are pure functions of their inputs; the only state is a caller-owned scratch
//! buffer.

use glam::Vec2;

/// Below this, two boundary directions (unit vectors) count as parallel: `|d_i × d_j|`.
pub const PARALLEL_EPSILON: f32 = 1.0e-5;

/// A half-plane in velocity space: the velocities on the left of the directed line
/// through `point` along `direction`, boundary included.
///
/// *See also* [`HalfPlane::signed_distance`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HalfPlane {
    /// A point on the boundary line, metres per second.
    pub point: Vec2,
    /// Direction of the boundary line. [Limit: unit length]
    pub direction: Vec2,
}

impl HalfPlane {
    /// The half-plane whose boundary passes through `point` with `normal` pointing into
    /// the allowed side. `normal` must have unit length.
    pub fn from_point_normal(point: Vec2, normal: Vec2) -> Self {
        Self {
            point,
            direction: -normal.perp(),
        }
    }

    /// Unit normal pointing into the allowed side.
    pub fn normal(&self) -> Vec2 {
        self.direction.perp()
    }

    /// How far `v` lies inside the half-plane: positive inside, negative outside (then
    /// its magnitude is the violation).
    pub fn signed_distance(&self, v: Vec2) -> f32 {
        self.direction.perp_dot(v - self.point)
    }

    /// Whether `v` lies in the half-plane (boundary included).
    pub fn contains(&self, v: Vec2) -> bool {
        self.signed_distance(v) >= 0.0
    }
}

/// What a linear program optimises.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Objective {
    /// The feasible velocity closest to this one.
    Closest(Vec2),
    /// The feasible velocity furthest along this direction. [Limit: unit length]
    Direction(Vec2),
}

/// Why [`linear_program_2d`] stopped: half-plane `index` could not be satisfied together
/// with the ones before it and the speed disc.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Infeasible {
    /// The first half-plane that failed.
    pub index: usize,
    /// The optimum over the half-planes before `index`; it satisfies all of them.
    pub partial: Vec2,
}

/// The optimum on the boundary line of `planes[index]`, within the disc of radius
/// `max_speed` and the half-planes `planes[..index]`; `None` when that part of the line
/// is empty.
///
/// For [`Objective::Closest`] the result is the point of the feasible interval nearest
/// the target; for [`Objective::Direction`] the end of the interval furthest along it.
///
/// # Panics
/// When `index` is out of bounds.
#[doc(alias = "linearProgram1")]
pub fn linear_program_1d(
    planes: &[HalfPlane],
    index: usize,
    max_speed: f32,
    objective: Objective,
) -> Option<Vec2> {
    let line = planes[index];
    // The line meets the disc where |point + t·direction|² = max_speed².
    let along = line.point.dot(line.direction);
    let discriminant = along * along + max_speed * max_speed - line.point.length_squared();
    if discriminant.is_nan() || discriminant < 0.0 {
        return None;
    }
    let half_width = discriminant.sqrt();
    let mut t_min = -along - half_width;
    let mut t_max = -along + half_width;

    for other in &planes[..index] {
        // Along the line, other.signed_distance = offset + t·rate.
        let rate = other.direction.perp_dot(line.direction);
        let offset = other.direction.perp_dot(line.point - other.point);
        if rate.abs() <= PARALLEL_EPSILON {
            // Parallel: the line lies entirely inside or entirely outside `other`.
            if offset < 0.0 {
                return None;
            }
            continue;
        }
        let t = -offset / rate;
        if rate > 0.0 {
            t_min = t_min.max(t);
        } else {
            t_max = t_max.min(t);
        }
        if t_min > t_max {
            return None;
        }
    }

    let t = match objective {
        Objective::Direction(direction) => {
            if direction.dot(line.direction) > 0.0 {
                t_max
            } else {
                t_min
            }
        }
        Objective::Closest(target) => line.direction.dot(target - line.point).clamp(t_min, t_max),
    };
    Some(line.point + line.direction * t)
}

/// The optimum within the disc of radius `max_speed` and all `planes`, added one at a
/// time; or, when the program is infeasible, the first half-plane that broke it.
///
/// With [`Objective::Closest`] a target outside the disc is first pulled onto it.
#[doc(alias = "linearProgram2")]
pub fn linear_program_2d(
    planes: &[HalfPlane],
    max_speed: f32,
    objective: Objective,
) -> Result<Vec2, Infeasible> {
    let mut result = match objective {
        Objective::Direction(direction) => direction * max_speed,
        Objective::Closest(target) => target.clamp_length_max(max_speed.max(0.0)),
    };
    for (index, plane) in planes.iter().enumerate() {
        if plane.contains(result) {
            continue;
        }
        match linear_program_1d(planes, index, max_speed, objective) {
            Some(v) => result = v,
            None => {
                return Err(Infeasible {
                    index,
                    partial: result,
                })
            }
        }
    }
    Ok(result)
}

/// The velocity in the disc of radius `max_speed` that satisfies the hard half-planes
/// `planes[..hard_count]` and minimises the largest violation of the soft ones
/// `planes[hard_count..]`.
///
/// `start` must satisfy the hard half-planes and `planes[..first_failed]` (it is the
/// [`Infeasible::partial`] of [`linear_program_2d`]); the search resumes at
/// `first_failed`. For each soft half-plane violated more than the current optimum, the
/// program is projected onto its boundary: the earlier soft half-planes become the
/// bisectors where both violations are equal, and a 2D program pushes as far as
/// possible into it. `projected` is scratch space, cleared here.
///
/// When the hard half-planes themselves conflict, the result keeps the ones it could.
#[doc(alias = "linearProgram3")]
pub fn linear_program_3d(
    planes: &[HalfPlane],
    hard_count: usize,
    first_failed: usize,
    max_speed: f32,
    start: Vec2,
    projected: &mut Vec<HalfPlane>,
) -> Vec2 {
    let hard_count = hard_count.min(planes.len());
    let mut result = start;
    let mut worst = 0.0_f32;
    for index in first_failed.max(hard_count)..planes.len() {
        let plane = planes[index];
        if -plane.signed_distance(result) <= worst {
            continue;
        }
        projected.clear();
        projected.extend_from_slice(&planes[..hard_count]);
        for other in &planes[hard_count..index] {
            let cross = plane.direction.perp_dot(other.direction);
            if cross.abs() <= PARALLEL_EPSILON && plane.direction.dot(other.direction) > 0.0 {
                // Same direction: the difference of violations is constant.
                continue;
            }
            // Where both violations are equal: `difference · v = offset`, with the
            // normals' difference and the difference of `normal · point`. Its point
            // nearest the origin is taken, not where the two lines cross: nearly
            // parallel lines cross far away, and a point thousands of m/s out rounds
            // the bisector off by 1e-4 m/s, enough to push a result across a wall's
            // hard half-plane.
            let difference = other.normal() - plane.normal();
            let Some(normal) = difference.try_normalize() else {
                continue;
            };
            let offset = other.normal().dot(other.point) - plane.normal().dot(plane.point);
            let point = normal * (offset / difference.length());
            projected.push(HalfPlane::from_point_normal(point, normal));
        }
        // If this fails it is by rounding only: `result` is already feasible here.
        if let Ok(v) = linear_program_2d(projected, max_speed, Objective::Direction(plane.normal()))
        {
            result = v;
        }
        worst = -plane.signed_distance(result);
    }
    result
}

/// ORCA's program: the velocity closest to `preferred` in the disc of radius
/// `max_speed` and all `planes`; when that is empty, the one that keeps the hard
/// half-planes `planes[..hard_count]` and violates the soft ones least
/// ([`linear_program_3d`]). When even the hard half-planes conflict, the one that
/// violates them least (soft ones ignored).
///
/// `projected` is scratch space for the 3D program.
pub fn solve_velocity(
    planes: &[HalfPlane],
    hard_count: usize,
    max_speed: f32,
    preferred: Vec2,
    projected: &mut Vec<HalfPlane>,
) -> Vec2 {
    let hard_count = hard_count.min(planes.len());
    match linear_program_2d(planes, max_speed, Objective::Closest(preferred)) {
        Ok(v) => v,
        Err(failure) if failure.index < hard_count => linear_program_3d(
            &planes[..hard_count],
            0,
            failure.index,
            max_speed,
            failure.partial,
            projected,
        ),
        Err(failure) => linear_program_3d(
            planes,
            hard_count,
            failure.index,
            max_speed,
            failure.partial,
            projected,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plane(point: (f32, f32), normal: (f32, f32)) -> HalfPlane {
        HalfPlane::from_point_normal(
            Vec2::new(point.0, point.1),
            Vec2::new(normal.0, normal.1).normalize(),
        )
    }

    fn close(a: Vec2, b: Vec2) -> bool {
        a.distance(b) < 1e-4
    }

    #[test]
    fn half_plane_allows_the_side_its_normal_points_to() {
        let p = plane((0.0, 1.0), (0.0, 1.0));
        assert!(p.contains(Vec2::new(3.0, 2.0)));
        assert!(p.contains(Vec2::new(-3.0, 1.0)));
        assert!(!p.contains(Vec2::new(0.0, 0.5)));
        assert!((p.signed_distance(Vec2::new(7.0, -1.0)) + 2.0).abs() < 1e-6);
        assert!(close(p.normal(), Vec2::Y));
    }

    #[test]
    fn lp1_finds_the_closest_point_on_the_line_within_the_disc() {
        let planes = [plane((0.0, 1.0), (0.0, 1.0))];
        let v = linear_program_1d(&planes, 0, 2.0, Objective::Closest(Vec2::new(0.5, 0.0)));
        assert!(close(v.expect("feasible"), Vec2::new(0.5, 1.0)));
        // Target far along the line: clipped by the disc.
        let v = linear_program_1d(&planes, 0, 2.0, Objective::Closest(Vec2::new(9.0, 0.0)));
        assert!(close(v.expect("feasible"), Vec2::new(3.0_f32.sqrt(), 1.0)));
    }

    #[test]
    fn lp1_line_outside_the_disc_is_infeasible() {
        let planes = [plane((0.0, 3.0), (0.0, 1.0))];
        assert_eq!(
            linear_program_1d(&planes, 0, 2.0, Objective::Closest(Vec2::ZERO)),
            None
        );
    }

    #[test]
    fn lp1_clips_by_earlier_half_planes_and_rejects_parallel_outside_ones() {
        // Line y = 1; earlier half-plane x >= 0.5.
        let planes = [plane((0.5, 0.0), (1.0, 0.0)), plane((0.0, 1.0), (0.0, 1.0))];
        let v = linear_program_1d(&planes, 1, 2.0, Objective::Closest(Vec2::new(-1.0, 0.0)));
        assert!(close(v.expect("feasible"), Vec2::new(0.5, 1.0)));
        // Direction objective: the far end of the interval.
        let v = linear_program_1d(&planes, 1, 2.0, Objective::Direction(Vec2::X));
        assert!(close(v.expect("feasible"), Vec2::new(3.0_f32.sqrt(), 1.0)));
        // Parallel earlier half-plane y <= 0 excludes the whole line y = 1.
        let planes = [
            plane((0.0, 0.0), (0.0, -1.0)),
            plane((0.0, 1.0), (0.0, 1.0)),
        ];
        assert_eq!(
            linear_program_1d(&planes, 1, 2.0, Objective::Closest(Vec2::ZERO)),
            None
        );
    }

    #[test]
    fn lp2_returns_the_target_when_it_is_feasible() {
        let planes = [
            plane((0.0, -1.0), (0.0, 1.0)),
            plane((-1.0, 0.0), (1.0, 0.0)),
        ];
        let target = Vec2::new(0.3, 0.4);
        assert_eq!(
            linear_program_2d(&planes, 1.0, Objective::Closest(target)),
            Ok(target)
        );
        // A target beyond the speed limit is pulled onto the disc.
        let v = linear_program_2d(&[], 1.0, Objective::Closest(Vec2::new(3.0, 4.0)));
        assert!(close(v.expect("feasible"), Vec2::new(0.6, 0.8)));
    }

    #[test]
    fn lp2_projects_onto_the_violated_half_planes() {
        // y >= 0.5 and x >= 0.5, target (0, 0): the corner (0.5, 0.5).
        let planes = [plane((0.0, 0.5), (0.0, 1.0)), plane((0.5, 0.0), (1.0, 0.0))];
        let v = linear_program_2d(&planes, 2.0, Objective::Closest(Vec2::ZERO));
        assert!(close(v.expect("feasible"), Vec2::new(0.5, 0.5)));
    }

    #[test]
    fn lp2_reports_the_first_conflicting_half_plane() {
        // y >= 0.5 and y <= -0.5 cannot both hold.
        let planes = [
            plane((0.0, 0.5), (0.0, 1.0)),
            plane((0.0, -0.5), (0.0, -1.0)),
        ];
        let failure = linear_program_2d(&planes, 2.0, Objective::Closest(Vec2::ZERO))
            .expect_err("infeasible");
        assert_eq!(failure.index, 1);
        assert!(planes[0].contains(failure.partial));
    }

    #[test]
    fn lp2_with_zero_speed_accepts_only_the_origin() {
        let through_origin = [plane((0.0, 0.0), (0.0, 1.0))];
        let v = linear_program_2d(&through_origin, 0.0, Objective::Closest(Vec2::X));
        assert_eq!(v, Ok(Vec2::ZERO));
        let away = [plane((0.0, 0.1), (0.0, 1.0))];
        assert!(linear_program_2d(&away, 0.0, Objective::Closest(Vec2::X)).is_err());
    }

    #[test]
    fn lp2_handles_a_line_through_the_origin() {
        // x >= y (boundary through the origin), target (0, 1): projection (0.5, 0.5).
        let planes = [plane((0.0, 0.0), (1.0, -1.0))];
        let v = linear_program_2d(&planes, 2.0, Objective::Closest(Vec2::Y));
        assert!(close(v.expect("feasible"), Vec2::new(0.5, 0.5)));
    }

    #[test]
    fn lp2_handles_parallel_half_planes_facing_the_same_way() {
        let planes = [
            plane((0.0, 0.2), (0.0, 1.0)),
            plane((0.0, 0.6), (0.0, 1.0)),
            plane((0.0, 0.4), (0.0, 1.0)),
        ];
        let v = linear_program_2d(&planes, 2.0, Objective::Closest(Vec2::new(0.1, 0.0)));
        assert!(close(v.expect("feasible"), Vec2::new(0.1, 0.6)));
    }

    #[test]
    fn lp3_minimises_the_largest_violation_of_opposing_half_planes() {
        // y >= 1 and y <= -1: the best is y = 0, violating both by 1.
        let planes = [
            plane((0.0, 1.0), (0.0, 1.0)),
            plane((0.0, -1.0), (0.0, -1.0)),
        ];
        let mut scratch = Vec::new();
        let v = solve_velocity(&planes, 0, 2.0, Vec2::ZERO, &mut scratch);
        assert!(v.y.abs() < 1e-4, "{v}");
        assert!(v.length() <= 2.0 + 1e-4);
    }

    #[test]
    fn lp3_balances_three_conflicting_half_planes() {
        // Three half-planes facing outward from a triangle around the origin at
        // distance 1: every velocity violates one; the optimum is the centre.
        let mut planes = Vec::new();
        for k in 0..3 {
            let angle = k as f32 * std::f32::consts::TAU / 3.0;
            let n = Vec2::from_angle(angle);
            // v·n >= 1 for three normals 120° apart: the normals sum to zero, so the
            // three can never hold together.
            planes.push(HalfPlane::from_point_normal(n, n));
        }
        let mut scratch = Vec::new();
        let v = solve_velocity(&planes, 0, 0.5, Vec2::new(0.1, 0.0), &mut scratch);
        let worst = planes
            .iter()
            .map(|p| -p.signed_distance(v))
            .fold(f32::MIN, f32::max);
        // At the centre every violation is 1; anywhere else in the disc one is larger.
        assert!(v.length() < 1e-3, "{v}");
        assert!((worst - 1.0).abs() < 1e-3);
    }

    #[test]
    fn lp3_keeps_hard_half_planes_and_relaxes_soft_ones() {
        // Hard: y >= 0.5. Soft: y <= -0.5. The hard one must hold.
        let planes = [
            plane((0.0, 0.5), (0.0, 1.0)),
            plane((0.0, -0.5), (0.0, -1.0)),
        ];
        let mut scratch = Vec::new();
        let v = solve_velocity(&planes, 1, 2.0, Vec2::ZERO, &mut scratch);
        assert!(planes[0].signed_distance(v) >= -1e-5, "{v}");
        assert!(v.length() <= 2.0 + 1e-4);
    }

    #[test]
    fn lp3_with_conflicting_hard_half_planes_still_returns_a_finite_velocity() {
        let planes = [
            plane((0.0, 1.0), (0.0, 1.0)),
            plane((0.0, -1.0), (0.0, -1.0)),
            plane((1.0, 0.0), (1.0, 0.0)),
        ];
        let mut scratch = Vec::new();
        let v = solve_velocity(&planes, 2, 2.0, Vec2::ZERO, &mut scratch);
        assert!(v.is_finite());
        assert!(v.y.abs() < 1e-4, "{v}");
    }

    #[test]
    fn lp3_with_zero_speed_returns_zero() {
        let planes = [plane((0.0, 1.0), (0.0, 1.0))];
        let mut scratch = Vec::new();
        let v = solve_velocity(&planes, 0, 0.0, Vec2::X, &mut scratch);
        assert!(v.length() < 1e-6, "{v}");
    }

    /// Points of the disc of radius `max_speed` on a grid of spacing `step`, plus its rim.
    fn disc_samples(max_speed: f32, step: f32) -> Vec<Vec2> {
        let mut samples = Vec::new();
        let n = (max_speed / step).ceil() as i32;
        for i in -n..=n {
            for j in -n..=n {
                let p = Vec2::new(i as f32, j as f32) * step;
                if p.length() <= max_speed {
                    samples.push(p);
                }
            }
        }
        for k in 0..720 {
            samples.push(Vec2::from_angle(k as f32 * std::f32::consts::TAU / 720.0) * max_speed);
        }
        samples
    }

    #[test]
    fn solve_velocity_matches_brute_force_on_random_programs() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x1b);
        let mut scratch = Vec::new();
        let max_speed = 1.5;
        let step = 0.01;
        let samples = disc_samples(max_speed, step);
        for _ in 0..200 {
            let count = rng.gen_range(1..7);
            let hard_count = rng.gen_range(0..=count.min(2));
            let planes: Vec<HalfPlane> = (0..count)
                .map(|_| {
                    let normal = Vec2::from_angle(rng.gen_range(0.0..std::f32::consts::TAU));
                    let offset = rng.gen_range(-1.0..2.0);
                    HalfPlane::from_point_normal(normal * offset, normal)
                })
                .collect();
            let preferred = Vec2::new(rng.gen_range(-2.0..2.0), rng.gen_range(-2.0..2.0));
            let v = solve_velocity(&planes, hard_count, max_speed, preferred, &mut scratch);
            assert!(v.length() <= max_speed + 1e-4);
            let worst = |v: Vec2, planes: &[HalfPlane]| {
                planes
                    .iter()
                    .map(|p| -p.signed_distance(v))
                    .fold(0.0_f32, f32::max)
            };
            let (hard, soft) = planes.split_at(hard_count);
            let best_hard = samples
                .iter()
                .map(|&s| worst(s, hard))
                .fold(f32::INFINITY, f32::min);
            let tolerance = 2.0 * step;
            if best_hard > 0.0 {
                // Even the hard ones conflict: their worst violation is minimised.
                assert!(worst(v, hard) <= best_hard + tolerance);
                continue;
            }
            assert!(worst(v, hard) <= 1e-4, "hard half-plane violated");
            let keeps_hard: Vec<Vec2> = samples
                .iter()
                .copied()
                .filter(|&s| worst(s, hard) <= 0.0)
                .collect();
            let best_soft = keeps_hard
                .iter()
                .map(|&s| worst(s, soft))
                .fold(f32::INFINITY, f32::min);
            if best_soft > tolerance {
                // Infeasible: the largest soft violation is (nearly) minimal.
                assert!(worst(v, soft) <= best_soft + tolerance, "{v} {planes:?}");
            } else if best_soft <= 0.0 {
                // Feasible: the result is feasible and (nearly) closest to the target.
                assert!(worst(v, soft) <= 1e-4, "{v} {planes:?}");
                let closest = keeps_hard
                    .iter()
                    .filter(|&&s| worst(s, soft) <= 0.0)
                    .map(|s| s.distance(preferred))
                    .fold(f32::INFINITY, f32::min);
                assert!(v.distance(preferred) <= closest + 1e-4, "{v} {planes:?}");
            }
        }
    }
}
