use super::{Body, LoadMeshError, MAGIC};
use crate::mesh::{Level, Location, NavMesh};
use glam::Vec2;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::borrow::Cow;

const SEED: u64 = 0xba4e_d0e5;

/// A random 30 x 30 room with slanted obstacles: pockets, narrow gates, refinement.
fn random_mesh(rng: &mut ChaCha8Rng) -> NavMesh {
    let count = rng.gen_range(10..60);
    crate::mesh::test_worlds::quad_room(rng, count, 0.0..29.0, 0.3..4.0, |rng| {
        rng.gen_range(-1.0..1.0f32)
    })
}

/// A room with one obstacle: a file of about a kilobyte.
fn small_mesh() -> NavMesh {
    let level = Level::from_json(
        r#"{"boundary": [[0,0],[10,0],[10,10],[0,10]],
            "obstacles": [[[4,4],[6,4],[6,6],[4,6]], [[1,7],[2,7],[1.5,8]]]}"#,
    )
    .expect("valid level");
    NavMesh::from_level(&level).expect("builds")
}

/// Where the body starts in `bytes` (after the variable-length version string).
fn body_start(bytes: &[u8]) -> usize {
    25 + usize::from(bytes[12])
}

/// `bytes` with the checksum made to match the (changed) body again.
fn with_checksum(mut bytes: Vec<u8>) -> Vec<u8> {
    let start = body_start(&bytes);
    let crc = crc32fast::hash(&bytes[start..]);
    bytes[start - 4..start].copy_from_slice(&crc.to_le_bytes());
    bytes
}

/// A file whose body is `body`, with a correct header.
fn file_of(body: &Body) -> Vec<u8> {
    let mesh = small_mesh();
    let mut bytes = mesh.to_bytes();
    let start = body_start(&bytes);
    let encoded = postcard::to_stdvec(body).expect("encodes");
    bytes.truncate(start);
    bytes[start - 12..start - 4].copy_from_slice(&(encoded.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&encoded);
    with_checksum(bytes)
}

/// The body of `mesh`, to be changed by a test.
fn body_of(mesh: &NavMesh) -> Body<'static> {
    let (keys, parents) = mesh.portal_indexes().corridors.numbered_tree(mesh);
    Body {
        vertices: Cow::Owned(mesh.vertices.clone()),
        triangles: Cow::Owned(mesh.triangles.clone()),
        neighbors: Cow::Owned(mesh.neighbors.clone()),
        flags: Cow::Owned(mesh.flags.clone()),
        widths: Cow::Owned(mesh.widths.clone()),
        walkable_area: mesh.walkable_area,
        corridor_keys: Cow::Owned(keys.to_vec()),
        corridor_parents: Cow::Owned(parents.to_vec()),
    }
}

/// Path lengths (or errors), clearances and locations at random points: what a loaded
/// mesh must answer as the saved one does.
fn answers(mesh: &NavMesh, rng: &mut ChaCha8Rng, queries: usize) -> Vec<String> {
    let mut out = Vec::new();
    for _ in 0..queries {
        let mut point = || Vec2::new(rng.gen_range(-1.0..31.0), rng.gen_range(-1.0..31.0));
        let (a, b) = (point(), point());
        out.push(format!("{:?} {:?}", mesh.locate(a), mesh.clearance(a)));
        for radius in [0.0, 0.5, 2.0] {
            let answer = mesh.find_path(a, b, radius).map(|p| p.length().to_bits());
            out.push(format!("{a} {b} {radius}: {answer:?}"));
        }
    }
    out.push(format!("{:?}", mesh.walkable_area().to_bits()));
    out
}

/// Everything a loaded mesh holds — stored, rebuilt and lazily built parts alike — is
/// bit for bit what the build made; only the id is new; and the bytes of the loaded
/// mesh are the bytes it was loaded from.
#[test]
fn a_loaded_mesh_is_the_built_one_bit_for_bit_with_a_fresh_id() {
    let mut rng = ChaCha8Rng::seed_from_u64(SEED);
    for _ in 0..12 {
        let built = random_mesh(&mut rng);
        let bytes = built.to_bytes();
        assert_eq!(bytes, built.to_bytes(), "same mesh, same bytes");
        let mut loaded = NavMesh::from_bytes(&bytes).expect("loads");
        loaded.check_invariants();
        assert_ne!(loaded.id, built.id, "a loaded mesh has its own id");
        assert_eq!(loaded.to_bytes(), bytes);
        loaded.id = built.id;
        assert_eq!(format!("{loaded:?}"), format!("{built:?}"));
    }
}

