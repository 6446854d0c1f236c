//! Medians, quantiles and repeated timings.

use std::time::Instant;

/// Median of `values` (sorted in place); NaN when empty.
pub fn median(values: &mut [f64]) -> f64 {
    quantile(values, 0.5)
}

/// The `q`-quantile (nearest rank) of `values` (sorted in place); NaN when empty.
pub fn quantile(values: &mut [f64], q: f64) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    values.sort_by(f64::total_cmp);
    let rank = ((q * values.len() as f64).ceil() as usize).clamp(1, values.len());
    values[rank - 1]
}

/// Median, 95th percentile and maximum of a sample.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spread {
    /// How many values.
    pub count: usize,
    /// The median.
    pub median: f64,
    /// The 95th percentile (nearest rank).
    pub p95: f64,
    /// The largest value.
    pub max: f64,
}

impl Spread {
    /// The spread of `values` (NaN fields when empty).
    pub fn of(values: &[f64]) -> Spread {
        let mut v = values.to_vec();
        Spread {
            count: v.len(),
            median: median(&mut v),
            p95: quantile(&mut v, 0.95),
            max: quantile(&mut v, 1.0),
        }
    }

    /// Every field multiplied by `k` (seconds to milliseconds, say).
    pub fn scaled(self, k: f64) -> Spread {
        Spread {
            count: self.count,
            median: self.median * k,
            p95: self.p95 * k,
            max: self.max * k,
        }
    }
}

/// Median wall time in seconds of `reps` runs of `f` (fewer once the runs pass one
/// second in all), and its last result. Callers warm up by running `f` once first.
pub fn time_median<T>(reps: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut times = Vec::with_capacity(reps.max(1));
    let t0 = Instant::now();
    let mut out = std::hint::black_box(f());
    times.push(t0.elapsed().as_secs_f64());
    for _ in 1..reps.max(1) {
        if times.iter().sum::<f64>() > 1.0 {
            break;
        }
        let t0 = Instant::now();
        out = std::hint::black_box(f());
        times.push(t0.elapsed().as_secs_f64());
    }
    (median(&mut times), out)
}

/// Seconds taken by one run of `f`, and its result.
pub fn time_once<T>(f: impl FnOnce() -> T) -> (f64, T) {
    let t0 = Instant::now();
    let out = std::hint::black_box(f());
    (t0.elapsed().as_secs_f64(), out)
}
