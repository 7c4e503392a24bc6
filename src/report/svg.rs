//! Inline SVG charts for the HTML report: drawn from numbers only, every label escaped.
//!
//! Each data point is one element with a class a test can count (`circle.point`, `rect.bar`)
//! and a `<title>` a browser shows on hover. Colours are CSS custom properties of the page
//! (`--pass`, `--series-1`, `--series-2`, `currentColor`), so a chart follows the light or dark
//! theme. Coordinates have one decimal and every number is made finite first: the same data
//! always draws the same bytes, and no `NaN` reaches the markup.

use std::fmt::Write as _;

use super::html::escape;

/// The drawing's size in user units; the page scales it to its column.
pub const WIDTH: f64 = 640.0;
pub const HEIGHT: f64 = 260.0;
/// The plot area inside the drawing: room for the y labels on the left, the legend on top and
/// the x labels below.
const LEFT: f64 = 64.0;
const RIGHT: f64 = 16.0;
const TOP: f64 = 32.0;
const BOTTOM: f64 = 40.0;
/// At most this many x labels, so a month of days does not overlap.
const MAX_X_LABELS: usize = 10;

/// The y axis: from 0 to `max`, `ticks` gridlines above the baseline, each labelled by `label`.
#[derive(Debug, Clone, Copy)]
pub struct Axis {
    pub max: f64,
    pub ticks: u32,
    pub label: fn(f64) -> String,
}

impl Axis {
    /// 0–100 %, a gridline every 25 %.
    pub fn percent() -> Self {
        Self {
            max: 100.0,
            ticks: 4,
            label: |v| format!("{v:.0}%"),
        }
    }

    /// 0 to a round duration at or above `max_minutes` (4 gridlines), labelled by `label`.
    pub fn minutes(max_minutes: f64, label: fn(f64) -> String) -> Self {
        Self {
            max: nice_minutes(max_minutes) * 4.0,
            ticks: 4,
            label,
        }
    }

    /// The axis's top, never zero, infinite or NaN.
    fn top(&self) -> f64 {
        if self.max.is_finite() && self.max > 0.0 {
            self.max
        } else {
            1.0
        }
    }

    /// The y coordinate of `value`: 0 on the baseline, `max` at the top of the plot.
    fn y(&self, value: f64) -> f64 {
        let value = if value.is_finite() {
            value.clamp(0.0, self.top())
        } else {
            0.0
        };
        let plot = HEIGHT - TOP - BOTTOM;
        HEIGHT - BOTTOM - value / self.top() * plot
    }
}

/// The gridline step (in minutes) that puts 4 gridlines at or above `max_minutes`: a minute,
/// an hour or a day multiple a person reads at a glance.
pub fn nice_minutes(max_minutes: f64) -> f64 {
    const STEPS: [f64; 15] = [
        1.0, 2.0, 5.0, 10.0, 15.0, 30.0, 60.0, 120.0, 180.0, 360.0, 720.0, 1440.0, 2880.0, 4320.0,
        10080.0,
    ];
    let top = if max_minutes.is_finite() && max_minutes > 0.0 {
        max_minutes
    } else {
        1.0
    };
    STEPS
        .into_iter()
        .find(|step| step * 4.0 >= top)
        .unwrap_or_else(|| (top / 4.0 / 1440.0).ceil() * 1440.0)
}

/// One point of a line chart: its x label, its value on the axis and its hover text.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    pub label: String,
    pub value: f64,
    pub title: String,
}

/// One bar: its value on the axis and its hover text.
#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    pub value: f64,
    pub title: String,
}

/// The bars of one x category, one per series, side by side.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    pub label: String,
    pub bars: Vec<Bar>,
}