/// Path lengths (bit for bit), found / not found and why, clearance, location and
/// walkable area are the same on the loaded mesh, at r = 0, 0.5 and 2.
#[test]
fn a_loaded_mesh_answers_every_query_as_the_built_one() {
    let mut rng = ChaCha8Rng::seed_from_u64(SEED + 1);
    let (mut found, mut refused) = (0, 0);
    for _ in 0..8 {
        let built = random_mesh(&mut rng);
        let mut saved = Vec::new();
        built.save(&mut saved).expect("a Vec takes every byte");
        let loaded = NavMesh::load(saved.as_slice()).expect("loads");
        let seed = rng.gen();
        let expected = answers(&built, &mut ChaCha8Rng::seed_from_u64(seed), 60);
        let got = answers(&loaded, &mut ChaCha8Rng::seed_from_u64(seed), 60);
        assert_eq!(got, expected);
        found += expected.iter().filter(|a| a.contains("Ok(")).count();
        refused += expected.iter().filter(|a| a.contains("Err(")).count();
    }
    assert!(
        found > 300 && refused > 50,
        "{found} found, {refused} refused"
    );
}

#[test]
fn other_data_is_not_a_mesh() {
    for data in [
        &b"{\"boundary\": [[0,0],[1,0],[0,1]]}"[..],
        b"mesh\n2\n",
        b"\x89PNG\r\n\x1a\n and more",
        b"x",
    ] {
        let e = NavMesh::from_bytes(data).expect_err("not a mesh");
        assert!(matches!(e, LoadMeshError::NotAMesh), "{e:?}");
        assert!(e.to_string().contains("not a crowdnav mesh"), "{e}");
    }
}

#[test]
fn a_file_of_another_format_is_refused_naming_both_versions() {
    let bytes = small_mesh().to_bytes();
    // Another format, written by another crowdnav (a longer version string).
    let mut other = MAGIC.to_vec();
    other.extend_from_slice(&7u32.to_le_bytes());
    other.push(10);
    other.extend_from_slice(b"3.14.15-rc");
    other.extend_from_slice(&bytes[body_start(&bytes) - 12..]);
    let e = NavMesh::from_bytes(&other).expect_err("another format");
    assert!(
        matches!(&e, LoadMeshError::OtherVersion { format: 7, made_by } if made_by == "3.14.15-rc"),
        "{e:?}"
    );
    let message = e.to_string();
    let this = format!(
        "this is crowdnav {}, format {}",
        env!("CARGO_PKG_VERSION"),
        NavMesh::FORMAT_VERSION
    );
    for part in [
        "made by crowdnav 3.14.15-rc (format 7)",
        &this,
        "rebuild it",
    ] {
        assert!(message.contains(part), "{message}");
    }
    // Only the header needs to be there to name the version.
    let e = NavMesh::from_bytes(&other[..23]).expect_err("another format");
    assert!(matches!(e, LoadMeshError::OtherVersion { .. }), "{e:?}");
}

#[test]
fn every_truncation_is_an_error() {
    let bytes = small_mesh().to_bytes();
    assert!(bytes.len() < 4096, "{} bytes", bytes.len());
    for len in 0..bytes.len() {
        let e = NavMesh::from_bytes(&bytes[..len]).expect_err("truncated");
        assert!(
            matches!(e, LoadMeshError::Truncated { found, .. } if found == len as u64),
            "{len}: {e:?}"
        );
    }
    let mut longer = bytes.clone();
    longer.push(0);
    let e = NavMesh::from_bytes(&longer).expect_err("a byte too many");
    assert!(matches!(e, LoadMeshError::Corrupt { .. }), "{e:?}");
    assert!(NavMesh::from_bytes(&bytes).is_ok());
}

/// Any changed byte is caught: the header's by its checks, the body's by the checksum.
#[test]
fn every_damaged_byte_is_an_error() {
    let bytes = small_mesh().to_bytes();
    let mut rng = ChaCha8Rng::seed_from_u64(SEED + 2);
    for at in 0..bytes.len() {
        let mut damaged = bytes.clone();
        damaged[at] ^= rng.gen_range(1..=255u8);
        let result = NavMesh::from_bytes(&damaged);
        // The crowdnav version string is only read for messages.
        if (13..body_start(&bytes) - 12).contains(&at) && bytes[12] == damaged[12] {
            assert!(result.is_ok(), "{at}");
        } else {
            assert!(result.is_err(), "byte {at} changed, yet it loads");
        }
    }
}

/// A body changed behind a matching checksum (a crafted file) is refused, or loads a
/// mesh that keeps every invariant and answers queries without panicking.
#[test]
fn crafted_bodies_are_refused_or_safe_to_query() {
    let mut rng = ChaCha8Rng::seed_from_u64(SEED + 3);
    let built = small_mesh();
    let bytes = built.to_bytes();
    let start = body_start(&bytes);
    let (mut refused, mut loaded) = (0, 0);
    for round in 0..3000 {
        let mut crafted = bytes.clone();
        for _ in 0..1 + round % 3 {
            let at = rng.gen_range(start..bytes.len());
            crafted[at] = if rng.gen_bool(0.5) {
                crafted[at] ^ (1 << rng.gen_range(0..8))
            } else {
                rng.gen()
            };
        }
        match NavMesh::from_bytes(&with_checksum(crafted)) {
            Err(e) => {
                assert!(matches!(e, LoadMeshError::Corrupt { .. }), "{e:?}");
                refused += 1;
            }
            Ok(mesh) => {
                mesh.check_invariants();
                answers(&mesh, &mut rng, 4);
                loaded += 1;
            }
        }
    }
    assert!(
        refused > 500 && loaded > 100,
        "{refused} refused, {loaded} loaded"
    );
}

