//! Line charts as SVG, written by hand (a few dozen lines; no plotting crate): one series per
//! model, N on the x axis, and a logarithmic y axis when the values span more than a decade;
//! or both axes logarithmic ([`Scale::LogLog`], the scaling rows: a straight line of slope 1
//! is a cost linear in the size).

use std::fmt::Write;

/// One line of a chart.
#[derive(Clone, Debug)]
pub struct Series {
    /// Its name in the legend.
    pub name: String,
    /// (x, y) points, in order of x.
    pub points: Vec<(f64, f64)>,
    /// Its colour, an index into the palette: a chart gives one colour per model, so that the
    /// phases of one model share it.
    pub colour: usize,
    /// Its line style, an index into [`DASHES`]: solid, dashed, dotted, dash-dot (one per
    /// phase, or per thread count).
    pub dash: usize,
}

/// The palette: Okabe and Ito's eight colours for colour-blind readers, but yellow (too pale
/// on white) replaced by black.
const COLOURS: &[&str] = &[
    "#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000", "#8c564b",
];

/// The line styles, as `stroke-dasharray` values (none: solid).
pub const DASHES: &[&str] = &["", "7 4", "2 3", "9 3 2 3"];

/// A point's marker, one shape per line style: a circle (solid), a square (dashed), a triangle
/// (dotted), a diamond (dash-dot).
fn marker(dash: usize, x: f64, y: f64, colour: &str) -> String {
    match dash % DASHES.len() {
        0 => format!(r#"<circle cx="{x:.1}" cy="{y:.1}" r="3" fill="{colour}"/>"#),
        1 => format!(
            r#"<rect class="point" x="{:.1}" y="{:.1}" width="6" height="6" fill="{colour}"/>"#,
            x - 3.0,
            y - 3.0
        ),
        2 => format!(
            r#"<path class="point" d="M{x:.1} {:.1} L{:.1} {:.1} L{:.1} {:.1} Z" fill="{colour}"/>"#,
            y - 4.0,
            x + 4.0,
            y + 3.0,
            x - 4.0,
            y + 3.0
        ),
        _ => format!(
            r#"<path class="point" d="M{x:.1} {:.1} L{:.1} {y:.1} L{x:.1} {:.1} L{:.1} {y:.1} Z" fill="{colour}"/>"#,
            y - 4.0,
            x + 4.0,
            y + 4.0,
            x - 4.0
        ),
    }
}

const W: f64 = 800.0;
const H: f64 = 440.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 290.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 50.0;

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn label(v: f64) -> String {
    // At most three significant digits, without trailing zeros.
    let short = |x: f64| {
        let digits = if x >= 100.0 {
            0
        } else if x >= 10.0 {
            1
        } else {
            2
        };
        let text = format!("{x:.digits$}");
        if text.contains('.') {
            text.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            text
        }
    };
    if v >= 1e6 {
        format!("{}M", short(v / 1e6))
    } else if v >= 1e3 {
        format!("{}k", short(v / 1e3))
    } else if v >= 1.0 || v == 0.0 {
        short(v)
    } else {
        format!("{v:.0e}")
    }
}

/// A round step (1, 2 or 5 times a power of ten) that cuts `range` into about `parts` parts.
fn nice_step(range: f64, parts: f64) -> f64 {
    let raw = (range / parts).max(1e-300);
    let magnitude = 10f64.powf(raw.log10().floor());
    let m = raw / magnitude;
    magnitude
        * if m <= 1.0 {
            1.0
        } else if m <= 2.0 {
            2.0
        } else if m <= 5.0 {
            5.0
        } else {
            10.0
        }
}

/// How a chart's axes are scaled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    /// x linear; y logarithmic when the values span more than a decade, else linear from 0.
    Auto,
    /// Both logarithmic, with ticks at 1, 2 and 5 times the powers of ten (y: every decade).
    LogLog,
}

/// A line chart of `series` as an SVG document ([`Scale::Auto`]).
pub fn line_chart(title: &str, x_label: &str, y_label: &str, series: &[Series]) -> String {
    chart(title, x_label, y_label, series, Scale::Auto)
}

/// The ticks 1, 2 and 5 times a power of ten within `[x0, x1]` (`x0 > 0`), or both ends if
/// there are fewer than two.
fn log_ticks(x0: f64, x1: f64) -> Vec<f64> {
    let mut ticks = Vec::new();
    for e in (x0.log10().floor() as i32)..=(x1.log10().ceil() as i32) {
        for m in [1.0, 2.0, 5.0] {
            let t = m * 10f64.powi(e);
            if t >= x0 * (1.0 - 1e-9) && t <= x1 * (1.0 + 1e-9) {
                ticks.push(t);
            }
        }
    }
    if ticks.len() < 2 {
        ticks = vec![x0, x1];
    }
    ticks
}

