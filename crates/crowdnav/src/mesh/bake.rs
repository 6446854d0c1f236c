//! Baked meshes: a built [`NavMesh`] saved to bytes and loaded back, every answer the
//! same, without triangulating or measuring clearance again.
//!
//! A file is a small header and a body:
//!
//! ```text
//! offset  size  what
//! 0       8     magic bytes 89 'C' 'N' 'M' 'E' 'S' 'H' 0A
//! 8       4     format version, u32 little-endian (NavMesh::FORMAT_VERSION)
//! 12      1     n: length of the version string of the crowdnav that wrote it
//! 13      n     that version string, UTF-8 (for the error message only)
//! 13 + n  8     body length in bytes, u64 little-endian
//! 21 + n  4     CRC-32 (IEEE) of the body, u32 little-endian
//! 25 + n  ...   body: postcard (serde) encoding of `Body`
//! ```
//!
//! The first three fields keep their place in every format version, so a file of
//! another version is always recognised and refused by name. The body stores what is
//! expensive or must come out bit for bit as the build made it: vertices, triangles,
//! adjacency, flags, gate widths (after Kallmann refinement), the walkable area and the
//! corridor index's tree. Everything else is rebuilt on load from those, by the same
//! code the build runs, in linear time: obstacle vertices, corner gaps, the portals'
//! numbering, the corridor index's jump pointers, pockets, the point locator. Grids
//! built on first use start empty, as after a build, and the mesh gets a fresh id.
//!
//! Loading checks everything a query relies on (indices in range, triangles
//! counter-clockwise, adjacency symmetric, wall flags consistent, finite coordinates,
//! the corridor tree well ordered), so a corrupt or crafted file is refused with an
//! error and can never make a later query panic.

use super::corridors::{Corridors, LazyPortalIndexes, PortalIndexes};
use super::locate::Locator;
use super::navmesh::{corner_gaps, fresh_mesh_id, NavMesh, COVERED, NONE};
use crate::geom::{orient2d, MAX_COORDINATE};
use glam::Vec2;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::io::{Read, Write};

/// The first bytes of every baked mesh (PNG-style: a non-ASCII byte, a name, a newline).
const MAGIC: [u8; 8] = *b"\x89CNMESH\n";

/// The version of crowdnav, written into every file for the error message.
const CROWDNAV_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Why bytes could not be loaded as a baked [`NavMesh`].
#[derive(Debug, thiserror::Error)]
pub enum LoadMeshError {
    /// Reading failed.
    #[error("cannot read the mesh: {0}")]
    Io(#[from] std::io::Error),
    /// The data does not start with a baked mesh's magic bytes.
    #[error("not a crowdnav mesh (a baked mesh starts with the bytes 89 43 4E 4D 45 53 48 0A)")]
    NotAMesh,
    /// The mesh was saved in another format version: rebuild it from its level.
    #[error(
        "made by crowdnav {made_by} (format {format}); this is crowdnav {this}, format \
         {expected}: rebuild it from its level",
        this = CROWDNAV_VERSION,
        expected = NavMesh::FORMAT_VERSION
    )]
    OtherVersion {
        /// The file's format version.
        format: u32,
        /// The version of crowdnav that wrote it.
        made_by: String,
    },
    /// The data ends before the mesh does.
    #[error("truncated: the mesh needs {expected} bytes, the data holds {found}")]
    Truncated {
        /// Bytes the header says the mesh takes (as far as it could be read).
        expected: u64,
        /// Bytes there are.
        found: u64,
    },
    /// The body does not match its checksum: the data was damaged.
    #[error("corrupt: the mesh data does not match its checksum")]
    Checksum,
    /// The body passed its checksum but does not describe a valid mesh (a file
    /// written by hand, or a bug).
    #[error("corrupt mesh data: {reason}")]
    Corrupt {
        /// What is wrong.
        reason: String,
    },
}

impl LoadMeshError {
    fn corrupt(reason: impl Into<String>) -> LoadMeshError {
        LoadMeshError::Corrupt {
            reason: reason.into(),
        }
    }
}

/// What a file stores of a mesh, in this order (postcard is not self-describing: any
/// change here is a new [`NavMesh::FORMAT_VERSION`]).
#[derive(Serialize, Deserialize)]
struct Body<'a> {
    vertices: Cow<'a, [Vec2]>,
    triangles: Cow<'a, [[u32; 3]]>,
    neighbors: Cow<'a, [[u32; 3]]>,
    flags: Cow<'a, [u8]>,
    widths: Cow<'a, [[f32; 3]]>,
    walkable_area: f64,
    /// The corridor index's tree (see `Corridors::numbered_tree`): per node, key and
    /// parent.
    corridor_keys: Cow<'a, [f32]>,
    corridor_parents: Cow<'a, [u32]>,
}

