//! The margins of the search's comparisons, named once, each with why it is what it
//! is. Every one is relative (scaled by `1 +` the magnitudes compared) unless it says
//! otherwise.

/// Relative margin by which one path length must beat another before a dominance rule
/// on whole portals drops a funnel, and by which a dropped bound must lie below the
/// answer before the fallback runs: about one `f32` ulp (2⁻²³ ≈ 1.2e-7). Arrival
/// points on corners' circles are kept as `f32`, so two lengths computed along
/// different channels agree only to that; within it they count as equal, and equal
/// never prunes.
pub(super) const LENGTH: f64 = 1e-7;

/// Relative margin of the comparisons where only `f64` rounding must not decide: apex
/// dominance (of two prefixes reaching a corner about equally, dropping either is
/// harmless: the other goes on) and the test that lets a disc's record wait unmeasured
/// (it only saves work). Far above the `f64` rounding of sums of a few thousand terms
/// (about 1e-13), far below any difference that matters.
pub(super) const ROUNDING: f64 = 1e-9;

/// Apex dominance measures a roll around a corner only for a record shorter than the
/// apex by more than the chord between the two arrivals (no roll is shorter than its
/// chord). The chord is shrunk by this factor (one part in a million) so that its
/// rounding never skips a record the exact roll would let prune.
pub(super) const CHORD_SHRINK: f64 = 0.999_999;

/// Slack of a portal's ends, relative to `1 +` its largest coordinate: a few `f32`
/// ulps (1e-6 ≈ 8 ulps of 2⁻²³) of the coordinates its free part is computed from.
pub(super) const PORTAL_SLACK: f64 = 1e-6;

/// A portal's free part narrower than this many slacks gives no crossing segment:
/// shrunk by a slack at each end, what would be left is within rounding of nothing.
pub(super) const MIN_SPAN_SLACKS: f64 = 4.0;

/// Slacks added to the margin of disc dominance: both bounds compared move by at most
/// a sliver's length on the two slivers (one slack each) left out of the crossing
/// segment, plus one slack for the rounding of the segment's ends to `f32`.
pub(super) const MARGIN_SLACKS: f64 = 3.0;

/// Relative part of a corner's radius that a direct last leg may cut and still count
/// as clear of the corner: the leg's ends are tangent points rounded to `f32`, so a
/// leg that touches a circle exactly may pass inside it by about that much.
pub(super) const CLEARANCE: f64 = 1e-6;
