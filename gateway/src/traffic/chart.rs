//! The requests and errors of a window per step as an SVG chart, hand-written: a bar per step
//! (the requests, grey) with its errors over it (red), the axis with the highest step's count,
//! the first, middle and last steps' times, and a title naming the window, partner and
//! operation. Every label is escaped ([`escape`]): a partner id like `<script>` is text.
//! Pure: the same [`Traffic`] gives the same SVG.

use std::fmt::Write as _;

use super::query::{Traffic, Window};

/// The chart's size, in SVG units (it scales to its container: `viewBox`).
const WIDTH: f64 = 720.0;
const HEIGHT: f64 = 240.0;
const LEFT: f64 = 56.0;
const RIGHT: f64 = 12.0;
const TOP: f64 = 28.0;
const BOTTOM: f64 = 36.0;

/// `text` with `&`, `<`, `>`, `"` and `'` escaped, and control characters (which XML 1.0
/// does not allow) replaced by U+FFFD: safe in an SVG text node and in an attribute.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' | '\r' => out.push(' '),
            c if c.is_control() => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// The title of a window's chart (not escaped).
fn title(t: &Traffic) -> String {
    let window = match t.window {
        Window::Hour => "per minute, last hour",
        Window::Week => "per hour, last 7 days",
        Window::Days => "per day, last 60 days",
    };
    let partner = match t.partner.as_deref() {
        None => "every partner".to_string(),
        Some("") => "unknown partner".to_string(),
        Some(p) => format!("partner {}", p.chars().take(80).collect::<String>()),
    };
    let operation = t.operation.as_deref().map_or_else(
        || "every operation".to_string(),
        |o| format!("operation {}", o.chars().take(80).collect::<String>()),
    );
    format!("Requests and errors {window}: {partner}, {operation}")
}