impl NavMesh {
    /// The version of the baked-mesh format that [`NavMesh::to_bytes`] writes and
    /// [`NavMesh::from_bytes`] reads; a file of any other version is refused
    /// ([`LoadMeshError::OtherVersion`]).
    pub const FORMAT_VERSION: u32 = 1;

    /// The mesh as bytes, to store and load back with [`NavMesh::from_bytes`]: a
    /// header (magic bytes, [`NavMesh::FORMAT_VERSION`], crowdnav's version, length,
    /// checksum) and a compact binary body. Same mesh, same bytes.
    ///
    /// See `docs/baked-mesh.md` for the layout.
    pub fn to_bytes(&self) -> Vec<u8> {
        let (corridor_keys, corridor_parents) = self.portal_indexes().corridors.numbered_tree(self);
        let body = Body {
            vertices: Cow::Borrowed(&self.vertices),
            triangles: Cow::Borrowed(&self.triangles),
            neighbors: Cow::Borrowed(&self.neighbors),
            // A triangle blocked by an edit is stored as plain blocked: the loaded mesh
            // is the edited level, with no obstacles of its own.
            flags: if self.flags.iter().any(|f| f & COVERED != 0) {
                Cow::Owned(self.flags.iter().map(|f| f & !COVERED).collect())
            } else {
                Cow::Borrowed(&self.flags)
            },
            widths: Cow::Borrowed(&self.widths),
            walkable_area: self.walkable_area,
            corridor_keys: Cow::Owned(corridor_keys),
            corridor_parents: Cow::Owned(corridor_parents),
        };
        // Encoding slices and numbers into a growable vector has no failure case
        // (postcard fails only on sequences of unknown length or a full buffer).
        let body = postcard::to_stdvec(&body).expect("postcard encodes slices into a Vec");
        let version = CROWDNAV_VERSION.as_bytes();
        let version = &version[..version.len().min(usize::from(u8::MAX))];
        let mut bytes = Vec::with_capacity(25 + version.len() + body.len());
        bytes.extend_from_slice(&MAGIC);
        bytes.extend_from_slice(&Self::FORMAT_VERSION.to_le_bytes());
        bytes.push(version.len() as u8);
        bytes.extend_from_slice(version);
        bytes.extend_from_slice(&(body.len() as u64).to_le_bytes());
        bytes.extend_from_slice(&crc32fast::hash(&body).to_le_bytes());
        bytes.extend_from_slice(&body);
        bytes
    }

    /// Writes the mesh to `writer` ([`NavMesh::to_bytes`]).
    ///
    /// # Errors
    /// The writer's.
    ///
    /// # Example
    /// ```
    /// use crowdnav::mesh::{Level, NavMesh};
    /// let level = Level::from_json(r#"{"boundary": [[0,0],[10,0],[10,10],[0,10]],
    ///                                  "obstacles": [[[4,4],[6,4],[6,6],[4,6]]]}"#)?;
    /// let mesh = NavMesh::from_level(&level)?;
    /// let mut file = Vec::new(); // or a std::fs::File
    /// mesh.save(&mut file)?;
    /// let loaded = NavMesh::load(file.as_slice())?;
    /// assert_eq!(loaded.walkable_area(), mesh.walkable_area());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn save(&self, mut writer: impl Write) -> std::io::Result<()> {
        writer.write_all(&self.to_bytes())?;
        writer.flush()
    }

    /// Reads a mesh that [`NavMesh::save`] wrote, to its end ([`NavMesh::from_bytes`]).
    ///
    /// # Errors
    /// [`LoadMeshError::Io`] when reading fails, else as [`NavMesh::from_bytes`].
    pub fn load(mut reader: impl Read) -> Result<NavMesh, LoadMeshError> {
        let mut bytes = Vec::new();
        reader.read_to_end(&mut bytes)?;
        Self::from_bytes(&bytes)
    }

    /// The mesh that [`NavMesh::to_bytes`] made these bytes of: it answers every query
    /// exactly as the saved mesh does, and has a fresh identity (like a new build).
    /// The bytes are checked throughout, so damaged or crafted data gives an error,
    /// never a panic now or in a later query.
    ///
    /// # Errors
    /// [`LoadMeshError::NotAMesh`] without the magic bytes,
    /// [`LoadMeshError::OtherVersion`] for another [`NavMesh::FORMAT_VERSION`],
    /// [`LoadMeshError::Truncated`] when the data ends early,
    /// [`LoadMeshError::Checksum`] when the body was damaged,
    /// [`LoadMeshError::Corrupt`] when it does not describe a valid mesh.
    pub fn from_bytes(bytes: &[u8]) -> Result<NavMesh, LoadMeshError> {
        let body = read_header(bytes)?;
        let (body, rest): (Body, &[u8]) = postcard::take_from_bytes(body)
            .map_err(|e| LoadMeshError::corrupt(format!("cannot decode the body: {e}")))?;
        if !rest.is_empty() {
            return Err(LoadMeshError::corrupt(format!(
                "{} bytes after the body's end",
                rest.len()
            )));
        }
        from_body(body).map_err(LoadMeshError::corrupt)
    }
}

