//! Side-by-side comparisons of crowdnav with peer crates (benches only).