#[test]
fn a_corridor_tree_out_of_order_is_refused() {
    let mesh = small_mesh();
    let mut body = body_of(&mesh);
    let parents = body.corridor_parents.to_mut();
    let last = parents.len() as u32 - 1;
    // A cycle: the root's parent is a leaf.
    parents[last as usize] = 0;
    let e = NavMesh::from_bytes(&file_of(&body)).expect_err("a cycle");
    assert!(e.to_string().contains("corridor"), "{e}");
    let mut body = body_of(&mesh);
    body.corridor_keys.to_mut()[0] = f32::NAN;
    assert!(NavMesh::from_bytes(&file_of(&body)).is_err());
    let mut body = body_of(&mesh);
    body.corridor_keys.to_mut().pop();
    assert!(NavMesh::from_bytes(&file_of(&body)).is_err());
}

#[test]
fn broken_topology_is_refused() {
    let mesh = small_mesh();
    let n = mesh.triangles.len() as u32;
    type Change = Box<dyn Fn(&mut Body)>;
    let cases: Vec<(&str, Change)> = vec![
        (
            "out of range",
            Box::new(|b| b.triangles.to_mut()[0][1] = 1_000_000),
        ),
        (
            "out of range",
            Box::new(move |b| b.neighbors.to_mut()[0][0] = n),
        ),
        (
            "counter-clockwise",
            Box::new(|b| b.triangles.to_mut()[0].swap(0, 1)),
        ),
        ("twin", Box::new(|b| b.neighbors.to_mut()[0] = [0; 3])),
        (
            "link back",
            Box::new(|b| {
                let n = b.neighbors.to_mut();
                let across = n[0]
                    .iter()
                    .position(|&x| x != u32::MAX)
                    .expect("a neighbour");
                n[0][across] = (n[0][across] + 1) % n.len() as u32;
            }),
        ),
        ("wall flag", Box::new(|b| b.flags.to_mut()[0] ^= 0b1110)),
        ("unknown flags", Box::new(|b| b.flags.to_mut()[0] |= 0x80)),
        (
            "not finite",
            Box::new(|b| b.vertices.to_mut()[0].x = f32::INFINITY),
        ),
        ("gate width", Box::new(|b| b.widths.to_mut()[0][2] = -1.0)),
        ("walkable area", Box::new(|b| b.walkable_area = f64::NAN)),
        (
            "adjacency rows",
            Box::new(|b| _ = b.neighbors.to_mut().pop()),
        ),
        ("no mesh", Box::new(|b| b.triangles.to_mut().clear())),
    ];
    for (expected, change) in cases {
        let mut body = body_of(&mesh);
        change(&mut body);
        let e = NavMesh::from_bytes(&file_of(&body)).expect_err(expected);
        assert!(
            matches!(&e, LoadMeshError::Corrupt { reason } if reason.contains(expected)),
            "{expected}: {e}"
        );
    }
    // The untouched body loads.
    assert!(NavMesh::from_bytes(&file_of(&body_of(&mesh))).is_ok());
}

/// A loaded mesh's lazily built grids start empty and fill as queries ask.
#[test]
fn a_loaded_mesh_locates_like_the_built_one() {
    let built = small_mesh();
    let loaded = NavMesh::from_bytes(&built.to_bytes()).expect("loads");
    for p in [
        Vec2::new(1.0, 1.0),
        Vec2::new(5.0, 5.0),
        Vec2::new(-1.0, 3.0),
    ] {
        assert_eq!(loaded.locate(p), built.locate(p));
    }
    assert!(matches!(
        loaded.locate(Vec2::new(5.0, 5.0)),
        Location::Blocked(_)
    ));
}

/// Inside a larger serde document, a mesh is its baked bytes: postcard and JSON carry
/// it whole, and damaged bytes give the deserializer's error, not a panic.
#[test]
fn a_mesh_inside_a_serde_document_round_trips() {
    #[derive(serde::Serialize, serde::Deserialize)]
    struct Save {
        name: String,
        mesh: NavMesh,
    }
    let built = small_mesh();
    let save = Save {
        name: "room".into(),
        mesh: built.clone(),
    };
    let binary = postcard::to_stdvec(&save).expect("encodes");
    let back: Save = postcard::from_bytes(&binary).expect("decodes");
    assert_eq!(back.name, "room");
    assert_eq!(back.mesh.to_bytes(), built.to_bytes());
    let text = serde_json::to_string(&save).expect("encodes");
    let back: Save = serde_json::from_str(&text).expect("decodes");
    assert_eq!(back.mesh.to_bytes(), built.to_bytes());
    let damaged = text.replacen("[137,", "[138,", 1);
    let e = serde_json::from_str::<Save>(&damaged)
        .err()
        .expect("damaged magic");
    assert!(e.to_string().contains("not a crowdnav mesh"), "{e}");
}
