//! Tolerances.