/// The SVG chart of `t`'s series (a standalone `<svg>` element, to be inlined in a page).
pub fn svg(t: &Traffic) -> String {
    let label = escape(&title(t));
    let steps = t.series.len().max(1);
    let top = t.series.iter().map(|p| p.figures.requests).max().unwrap_or(0).max(1);
    let plot_w = WIDTH - LEFT - RIGHT;
    let plot_h = HEIGHT - TOP - BOTTOM;
    let slot = plot_w / steps as f64;
    let bar = (slot * 0.8).max(0.5);
    let y = |n: i64| TOP + plot_h - plot_h * (n as f64 / top as f64);
    let mut out = String::new();
    let _ = write!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" role="img" aria-label="{label}" class="traffic-chart"><title>{label}</title>"#
    );
    let _ = write!(out, r#"<text x="{LEFT}" y="16" font-size="13" font-family="sans-serif">{label}</text>"#);
    // The axes and the highest count.
    let base = TOP + plot_h;
    let _ = write!(
        out,
        r##"<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{base}" stroke="#888"/><line x1="{LEFT}" y1="{base}" x2="{x2}" y2="{base}" stroke="#888"/>"##,
        x2 = WIDTH - RIGHT
    );
    let _ = write!(
        out,
        r#"<text x="{x}" y="{ty}" font-size="11" font-family="sans-serif" text-anchor="end">{top}</text><text x="{x}" y="{base}" font-size="11" font-family="sans-serif" text-anchor="end">0</text>"#,
        x = LEFT - 6.0,
        ty = TOP + 4.0
    );
    // A bar per step: the requests, and the errors over them.
    for (i, p) in t.series.iter().enumerate() {
        let x = LEFT + slot * i as f64 + (slot - bar) / 2.0;
        let at = escape(&p.at.format("%Y-%m-%d %H:%M UTC").to_string());
        let f = &p.figures;
        if f.requests > 0 {
            let _ = write!(
                out,
                r##"<rect class="requests" x="{x:.2}" y="{ry:.2}" width="{bar:.2}" height="{rh:.2}" fill="#9aa5b1"><title>{at}: {n} requests, {e} errors</title></rect>"##,
                ry = y(f.requests),
                rh = base - y(f.requests),
                n = f.requests,
                e = f.errors
            );
        }
        if f.errors > 0 {
            let _ = write!(
                out,
                r##"<rect class="errors" x="{x:.2}" y="{ey:.2}" width="{bar:.2}" height="{eh:.2}" fill="#d64545"><title>{at}: {e} errors</title></rect>"##,
                ey = y(f.errors),
                eh = base - y(f.errors),
                e = f.errors
            );
        }
    }
    // The first, middle and last steps' times.
    let format = match t.window {
        Window::Hour => "%H:%M",
        Window::Week => "%m-%d %H:%M",
        Window::Days => "%Y-%m-%d",
    };
    let n = t.series.len();
    let marks = if n == 0 { vec![] } else { vec![0, n / 2, n - 1] };
    let mut shown = Vec::new();
    for i in marks {
        if shown.contains(&i) {
            continue;
        }
        shown.push(i);
        let x = LEFT + slot * i as f64 + slot / 2.0;
        let anchor = if i == 0 {
            "start"
        } else if i == n - 1 {
            "end"
        } else {
            "middle"
        };
        let _ = write!(
            out,
            r#"<text x="{x:.2}" y="{ty}" font-size="11" font-family="sans-serif" text-anchor="{anchor}">{}</text>"#,
            escape(&t.series[i].at.format(format).to_string()),
            ty = HEIGHT - 12.0
        );
    }
    out.push_str("</svg>");
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::traffic::Counts;
    use crate::traffic::query::{Figures, Point};
    use chrono::DateTime;

    fn traffic(partner: Option<&str>, operation: Option<&str>, requests: &[(i64, i64)]) -> Traffic {
        let at = |i: usize| DateTime::from_timestamp(1_900_000_000 + 60 * i as i64, 0).unwrap();
        let figures = |(n, errors): (i64, i64)| {
            let mut c = Counts { requests: n, success: n - errors, ota_errors: errors, ..Counts::default() };
            c.latency[3] = n;
            Figures::from(&c)
        };
        Traffic {
            window: Window::Hour,
            step_seconds: 60,
            from: at(0),
            to: at(requests.len()),
            partner: partner.map(str::to_string),
            operation: operation.map(str::to_string),
            total: figures((0, 0)),
            series: requests.iter().enumerate().map(|(i, r)| Point { at: at(i), figures: figures(*r) }).collect(),
            lines: vec![],
            error_codes: vec![],
        }
    }

    #[test]
    fn a_chart_is_well_formed_with_a_bar_per_step() {
        let t = traffic(Some("DEMO"), None, &[(10, 0), (0, 0), (40, 10), (5, 5)]);
        let svg = svg(&t);
        let doc = roxmltree::Document::parse(&svg).unwrap();
        let root = doc.root_element();
        assert_eq!(root.tag_name().name(), "svg");
        let rects = |class: &str| doc.descendants().filter(|n| n.attribute("class") == Some(class)).count();
        assert_eq!((rects("requests"), rects("errors")), (3, 2), "{svg}");
        // The highest bar fills the plot; the axis says its count.
        let tallest = doc.descendants().filter(|n| n.attribute("class") == Some("requests"));
        let heights: Vec<&str> = tallest.filter_map(|n| n.attribute("height")).collect();
        assert_eq!(heights, ["44.00", "176.00", "22.00"], "{svg}");
        assert!(doc.descendants().any(|n| n.text() == Some("40")), "{svg}");
        assert!(svg.contains("partner DEMO, every operation"), "{svg}");
    }

    #[test]
    fn an_empty_window_draws_no_bars_and_no_nan() {
        let svg = svg(&traffic(None, None, &[(0, 0); 60]));
        roxmltree::Document::parse(&svg).unwrap();
        assert!(!svg.contains("NaN") && !svg.contains("inf") && !svg.contains("<rect"), "{svg}");
        roxmltree::Document::parse(&super::svg(&traffic(None, None, &[]))).unwrap();
    }

    #[test]
    fn hostile_labels_are_text() {
        let hostile = "<script>alert(1)</script>\"'><img onerror=x>&amp;\u{0}\u{1b}\n";
        let svg = svg(&traffic(Some(hostile), Some(hostile), &[(3, 1)]));
        let doc = roxmltree::Document::parse(&svg).unwrap();
        assert!(!doc.descendants().any(|n| matches!(n.tag_name().name(), "script" | "img")), "{svg}");
        let title = doc.descendants().find(|n| n.has_tag_name("title")).unwrap().text().unwrap();
        assert!(title.contains("partner <script>alert(1)</script>\"'><img onerror=x>&amp;"), "{title}");
        assert_eq!(doc.root_element().attribute("aria-label"), Some(title));
        assert!(!svg.contains("<script") && !svg.contains('\u{0}'), "{svg}");
    }
}