/// A line chart: a `polyline` through one `circle.point` per point, in order.
pub fn line_chart(aria_label: &str, axis: &Axis, points: &[Point]) -> String {
    let mut svg = open(aria_label);
    grid(&mut svg, axis);
    let band = band(points.len());
    let at = |i: usize, p: &Point| (LEFT + (i as f64 + 0.5) * band, axis.y(p.value));
    x_labels(
        &mut svg,
        points.iter().map(|p| p.label.as_str()),
        band,
        points.len(),
    );
    if points.len() > 1 {
        let line: Vec<String> = points
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let (x, y) = at(i, p);
                format!("{},{}", num(x), num(y))
            })
            .collect();
        let _ = writeln!(
            svg,
            r#"<polyline class="line" fill="none" points="{}"/>"#,
            line.join(" ")
        );
    }
    for (i, p) in points.iter().enumerate() {
        let (x, y) = at(i, p);
        let _ = writeln!(
            svg,
            r#"<circle class="point" cx="{}" cy="{}" r="4.5"><title>{}</title></circle>"#,
            num(x),
            num(y),
            escape(&p.title)
        );
    }
    svg.push_str("</svg>\n");
    svg
}

/// A bar chart: per group, one `rect.bar.s{n}` per series (n from 1), and a legend naming the
/// series when there are several.
pub fn bar_chart(aria_label: &str, axis: &Axis, series: &[&str], groups: &[Group]) -> String {
    let mut svg = open(aria_label);
    grid(&mut svg, axis);
    let band = band(groups.len());
    x_labels(
        &mut svg,
        groups.iter().map(|g| g.label.as_str()),
        band,
        groups.len(),
    );
    let per_group = groups
        .iter()
        .map(|g| g.bars.len())
        .max()
        .unwrap_or(1)
        .max(1);
    // The group takes 60% of its band, at most 48 units a bar, with a 2-unit gap between bars.
    let width = ((band * 0.6 - 2.0 * (per_group as f64 - 1.0)) / per_group as f64).clamp(2.0, 48.0);
    let group_width = width * per_group as f64 + 2.0 * (per_group as f64 - 1.0);
    let base = axis.y(0.0);
    for (i, group) in groups.iter().enumerate() {
        let start = LEFT + (i as f64 + 0.5) * band - group_width / 2.0;
        for (s, bar) in group.bars.iter().enumerate() {
            let x = start + s as f64 * (width + 2.0);
            let y = axis.y(bar.value);
            let _ = writeln!(
                svg,
                r#"<rect class="bar s{}" x="{}" y="{}" width="{}" height="{}"><title>{}</title></rect>"#,
                s + 1,
                num(x),
                num(y),
                num(width),
                num(base - y),
                escape(&bar.title)
            );
        }
    }
    if series.len() > 1 {
        legend(&mut svg, series);
    }
    svg.push_str("</svg>\n");
    svg
}

fn open(aria_label: &str) -> String {
    format!(
        "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"{}\">\n",
        num(WIDTH),
        num(HEIGHT),
        escape(aria_label)
    )
}

/// The width of one x slot.
fn band(count: usize) -> f64 {
    (WIDTH - LEFT - RIGHT) / count.max(1) as f64
}

/// Gridlines and their labels, then the baseline.
fn grid(svg: &mut String, axis: &Axis) {
    let ticks = axis.ticks.max(1);
    for t in 0..=ticks {
        let value = axis.top() * f64::from(t) / f64::from(ticks);
        let y = num(axis.y(value));
        let class = if t == 0 { "axis" } else { "grid" };
        let _ = writeln!(
            svg,
            r#"<line class="{class}" x1="{}" y1="{y}" x2="{}" y2="{y}"/>"#,
            num(LEFT),
            num(WIDTH - RIGHT),
        );
        let _ = writeln!(
            svg,
            r#"<text class="tick" x="{}" y="{}" text-anchor="end">{}</text>"#,
            num(LEFT - 8.0),
            num(axis.y(value) + 4.0),
            escape(&(axis.label)(value))
        );
    }
}

/// Labels under the baseline, thinned to at most [`MAX_X_LABELS`].
fn x_labels<'a>(svg: &mut String, labels: impl Iterator<Item = &'a str>, band: f64, count: usize) {
    let every = count.div_ceil(MAX_X_LABELS).max(1);
    for (i, label) in labels.enumerate().filter(|(i, _)| i % every == 0) {
        let _ = writeln!(
            svg,
            r#"<text class="label" x="{}" y="{}" text-anchor="middle">{}</text>"#,
            num(LEFT + (i as f64 + 0.5) * band),
            num(HEIGHT - BOTTOM + 20.0),
            escape(label)
        );
    }
}

