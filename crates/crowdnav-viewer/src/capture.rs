//! Headless capture: the frame the viewer itself rendered, saved as a PNG.

use std::path::Path;

/// Writes an RGBA image of `width × height` pixels, given bottom row first (as
/// OpenGL reads the framebuffer), to `path` as a PNG with the top row first.
pub fn save_png(path: &Path, width: u32, height: u32, rgba_bottom_up: &[u8]) -> Result<(), String> {
    let row = width as usize * 4;
    if rgba_bottom_up.len() != row * height as usize {
        return Err(format!(
            "screen data is {} bytes, expected {}",
            rgba_bottom_up.len(),
            row * height as usize
        ));
    }
    let mut top_down = Vec::with_capacity(rgba_bottom_up.len());
    for r in rgba_bottom_up.chunks_exact(row).rev() {
        top_down.extend_from_slice(r);
    }
    // Opaque: the alpha channel of a framebuffer means nothing in a picture.
    for px in top_down.chunks_exact_mut(4) {
        px[3] = 255;
    }
    let shown = path.display();
    let file = std::fs::File::create(path).map_err(|e| format!("{shown}: {e}"))?;
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), width, height);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    let mut w = enc.write_header().map_err(|e| format!("{shown}: {e}"))?;
    w.write_image_data(&top_down)
        .map_err(|e| format!("{shown}: {e}"))?;
    w.finish().map_err(|e| format!("{shown}: {e}"))
}

/// Captures the current frame (call after drawing, before `next_frame`) to `path`.
pub fn capture(path: &Path) -> Result<(), String> {
    let img = macroquad::texture::get_screen_data();
    save_png(
        path,
        u32::from(img.width),
        u32::from(img.height),
        &img.bytes,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_flipped_and_alpha_made_opaque() {
        let dir = std::env::temp_dir().join(format!("crowdnav-capture-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("t.png");
        // 1×2: bottom red, top green.
        save_png(&path, 1, 2, &[255, 0, 0, 0, 0, 255, 0, 10]).expect("written");
        let dec = png::Decoder::new(std::fs::File::open(&path).expect("open"));
        let mut r = dec.read_info().expect("png");
        let mut buf = vec![0; r.output_buffer_size()];
        r.next_frame(&mut buf).expect("frame");
        assert_eq!(&buf[..8], &[0, 255, 0, 255, 255, 0, 0, 255]);
        let _ = std::fs::remove_dir_all(dir);
    }
}
