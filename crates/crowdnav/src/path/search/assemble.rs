//! The [`Path`] of a complete funnel: its arcs, segments and corners.

use super::astar::Search;
use crate::geom::Side;
use crate::mesh::VertexId;
use crate::path::funnel::{sweep, Wrap};
use crate::path::{Corner, Path, PathPiece};

impl Search<'_> {
    pub(super) fn build_path(&self, wraps: &[Wrap], length: f64) -> Path {
        let mut pieces = Vec::new();
        let mut corners = Vec::new();
        for pair in wraps.windows(2) {
            let (w, next) = (pair[0], pair[1]);
            let leave =
                crate::geom::tangent_between(w.point.circle, w.side, next.point.circle, next.side)
                    .map_or(w.arrive, |t| t.a);
            let r = w.point.circle.radius;
            if r > 0.0 {
                let s = sweep(w.point.circle.center, w.arrive, leave, w.side) as f32;
                if s > 0.0 {
                    pieces.push(PathPiece::Arc {
                        center: w.point.circle.center,
                        radius: r,
                        from: w.arrive,
                        to: leave,
                        sweep: if w.side == Side::Left { s } else { -s },
                    });
                }
            }
            if leave != next.arrive {
                pieces.push(PathPiece::Line {
                    from: leave,
                    to: next.arrive,
                });
            }
            if next.point.id != u32::MAX {
                corners.push(Corner {
                    vertex: VertexId(next.point.id),
                    position: next.point.circle.center,
                    side: next.side,
                });
            }
        }
        Path {
            start: self.start,
            goal: self.goal,
            pieces,
            corners,
            length,
            radius: self.radius,
        }
    }
}