/// A swatch and a name per series, on one line above the plot.
fn legend(svg: &mut String, series: &[&str]) {
    let mut x = LEFT;
    for (s, name) in series.iter().enumerate() {
        let _ = writeln!(
            svg,
            r#"<rect class="swatch s{}" x="{}" y="8" width="12" height="12"/><text class="legend" x="{}" y="18">{}</text>"#,
            s + 1,
            num(x),
            num(x + 18.0),
            escape(name)
        );
        x += 18.0 + 8.0 * name.chars().count() as f64 + 24.0;
    }
}

/// One decimal, never `NaN`, `inf` or `-0.0`.
fn num(value: f64) -> String {
    let value = if value.is_finite() { value } else { 0.0 };
    format!("{:.1}", value + 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn points(values: &[f64]) -> Vec<Point> {
        values
            .iter()
            .enumerate()
            .map(|(i, &value)| Point {
                label: format!("d{i}"),
                value,
                title: format!("day {i}"),
            })
            .collect()
    }

    /// The value of `attr` on each element that starts with `tag` (`<circle class="point"`).
    fn attrs(svg: &str, tag: &str, attr: &str) -> Vec<f64> {
        svg.match_indices(tag)
            .map(|(at, _)| {
                let rest = &svg[at..];
                let end = rest.find('>').expect("element ends");
                let key = format!(" {attr}=\"");
                let from = rest[..end].find(&key).expect("attribute present") + key.len();
                let len = rest[from..].find('"').expect("attribute ends");
                rest[from..from + len].parse().expect("a number")
            })
            .collect()
    }

    #[test]
    fn a_line_chart_has_one_point_per_value() {
        let svg = line_chart("rates", &Axis::percent(), &points(&[100.0, 93.6, 95.7]));
        assert_eq!(svg.matches(r#"<circle class="point""#).count(), 3);
        assert_eq!(svg.matches("<polyline").count(), 1);
        assert_eq!(svg.matches("<title>day ").count(), 3);
        assert!(svg.starts_with("<svg class=\"chart\""), "{svg}");
        assert!(svg.contains(r#"role="img" aria-label="rates""#), "{svg}");
        // x goes left to right in the data's order.
        let xs = attrs(&svg, r#"<circle class="point""#, "cx");
        assert!(xs.windows(2).all(|w| w[0] < w[1]), "{xs:?}");
    }

    #[test]
    fn zero_percent_is_on_the_baseline_and_a_hundred_at_the_top() {
        let svg = line_chart("r", &Axis::percent(), &points(&[0.0, 100.0, 50.0]));
        let ys = attrs(&svg, r#"<circle class="point""#, "cy");
        assert_eq!(
            ys,
            vec![HEIGHT - BOTTOM, TOP, (HEIGHT - BOTTOM + TOP) / 2.0]
        );
        // The baseline and the top gridline are where the points say.
        assert!(
            svg.contains(r#"<line class="axis" x1="64.0" y1="220.0""#),
            "{svg}"
        );
        assert!(
            svg.contains(r#"<line class="grid" x1="64.0" y1="32.0""#),
            "{svg}"
        );
        assert!(svg.contains(">100%</text>") && svg.contains(">0%</text>"));
    }

    #[test]
    fn one_point_empty_constant_and_nonsense_series_draw_finite_numbers() {
        for values in [
            vec![],
            vec![42.0],
            vec![0.0, 0.0, 0.0],
            vec![f64::NAN, f64::INFINITY, -5.0, 250.0],
        ] {
            let svg = line_chart("r", &Axis::percent(), &points(&values));
            assert_eq!(svg.matches("class=\"point\"").count(), values.len());
            for bad in ["NaN", "inf", "-0.0"] {
                assert!(!svg.contains(bad), "{bad} in {svg}");
            }
            // Out-of-range values stay in the plot.
            for y in attrs(&svg, r#"<circle class="point""#, "cy") {
                assert!((TOP..=HEIGHT - BOTTOM).contains(&y), "{y}");
            }
        }
        // An axis of zeros still draws (its top falls back to 1).
        let zero = Axis::minutes(0.0, |v| format!("{v}"));
        let svg = bar_chart(
            "t",
            &zero,
            &["a"],
            &[Group {
                label: "auto".into(),
                bars: vec![Bar {
                    value: 0.0,
                    title: "0".into(),
                }],
            }],
        );
        assert_eq!(attrs(&svg, "<rect class=\"bar", "height"), vec![0.0]);
        assert!(!svg.contains("NaN"), "{svg}");
    }

    #[test]
    fn bars_count_per_series_and_heights_follow_the_values() {
        let groups: Vec<Group> = [("auto", 0.0, 35.0), ("escalate", 95.0, 1320.0)]
            .into_iter()
            .map(|(label, median, p90)| Group {
                label: label.into(),
                bars: vec![
                    Bar {
                        value: median,
                        title: format!("{label} median"),
                    },
                    Bar {
                        value: p90,
                        title: format!("{label} p90"),
                    },
                ],
            })
            .collect();
        let axis = Axis::minutes(1320.0, |m| format!("{m:.0} min"));
        assert_eq!(axis.max, 1440.0);
        let svg = bar_chart("time", &axis, &["median", "p90"], &groups);
        assert_eq!(svg.matches(r#"<rect class="bar s1""#).count(), 2);
        assert_eq!(svg.matches(r#"<rect class="bar s2""#).count(), 2);
        assert_eq!(svg.matches(r#"<rect class="swatch"#).count(), 2);
        let plot = HEIGHT - TOP - BOTTOM;
        let heights = attrs(&svg, "<rect class=\"bar", "height");
        let expected: Vec<f64> = [0.0, 35.0, 95.0, 1320.0]
            .iter()
            .map(|v| (v / 1440.0 * plot * 10.0).round() / 10.0)
            .collect();
        assert_eq!(heights, expected);
        // Each bar stands on the baseline.
        let ys = attrs(&svg, "<rect class=\"bar", "y");
        for (y, h) in ys.iter().zip(&heights) {
            assert!((y + h - (HEIGHT - BOTTOM)).abs() < 0.11, "{y} + {h}");
        }
        // One series: no legend.
        let one = bar_chart("x", &Axis::percent(), &["rate"], &groups[..1]);
        assert!(!one.contains("swatch"), "{one}");
    }

    #[test]
    fn labels_titles_and_the_aria_label_are_escaped() {
        let hostile = r#"<script>alert("x")</script> & 'y'"#;
        let svg = line_chart(
            hostile,
            &Axis::percent(),
            &[Point {
                label: hostile.into(),
                value: 50.0,
                title: hostile.into(),
            }],
        );
        assert!(!svg.contains("<script"), "{svg}");
        assert!(!svg.contains(r#""x""#), "{svg}");
        let escaped = "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;";
        assert_eq!(svg.matches(escaped).count(), 3, "{svg}");
        let bars = bar_chart(
            "b",
            &Axis::percent(),
            &[hostile, "p90"],
            &[Group {
                label: hostile.into(),
                bars: vec![Bar {
                    value: 1.0,
                    title: hostile.into(),
                }],
            }],
        );
        assert!(!bars.contains("<script"), "{bars}");
        assert_eq!(bars.matches(escaped).count(), 3, "{bars}");
    }

    #[test]
    fn durations_get_round_gridlines() {
        assert_eq!(nice_minutes(0.0), 1.0);
        assert_eq!(nice_minutes(f64::NAN), 1.0);
        assert_eq!(nice_minutes(35.0), 10.0);
        assert_eq!(nice_minutes(1320.0), 360.0);
        assert_eq!(nice_minutes(2880.0), 720.0);
        assert_eq!(nice_minutes(100_000.0), 18.0 * 1440.0);
    }

    #[test]
    fn many_points_get_at_most_ten_x_labels() {
        let svg = line_chart("r", &Axis::percent(), &points(&[50.0; 31]));
        assert_eq!(svg.matches(r#"class="point""#).count(), 31);
        assert_eq!(svg.matches(r#"<text class="label""#).count(), 8);
    }
}
