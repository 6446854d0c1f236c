//! Text laid out to the window: the status line and the help wrap to any width, and
//! the views keep clear of the rows they take at the top and the bottom.

/// Text size of the status line, pixels.
pub const STATUS_SIZE: f32 = 22.0;
/// Height of one status row, pixels.
pub const STATUS_ROW: f32 = 24.0;
/// Text size of the debug legend, pixels.
pub const LEGEND_SIZE: f32 = 18.0;
/// Height of the legend row, pixels.
pub const LEGEND_ROW: f32 = 22.0;
/// Text size of the help, pixels.
pub const HELP_SIZE: f32 = 16.0;
/// Height of one help row, pixels.
pub const HELP_ROW: f32 = 18.0;
/// Space left and right of the text, and below the last row, pixels.
pub const MARGIN: f32 = 10.0;

/// Splits `text` into rows no wider than `width` as `measure` sees them.
///
/// Rows break between the groups that `" | "` separates, else between the items that
/// two spaces separate inside a group (a key and what it does stay together), else
/// between words; a single word wider than `width` gets a row of its own. A row that
/// starts a new group does not repeat the separator. No character of the text but
/// separators at a break is lost, and the rows keep the text's order.
pub fn wrap(text: &str, width: f32, measure: &dyn Fn(&str) -> f32) -> Vec<String> {
    // (separator before it, item), in order.
    let mut items: Vec<(&str, &str)> = Vec::new();
    for (g, group) in text.split(" | ").enumerate() {
        for (k, item) in group.split("  ").enumerate() {
            let item = item.trim();
            if item.is_empty() {
                continue;
            }
            let sep = match (g, k) {
                (0, 0) => "",
                (_, 0) => " | ",
                _ => "  ",
            };
            items.push((sep, item));
        }
    }
    let mut rows: Vec<String> = Vec::new();
    let mut row = String::new();
    for (sep, item) in items {
        let joined = if row.is_empty() {
            item.to_owned()
        } else {
            format!("{row}{sep}{item}")
        };
        if measure(&joined) <= width {
            row = joined;
            continue;
        }
        if !row.is_empty() {
            rows.push(std::mem::take(&mut row));
        }
        if measure(item) <= width {
            row = item.to_owned();
            continue;
        }
        // An item too wide alone: by words.
        for word in item.split(' ').filter(|w| !w.is_empty()) {
            let joined = if row.is_empty() {
                word.to_owned()
            } else {
                format!("{row} {word}")
            };
            if measure(&joined) <= width || row.is_empty() {
                row = joined;
            } else {
                rows.push(std::mem::replace(&mut row, word.to_owned()));
            }
        }
    }
    if !row.is_empty() {
        rows.push(row);
    }
    rows
}

/// The rows of every line of `lines`, each wrapped to `width` ([`wrap`]).
pub fn wrap_all(lines: &[&str], width: f32, measure: &dyn Fn(&str) -> f32) -> Vec<String> {
    lines.iter().flat_map(|l| wrap(l, width, measure)).collect()
}

/// Pixels the text takes at the top (status rows and, with debug drawing, the
/// legend) and at the bottom (help rows) of a window: what the views keep clear of.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Margins {
    /// From the top edge, pixels.
    pub top: f32,
    /// From the bottom edge, pixels.
    pub bottom: f32,
}

impl Margins {
    /// The margins for `status_rows` rows of status, a legend row when `legend`, and
    /// `help_rows` rows of help.
    pub fn of(status_rows: usize, legend: bool, help_rows: usize) -> Margins {
        let legend = if legend { LEGEND_ROW } else { 0.0 };
        let help = if help_rows > 0 {
            help_rows as f32 * HELP_ROW + MARGIN
        } else {
            0.0
        };
        Margins {
            top: MARGIN + status_rows as f32 * STATUS_ROW + legend,
            bottom: help + MARGIN,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::HELP;

    /// Width of the viewer's font at the help's size, about 7.2 px a character
    /// (macroquad's default font at 16 px), rounded up.
    fn help_measure(s: &str) -> f32 {
        s.chars().count() as f32 * 8.0
    }

    /// The items of the text (what [`wrap`] keeps whole), in order.
    fn items(text: &str) -> Vec<String> {
        text.split(" | ")
            .flat_map(|g| g.split("  "))
            .flat_map(|i| i.split(' '))
            .filter(|w| !w.is_empty())
            .map(str::to_owned)
            .collect()
    }

    #[test]
    fn the_help_wraps_to_every_window_from_640_pixels_wide() {
        for window in [640.0f32, 800.0, 1024.0, 1280.0] {
            let width = window - 2.0 * MARGIN;
            let rows = wrap_all(&HELP, width, &help_measure);
            for row in &rows {
                assert!(
                    help_measure(row) <= width,
                    "{window} px: row too wide: {row}"
                );
                assert!(!row.starts_with(' ') && !row.starts_with('|'), "{row}");
            }
            // Nothing lost, nothing reordered.
            let all: Vec<String> = HELP.iter().flat_map(|l| items(l)).collect();
            let kept: Vec<String> = rows.iter().flat_map(|r| items(r)).collect();
            assert_eq!(kept, all, "{window} px");
            // Few rows: the help stays a footer.
            let most = match window as u32 {
                640 => 5,
                800 => 4,
                1024 => 3,
                _ => 2,
            };
            assert!(rows.len() <= most, "{window} px: {} rows", rows.len());
        }
    }

    #[test]
    fn a_key_and_what_it_does_stay_on_one_row() {
        let rows = wrap(
            "R circle  B swap  T groups | M method",
            9.0 * 8.0,
            &help_measure,
        );
        assert_eq!(rows, ["R circle", "B swap", "T groups", "M method"]);
        let rows = wrap("R circle  B swap | M method", 18.0 * 8.0, &help_measure);
        assert_eq!(rows, ["R circle  B swap", "M method"]);
    }

    #[test]
    fn an_item_wider_than_the_window_breaks_between_words() {
        let rows = wrap("a very long item indeed | b", 7.0 * 8.0, &help_measure);
        assert_eq!(rows, ["a very", "long", "item", "indeed", "b"]);
        // A word wider than the row still shows, alone.
        assert_eq!(wrap("supercalifragilistic", 40.0, &help_measure).len(), 1);
        assert!(wrap("", 100.0, &help_measure).is_empty());
    }

    #[test]
    fn margins_count_the_rows() {
        let m = Margins::of(1, true, 2);
        assert_eq!(m.top, MARGIN + STATUS_ROW + LEGEND_ROW);
        assert_eq!(m.bottom, 2.0 * HELP_ROW + 2.0 * MARGIN);
        assert_eq!(Margins::of(1, false, 0).bottom, MARGIN);
    }
}