/// A line chart of `series` as an SVG document, its axes scaled as `scale` says.
pub fn chart(title: &str, x_label: &str, y_label: &str, series: &[Series], scale: Scale) -> String {
    let log_x = scale == Scale::LogLog;
    let points = || series.iter().flat_map(|s| s.points.iter().copied());
    let (mut x0, mut x1) = (f64::INFINITY, f64::NEG_INFINITY);
    let (mut y0, mut y1) = (f64::INFINITY, f64::NEG_INFINITY);
    for (x, y) in points() {
        if log_x && x <= 0.0 {
            continue;
        }
        x0 = x0.min(x);
        x1 = x1.max(x);
        if y > 0.0 {
            y0 = y0.min(y);
            y1 = y1.max(y);
        }
    }
    if !x0.is_finite() {
        (x0, x1) = if log_x { (1.0, 10.0) } else { (0.0, 1.0) };
    }
    if !y0.is_finite() {
        (y0, y1) = (1.0, 10.0);
    }
    if x1 <= x0 {
        x1 = if log_x { x0 * 10.0 } else { x0 + 1.0 };
    }
    let log = log_x || y1 / y0 > 10.0;
    let (ly0, ly1) = if log {
        let (a, b) = (y0.log10().floor(), y1.log10().ceil());
        (a, if b > a { b } else { a + 1.0 })
    } else {
        (0.0, if y1 > 0.0 { y1 * 1.1 } else { 1.0 })
    };
    let px = |x: f64| {
        let t = if log_x {
            (x.max(1e-300).log10() - x0.log10()) / (x1.log10() - x0.log10())
        } else {
            (x - x0) / (x1 - x0)
        };
        LEFT + t * (W - LEFT - RIGHT)
    };
    let py = |y: f64| {
        let t = if log {
            (y.max(1e-300).log10() - ly0) / (ly1 - ly0).max(1e-9)
        } else {
            (y - ly0) / (ly1 - ly0)
        };
        H - BOTTOM - t * (H - TOP - BOTTOM)
    };
    let mut s = String::new();
    // A long legend makes the picture taller (the plot keeps its size).
    let full = H.max(TOP + 10.0 + 18.0 * series.len() as f64 + 10.0);
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{full}" viewBox="0 0 {W} {full}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="{W}" height="{full}" fill="white"/>"#);
    if series.iter().all(|s| s.points.is_empty()) {
        let _ = writeln!(
            s,
            r##"<text x="{}" y="{}" text-anchor="middle" fill="#888">no data: no row of this run has the values this chart shows</text>"##,
            (W - RIGHT + LEFT) / 2.0,
            (TOP + H - BOTTOM) / 2.0
        );
    }
    let _ = writeln!(
        s,
        r#"<text x="{}" y="22" font-size="15" text-anchor="middle">{}</text>"#,
        (W - RIGHT + LEFT) / 2.0,
        escape(title)
    );
    // Axes.
    let (ax0, ax1, ay0, ay1) = (LEFT, W - RIGHT, TOP, H - BOTTOM);
    let _ = writeln!(
        s,
        r#"<path d="M{ax0} {ay0} V{ay1} H{ax1}" fill="none" stroke="black"/>"#
    );
    // x ticks: every integer N in range (at most 12 of them); round steps over a wide range
    // (states), about six of them; 1, 2 and 5 times the powers of ten on a log scale.
    let x_ticks: Vec<f64> = if log_x {
        log_ticks(x0, x1)
    } else {
        let step = if x1 - x0 <= 12.0 {
            1.0
        } else {
            nice_step(x1 - x0, 6.0)
        };
        let mut ticks = Vec::new();
        let mut x = (x0 / step).ceil() * step;
        while x <= x1 {
            ticks.push(x);
            x += step;
        }
        ticks
    };
    for x in x_ticks {
        let _ = writeln!(
            s,
            r#"<line x1="{0}" y1="{ay1}" x2="{0}" y2="{1}" stroke="black"/><text x="{0}" y="{2}" text-anchor="middle">{3}</text>"#,
            px(x),
            ay1 + 5.0,
            ay1 + 18.0,
            label(x)
        );
    }
    // y ticks: decades on a log scale, five steps otherwise.
    let ticks: Vec<f64> = if log {
        (ly0 as i32..=ly1 as i32).map(|e| 10f64.powi(e)).collect()
    } else {
        (0..=5).map(|i| ly1 * f64::from(i) / 5.0).collect()
    };
    for t in ticks {
        let y = py(t);
        let text = if log {
            label(t)
        } else {
            format!("{:.3}", t)
                .trim_end_matches('0')
                .trim_end_matches('.')
                .to_string()
        };
        let _ = writeln!(
            s,
            r##"<line x1="{ax0}" y1="{y}" x2="{ax1}" y2="{y}" stroke="#ddd"/><text x="{}" y="{}" text-anchor="end">{text}</text>"##,
            ax0 - 6.0,
            y + 4.0
        );
    }
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" text-anchor="middle">{}{}</text>"#,
        (ax0 + ax1) / 2.0,
        H - 12.0,
        escape(x_label),
        if log_x { " (log scale)" } else { "" }
    );
    let _ = writeln!(
        s,
        r#"<text transform="translate(16 {}) rotate(-90)" text-anchor="middle">{}{}</text>"#,
        (ay0 + ay1) / 2.0,
        escape(y_label),
        if log { " (log scale)" } else { "" }
    );
    // Lines and legend.
    for (i, series) in series.iter().enumerate() {
        let colour = COLOURS[series.colour % COLOURS.len()];
        let dash = match DASHES[series.dash % DASHES.len()] {
            "" => String::new(),
            d => format!(r#" stroke-dasharray="{d}""#),
        };
        let path: Vec<String> = series
            .points
            .iter()
            .enumerate()
            .map(|(k, &(x, y))| {
                format!(
                    "{}{:.1} {:.1}",
                    if k == 0 { "M" } else { "L" },
                    px(x),
                    py(y)
                )
            })
            .collect();
        let _ = writeln!(
            s,
            r#"<path d="{}" fill="none" stroke="{colour}" stroke-width="2"{dash}/>"#,
            path.join(" ")
        );
        // Each point with the marker of its line style, so that a series of one point (a
        // model measured at one size) still says which phase it is.
        for &(x, y) in &series.points {
            let _ = writeln!(s, "{}", marker(series.dash, px(x), py(y), colour));
        }
        let ly = TOP + 10.0 + 18.0 * i as f64;
        let _ = writeln!(
            s,
            r#"<line x1="{0}" y1="{ly}" x2="{1}" y2="{ly}" stroke="{colour}" stroke-width="2"{dash}/>{5}<text x="{2}" y="{3}">{4}</text>"#,
            W - RIGHT + 15.0,
            W - RIGHT + 40.0,
            W - RIGHT + 46.0,
            ly + 4.0,
            escape(&series.name),
            marker(series.dash, W - RIGHT + 27.5, ly, colour)
        );
    }
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chart_is_an_svg_with_one_path_per_series_and_a_log_scale_when_needed() {
        let series = vec![
            Series {
                name: "a <b>".into(),
                points: vec![(2.0, 0.001), (3.0, 0.1), (4.0, 10.0)],
                colour: 0,
                dash: 0,
            },
            Series {
                name: "c".into(),
                points: vec![(2.0, 0.002), (4.0, 5.0)],
                colour: 1,
                dash: 1,
            },
        ];
        let svg = line_chart("t", "N", "s", &series);
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"));
        assert_eq!(svg.matches("<path d=\"M").count(), 3, "axes and two lines");
        assert!(svg.contains("(log scale)") && svg.contains("a &lt;b&gt;"));
        assert!(svg.contains("stroke-dasharray"));
        assert!(!line_chart("t", "N", "s", &[]).contains("NaN"));
    }

    #[test]
    fn wide_ranges_get_a_few_round_ticks_with_short_labels() {
        let series = vec![Series {
            name: "states".into(),
            points: vec![(102_571.0, 1.0), (1_118_878.0, 80.0)],
            colour: 0,
            dash: 0,
        }];
        let svg = line_chart("t", "states", "s", &series);
        let ticks: Vec<&str> = svg
            .lines()
            .filter(|l| l.contains("y2=\"395\""))
            .filter_map(|l| l.split('>').nth(2)?.split('<').next())
            .collect();
        assert_eq!(ticks, ["200k", "400k", "600k", "800k", "1M"], "{svg}");
        assert_eq!(label(1_118_878.0), "1.12M");
        assert_eq!(label(338_769.0), "339k");
        assert_eq!(label(0.5), "5e-1");
    }

    #[test]
    fn a_log_log_chart_has_log_ticks_on_both_axes() {
        let series = vec![Series {
            name: "seq".into(),
            points: vec![(1000.0, 0.02), (3000.0, 0.05), (30_000.0, 0.4)],
            colour: 0,
            dash: 0,
        }];
        let svg = chart("t", "N", "s", &series, Scale::LogLog);
        let ticks: Vec<&str> = svg
            .lines()
            .filter(|l| l.contains("y2=\"395\""))
            .filter_map(|l| l.split('>').nth(2)?.split('<').next())
            .collect();
        assert_eq!(ticks, ["1k", "2k", "5k", "10k", "20k"], "{svg}");
        assert_eq!(svg.matches("(log scale)").count(), 2, "{svg}");
        // The points lie in the plot area, in order of x.
        let xs: Vec<f64> = svg
            .lines()
            .filter(|l| l.starts_with("<circle"))
            .filter_map(|l| l.split("cx=\"").nth(1)?.split('"').next()?.parse().ok())
            .collect();
        assert_eq!(xs.len(), 3);
        assert!(xs[0] == LEFT && (xs[2] - (W - RIGHT)).abs() < 0.1, "{xs:?}");
        assert!(xs[1] > xs[0] && xs[1] < xs[2]);
        assert!(!chart("t", "N", "s", &[], Scale::LogLog).contains("NaN"));
        assert_eq!(log_ticks(25.0, 400.0), [50.0, 100.0, 200.0]);
        assert_eq!(log_ticks(3.0, 4.0), [3.0, 4.0]);
    }
}