/// A mesh serialises as the bytes of [`NavMesh::to_bytes`] (header, version and
/// checksum included), so that it can be part of a larger serde document; compact in
/// binary formats (postcard, bincode), an array of numbers in text ones.
impl Serialize for NavMesh {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(&self.to_bytes())
    }
}

/// The bytes [`NavMesh`]'s `Serialize` writes, loaded with [`NavMesh::from_bytes`]: a
/// [`LoadMeshError`] becomes the deserializer's error, with its message.
impl<'de> Deserialize<'de> for NavMesh {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Bytes;
        impl<'de> serde::de::Visitor<'de> for Bytes {
            type Value = NavMesh;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("the bytes of a baked crowdnav mesh")
            }
            fn visit_bytes<E: serde::de::Error>(self, bytes: &[u8]) -> Result<NavMesh, E> {
                NavMesh::from_bytes(bytes).map_err(E::custom)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<NavMesh, A::Error> {
                let mut bytes = Vec::new();
                while let Some(b) = seq.next_element::<u8>()? {
                    bytes.push(b);
                }
                self.visit_bytes(&bytes)
            }
        }
        deserializer.deserialize_bytes(Bytes)
    }
}

/// Checks the header of `bytes` and returns the body it announces.
fn read_header(bytes: &[u8]) -> Result<&[u8], LoadMeshError> {
    let truncated = |expected: usize| LoadMeshError::Truncated {
        expected: expected as u64,
        found: bytes.len() as u64,
    };
    if bytes.len() < MAGIC.len() {
        return Err(if MAGIC.starts_with(bytes) {
            truncated(MAGIC.len())
        } else {
            LoadMeshError::NotAMesh
        });
    }
    if bytes[..MAGIC.len()] != MAGIC {
        return Err(LoadMeshError::NotAMesh);
    }
    let field = |at: usize, len: usize| bytes.get(at..at + len).ok_or(truncated(at + len));
    let mut word = [0; 4];
    word.copy_from_slice(field(8, 4)?);
    let format = u32::from_le_bytes(word);
    let version_len = usize::from(field(12, 1)?[0]);
    let made_by = field(13, version_len)?;
    if format != NavMesh::FORMAT_VERSION {
        return Err(LoadMeshError::OtherVersion {
            format,
            made_by: String::from_utf8_lossy(made_by).into_owned(),
        });
    }
    let at = 13 + version_len;
    let mut long = [0; 8];
    long.copy_from_slice(field(at, 8)?);
    let body_len = u64::from_le_bytes(long);
    word.copy_from_slice(field(at + 8, 4)?);
    let checksum = u32::from_le_bytes(word);
    let start = at + 12;
    let end = (start as u64).saturating_add(body_len);
    if (bytes.len() as u64) < end {
        return Err(LoadMeshError::Truncated {
            expected: end,
            found: bytes.len() as u64,
        });
    }
    if (bytes.len() as u64) > end {
        return Err(LoadMeshError::corrupt(format!(
            "{} bytes after the mesh's end",
            bytes.len() as u64 - end
        )));
    }
    let body = &bytes[start..];
    if crc32fast::hash(body) != checksum {
        return Err(LoadMeshError::Checksum);
    }
    Ok(body)
}

