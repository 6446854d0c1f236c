//! Importers for third-party level formats: Polyanya `.mesh` (v2, v3) and MovingAI `.map`.
