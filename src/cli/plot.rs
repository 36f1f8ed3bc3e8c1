//! Line plots for `--plot FILE`: the format follows the extension (`.svg` or `.png`; anything
//! else is an error before any computation is wasted on it).

use plotters::coord::Shift;
use plotters::prelude::*;
use qrenyi::{Error, Result};
use std::path::Path;

/// One curve: legend label, points, colour index.
pub struct Series {
    /// Legend text.
    pub label: String,
    /// Points `(x, y)` (non-finite ones are skipped).
    pub points: Vec<(f64, f64)>,
    /// Draw as isolated markers instead of a line.
    pub markers: bool,
}

/// A figure: title, axis names, curves.
pub struct Figure {
    /// Caption.
    pub title: String,
    /// x-axis name.
    pub x_desc: String,
    /// y-axis name.
    pub y_desc: String,
    /// Curves, in legend order.
    pub series: Vec<Series>,
}

/// The image format of `path`, from its extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Scalable vector graphics.
    Svg,
    /// Portable network graphics.
    Png,
}

/// `.svg` or `.png` (case-insensitive); anything else is an [`Error::Parse`] naming the file.
pub fn format_of(path: &Path) -> Result<Format> {
    match path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .as_deref()
    {
        Some("svg") => Ok(Format::Svg),
        Some("png") => Ok(Format::Png),
        _ => Err(Error::Parse {
            what: format!("--plot {}", path.display()),
            reason: "the file name must end in .svg or .png (the format follows the extension)"
                .into(),
        }),
    }
}

const COLOURS: [RGBColor; 5] = [BLUE, RED, RGBColor(0, 140, 0), MAGENTA, BLACK];

/// Draw `fig` into `path` in the format of its extension. The named file is replaced atomically
/// (drawn into a temporary file beside it, then renamed): a link at `path` is replaced, never
/// followed, and readers never see a half-written figure.
pub fn draw(path: &Path, fig: &Figure) -> Result<()> {
    let format = format_of(path)?;
    qrenyi::io::register_plot_font()?;
    let size = (720, 480);
    qrenyi::io::replace_atomically(path, |tmp| {
        let res = match format {
            Format::Svg => render(SVGBackend::new(tmp, size).into_drawing_area(), fig),
            Format::Png => render(BitMapBackend::new(tmp, size).into_drawing_area(), fig),
        };
        res.map_err(|e| Error::io(path, e))
    })
}

fn render<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    fig: &Figure,
) -> std::result::Result<(), Box<dyn std::error::Error>>
where
    DB::ErrorType: 'static,
{
    let finite = || {
        fig.series
            .iter()
            .flat_map(|s| s.points.iter())
            .filter(|(x, y)| x.is_finite() && y.is_finite())
    };
    let (mut x0, mut x1, mut y0, mut y1) = (f64::INFINITY, f64::NEG_INFINITY, 0.0f64, 1e-12f64);
    for &(x, y) in finite() {
        (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(y), y1.max(y));
    }
    if x0.is_infinite() {
        (x0, x1) = (0.0, 1.0); // no finite point
    } else if x1 <= x0 {
        x1 = x0 + 1.0; // a single abscissa
    }
    let pad = 0.05 * (y1 - y0);
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(&fig.title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(64)
        .build_cartesian_2d(x0..x1, (y0 - pad)..(y1 + pad))?;
    chart
        .configure_mesh()
        .x_desc(fig.x_desc.as_str())
        .y_desc(fig.y_desc.as_str())
        .draw()?;
    for (i, s) in fig.series.iter().enumerate() {
        let c = COLOURS[i % COLOURS.len()];
        let pts: Vec<(f64, f64)> = s
            .points
            .iter()
            .copied()
            .filter(|(x, y)| x.is_finite() && y.is_finite())
            .collect();
        let drawn = if s.markers {
            chart.draw_series(pts.into_iter().map(|p| Circle::new(p, 4, c.filled())))?
        } else {
            chart.draw_series(LineSeries::new(pts, c))?
        };
        drawn
            .label(s.label.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c));
    }
    chart
        .configure_series_labels()
        .border_style(BLACK)
        .background_style(WHITE.mix(0.8))
        .draw()?;
    root.present()?;
    Ok(())
}