/// The mesh a decoded body describes, once checked, with what is not stored rebuilt.
fn from_body(body: Body) -> Result<NavMesh, String> {
    let vertices = body.vertices.into_owned();
    let triangles = body.triangles.into_owned();
    let neighbors = body.neighbors.into_owned();
    let flags = body.flags.into_owned();
    let widths = body.widths.into_owned();
    let n = triangles.len();
    if n == 0 || n >= NONE as usize || vertices.len() >= NONE as usize {
        return Err(format!(
            "{n} triangles and {} vertices is no mesh",
            vertices.len()
        ));
    }
    if neighbors.len() != n || flags.len() != n || widths.len() != n {
        return Err(format!(
            "{n} triangles, but {} adjacency rows, {} flags and {} width rows",
            neighbors.len(),
            flags.len(),
            widths.len()
        ));
    }
    if let Some(v) = vertices
        .iter()
        .position(|p| !p.is_finite() || p.abs().max_element() > MAX_COORDINATE)
    {
        return Err(format!(
            "vertex {v} ({}) is not finite or out of range",
            vertices[v]
        ));
    }
    if !body.walkable_area.is_finite() || body.walkable_area <= 0.0 {
        return Err(format!("walkable area {}", body.walkable_area));
    }
    const FLAG_BITS: u8 = 0b1111;
    for t in 0..n {
        let ids = triangles[t];
        if ids.iter().any(|&v| v as usize >= vertices.len()) {
            return Err(format!("triangle {t} names a vertex out of range"));
        }
        let [a, b, c] = ids.map(|v| vertices[v as usize]);
        if !orient2d(a, b, c).is_ccw() {
            return Err(format!("triangle {t} is not counter-clockwise"));
        }
        if flags[t] & !FLAG_BITS != 0 {
            return Err(format!("triangle {t} has unknown flags {:#x}", flags[t]));
        }
        if widths[t].iter().any(|w| w.is_nan() || *w < 0.0) {
            return Err(format!("triangle {t} has a negative or NaN gate width"));
        }
        if neighbors[t]
            .iter()
            .any(|&nb| nb != NONE && nb as usize >= n)
        {
            return Err(format!("triangle {t} names a neighbour out of range"));
        }
    }
    let mut mesh = NavMesh {
        obstacle_vertex: vec![false; vertices.len()],
        vertices,
        triangles,
        neighbors,
        flags,
        widths,
        corner_gap: Vec::new(),
        portals: Default::default(),
        pockets: Default::default(),
        corner_grid: Default::default(),
        query_index: Default::default(),
        locator: Locator::default(),
        walkable_area: body.walkable_area,
        obstacles: Default::default(),
        id: fresh_mesh_id(),
    };
    check_adjacency(&mesh)?;
    if !mesh.triangles().any(|t| mesh.is_walkable(t)) {
        return Err("no triangle is walkable".into());
    }
    // As the build does: a vertex is an obstacle vertex when it ends a wall.
    for t in 0..n {
        for e in 0..3 {
            if mesh.flags[t] & (2 << e) != 0 {
                let ids = mesh.triangles[t];
                mesh.obstacle_vertex[ids[e] as usize] = true;
                mesh.obstacle_vertex[ids[(e + 1) % 3] as usize] = true;
            }
        }
    }
    mesh.corner_gap = corner_gaps(&mesh);
    let corridors = Corridors::from_tree(
        &mesh,
        body.corridor_keys.into_owned(),
        body.corridor_parents.into_owned(),
    )?;
    mesh.portals = LazyPortalIndexes::built(PortalIndexes::around(corridors));
    mesh.pockets = crate::path::pockets::LazyPockets::built(&mesh);
    mesh.locator = Locator::new(&mesh);
    Ok(mesh)
}

/// Checks what [`NavMesh::check_invariants`] asserts of the adjacency, as an error:
/// every neighbour links back across the same edge, reversed, and an edge is a wall
/// exactly when it has walkable space on one side only (the outside is not walkable).
fn check_adjacency(mesh: &NavMesh) -> Result<(), String> {
    for t in mesh.triangles() {
        let ids = mesh.triangles[t.index()];
        for e in 0..3 {
            let other = match mesh.neighbor(t, e) {
                None => false,
                Some(nb) => {
                    let back = mesh.edge_toward(nb.0, t.0).ok_or_else(|| {
                        format!("triangle {} does not link back to {}", nb.0, t.0)
                    })?;
                    let twin = mesh.triangles[nb.index()];
                    if (ids[e], ids[(e + 1) % 3]) != (twin[(back + 1) % 3], twin[back]) {
                        return Err(format!(
                            "edge {e} of triangle {} does not match its twin",
                            t.0
                        ));
                    }
                    mesh.is_walkable(nb)
                }
            };
            if mesh.is_wall(t, e) != (mesh.is_walkable(t) != other) {
                return Err(format!("wall flag of edge {e} of triangle {}", t.0));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "bake_test.rs"]
mod test;
