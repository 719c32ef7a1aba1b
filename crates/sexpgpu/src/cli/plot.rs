//! `sexpgpu plot metrics.jsonl -o curves.svg`: the curves of a `--metrics`
//! file (`docs/sexpgpu/metrics.md`), one panel per metric, with `plotters`'
//! SVG backend. Training values are one line per panel; an evaluation's
//! metric joins the panel of the training metric of its name, or of its name
//! without a `test-`, `eval-`, `val-` or `valid-` prefix, as a second line,
//! else gets a panel of its own. The file is written whole (a temporary
//! file, then a rename).

use plotters::coord::ranged1d::ValueFormatter;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use std::path::Path;

/// One metric's points (step, value), from training or evaluation.
#[derive(Debug, Default, PartialEq)]
pub struct Panel {
    pub name: String,
    pub train: Vec<(f64, f64)>,
    pub eval: Vec<(f64, f64)>,
    /// The evaluation metric's own name, when it differs from the panel's.
    pub eval_name: Option<String>,
}

/// Prefixes an evaluation metric may carry before a training metric's name.
const EVAL_PREFIXES: &[&str] = &["test-", "eval-", "val-", "valid-"];

/// The panels of a metrics file, in order of first appearance (training
/// metrics first); or why the text is not one.
pub fn panels(text: &str) -> Result<Vec<Panel>, String> {
    let mut train: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    let mut eval: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let value: serde_json::Value = serde_json::from_str(line)
            .map_err(|e| format!("line {}: not a JSON object ({e})", i + 1))?;
        let Some(object) = value.as_object() else {
            return Err(format!("line {}: not a JSON object", i + 1));
        };
        let Some(step) = object.get("step").and_then(|s| s.as_f64()) else {
            return Err(format!("line {}: no `step`", i + 1));
        };
        let is_eval = object.get("eval").and_then(|e| e.as_bool()) == Some(true);
        let series = if is_eval { &mut eval } else { &mut train };
        for (key, v) in object {
            let Some(v) = v.as_f64() else { continue };
            if matches!(key.as_str(), "step" | "wall" | "eval") {
                continue;
            }
            match series.iter_mut().find(|(k, _)| k == key) {
                Some((_, points)) => points.push((step, v)),
                None => series.push((key.clone(), vec![(step, v)])),
            }
        }
    }
    if train.is_empty() && eval.is_empty() {
        return Err("no metrics in the file (write one with `sexpgpu run --metrics FILE`)".into());
    }
    let mut out: Vec<Panel> = train
        .into_iter()
        .map(|(name, train)| Panel {
            name,
            train,
            ..Panel::default()
        })
        .collect();
    for (name, points) in eval {
        let base = EVAL_PREFIXES
            .iter()
            .find_map(|p| name.strip_prefix(p))
            .unwrap_or(&name);
        match out
            .iter_mut()
            .find(|p| p.eval.is_empty() && (p.name == name || p.name == base))
        {
            Some(panel) => {
                panel.eval = points;
                panel.eval_name = (panel.name != name).then(|| name.clone());
            }
            None => out.push(Panel {
                name,
                eval: points,
                ..Panel::default()
            }),
        }
    }
    Ok(out)
}

const PANEL_WIDTH: u32 = 480;
const PANEL_HEIGHT: u32 = 300;

/// The panels drawn as one SVG document, two panels a row; values on a
/// base-10 log scale when `log` is set.
pub fn svg(panels: &[Panel], log: bool) -> Result<String, String> {
    let columns = panels.len().clamp(1, 2);
    let rows = panels.len().div_ceil(columns);
    let size = (
        PANEL_WIDTH * columns as u32,
        PANEL_HEIGHT * rows.max(1) as u32,
    );
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, size).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let areas = root.split_evenly((rows.max(1), columns));
        for (area, panel) in areas.iter().zip(panels) {
            draw_panel(area, panel, log).map_err(|e| format!("metric `{}`: {e}", panel.name))?;
        }
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(out)
}

type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

type DrawError = DrawingAreaErrorKind<std::io::Error>;

/// The points of a line that can be drawn: finite values, and on a log
/// scale positive ones.
fn drawable(points: &[(f64, f64)], log: bool) -> Vec<(f64, f64)> {
    points
        .iter()
        .copied()
        .filter(|&(_, y)| y.is_finite() && (!log || y > 0.0))
        .collect()
}

/// The axes' ranges: the steps (at least one wide) and the values, padded
/// by 5%; a constant series gets a band around its value (5% of it, or
/// 1 around zero) so that its ticks differ.
fn ranges(panel: &Panel, log: bool) -> ((f64, f64), (f64, f64)) {
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    let points = drawable(&panel.train, log);
    for (x, y) in points.into_iter().chain(drawable(&panel.eval, log)) {
        (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(y), y1.max(y));
    }
    if x0 > x1 {
        (x0, x1, y0, y1) = (0.0, 1.0, 1.0, 10.0);
    }
    if x1 - x0 < 1.0 {
        x1 = x0 + 1.0;
    }
    if log {
        // A decade either side of a constant, a little room otherwise.
        let (low, high) = if y0 == y1 { (10.0, 10.0) } else { (1.1, 1.1) };
        return ((x0, x1), (y0 / low, y1 * high));
    }
    let magnitude = y0.abs().max(y1.abs());
    if y1 - y0 <= magnitude * 1e-3 {
        let centre = (y0 + y1) / 2.0;
        let half = if magnitude == 0.0 {
            1.0
        } else {
            magnitude * 0.05
        };
        return ((x0, x1), (centre - half, centre + half));
    }
    let pad = (y1 - y0) * 0.05;
    ((x0, x1), (y0 - pad, y1 + pad))
}

/// A tick's label: a whole number as an integer (steps are `200`, not
/// `200.0`), others with at most six significant digits.
fn tick(v: f64) -> String {
    if v == v.trunc() && v.abs() < 1e15 {
        return format!("{}", v as i64);
    }
    let magnitude = v.abs();
    if !(1e-4..1e6).contains(&magnitude) {
        let text = format!("{v:.3e}");
        let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
        let mantissa = mantissa.trim_end_matches('0').trim_end_matches('.');
        return format!("{mantissa}e{exponent}");
    }
    let decimals = (5 - magnitude.log10().floor() as i32).max(0) as usize;
    let text = format!("{v:.decimals$}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// One panel: its metric's training line (blue) and evaluation line (red,
/// with points), steps along x.
fn draw_panel(area: &Area, panel: &Panel, log: bool) -> Result<(), String> {
    let ((x0, x1), (y0, y1)) = ranges(panel, log);
    let mut builder = ChartBuilder::on(area);
    builder
        .caption(&panel.name, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(30)
        .y_label_area_size(60);
    let text = |e: DrawError| e.to_string();
    if log {
        let chart = builder
            .build_cartesian_2d(x0..x1, (y0..y1).log_scale())
            .map_err(text)?;
        draw_lines(chart, panel, log).map_err(text)
    } else {
        let chart = builder.build_cartesian_2d(x0..x1, y0..y1).map_err(text)?;
        draw_lines(chart, panel, log).map_err(text)
    }
}

/// The mesh, the lines and the legend of a panel, on either y scale.
fn draw_lines<'a, Y>(
    mut chart: ChartContext<'a, SVGBackend<'a>, Cartesian2d<RangedCoordf64, Y>>,
    panel: &Panel,
    log: bool,
) -> Result<(), DrawError>
where
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    chart
        .configure_mesh()
        .x_desc("step")
        .x_labels(6)
        .y_labels(6)
        .x_label_formatter(&|x| tick(*x))
        .y_label_formatter(&|y| tick(*y))
        .draw()?;
    if !panel.train.is_empty() {
        chart
            .draw_series(LineSeries::new(
                drawable(&panel.train, log),
                BLUE.stroke_width(2),
            ))?
            .label("train")
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLUE.stroke_width(2)));
    }
    if !panel.eval.is_empty() {
        let label = panel
            .eval_name
            .clone()
            .unwrap_or_else(|| "eval".to_string());
        chart
            .draw_series(
                LineSeries::new(drawable(&panel.eval, log), RED.stroke_width(2)).point_size(3),
            )?
            .label(label)
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], RED.stroke_width(2)));
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
}

/// `sexpgpu plot FILE -o OUT`: the exit code (2 when the file cannot be
/// read, is not a metrics file, or the output cannot be written).
pub fn run(input: &Path, output: &Path, log: bool) -> i32 {
    match plot(input, output, log) {
        Ok(()) => 0,
        Err(why) => {
            eprintln!("error: {why}");
            2
        }
    }
}

fn plot(input: &Path, output: &Path, log: bool) -> Result<(), String> {
    let extension = output.extension().and_then(|e| e.to_str()).unwrap_or("");
    if !extension.eq_ignore_ascii_case("svg") {
        return Err(format!(
            "cannot draw {}: the output must be an .svg file",
            output.display()
        ));
    }
    let text = std::fs::read_to_string(input)
        .map_err(|e| format!("cannot read {}: {}", input.display(), super::io_reason(&e)))?;
    let panels = panels(&text).map_err(|why| format!("{}: {why}", input.display()))?;
    let svg = svg(&panels, log)?;
    let name = output
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temporary = output.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    std::fs::write(&temporary, svg).map_err(|e| {
        format!(
            "cannot write {}: {}",
            output.display(),
            super::io_reason(&e)
        )
    })?;
    std::fs::rename(&temporary, output).map_err(|e| {
        let _ = std::fs::remove_file(&temporary);
        format!(
            "cannot write {}: {}",
            output.display(),
            super::io_reason(&e)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const METRICS: &str = r#"{"accuracy":0.5,"loss":1.5,"step":10,"wall":0.1}
{"accuracy":0.75,"loss":0.9,"step":20,"wall":0.2}
{"eval":true,"step":20,"test-accuracy":0.7,"test-loss":1.0,"wall":0.21}
{"eval":true,"step":20,"perplexity":3.0,"wall":0.22}
"#;

    #[test]
    fn eval_metrics_join_their_training_panel_by_name() {
        let panels = panels(METRICS).unwrap();
        let names: Vec<(&str, usize, usize, Option<&str>)> = panels
            .iter()
            .map(|p| {
                (
                    p.name.as_str(),
                    p.train.len(),
                    p.eval.len(),
                    p.eval_name.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            names,
            [
                ("accuracy", 2, 1, Some("test-accuracy")),
                ("loss", 2, 1, Some("test-loss")),
                ("perplexity", 0, 1, None),
            ]
        );
    }

    #[test]
    fn not_a_metrics_file_says_which_line() {
        assert_eq!(
            panels("{\"step\":1,\"loss\":2}\nhello\n").unwrap_err(),
            "line 2: not a JSON object (expected value at line 1 column 1)"
        );
        assert!(panels("\n").unwrap_err().starts_with("no metrics"));
        assert_eq!(panels("{\"loss\":2}").unwrap_err(), "line 1: no `step`");
    }

    #[test]
    fn every_panel_is_drawn_with_its_title_and_lines() {
        let svg = svg(&panels(METRICS).unwrap(), false).unwrap();
        assert!(svg.starts_with("<svg"), "{svg}");
        for title in ["accuracy", "loss", "perplexity", "test-loss", "train"] {
            assert!(svg.contains(&format!("\n{title}\n</text>")), "{title}");
        }
        // Training lines in blue, evaluation lines in red.
        assert!(svg.contains("#0000FF") && svg.contains("#FF0000"));
    }

    /// The labels of an SVG's text elements.
    fn labels(svg: &str) -> Vec<&str> {
        svg.split("</text>")
            .filter_map(|t| t.rsplit_once('>').map(|(_, label)| label.trim()))
            .collect()
    }

    #[test]
    fn steps_are_whole_and_a_constant_series_has_distinct_ticks() {
        let constant = "{\"loss\":0.5,\"step\":100}\n{\"loss\":0.5,\"step\":200}\n";
        let svg = svg(&panels(constant).unwrap(), false).unwrap();
        let labels = labels(&svg);
        assert!(labels.contains(&"200"), "{labels:?}");
        assert!(!labels.iter().any(|l| l.ends_with(".0")), "{labels:?}");
        let values: Vec<&str> = labels
            .iter()
            .copied()
            .filter(|l| l.starts_with("0."))
            .collect();
        let mut distinct = values.clone();
        distinct.dedup();
        assert!(values.len() >= 3 && distinct == values, "{values:?}");
    }

    #[test]
    fn a_log_scale_spans_the_decades() {
        let falling =
            "{\"loss\":1000,\"step\":1}\n{\"loss\":0.001,\"step\":2}\n{\"loss\":0,\"step\":3}\n";
        let linear = labels(&svg(&panels(falling).unwrap(), false).unwrap()).join(" ");
        let log = labels(&svg(&panels(falling).unwrap(), true).unwrap()).join(" ");
        assert!(log.contains(" 0.01 ") && log.contains(" 100 "), "{log}");
        assert!(!linear.contains(" 0.01 "), "{linear}");
    }

    #[test]
    fn ticks_read_as_written() {
        let shown: Vec<String> = [200.0, 0.5, 0.30000000000000004, 1e-7, 2.5e7, -0.125]
            .into_iter()
            .map(tick)
            .collect();
        assert_eq!(shown, ["200", "0.5", "0.3", "1e-7", "25000000", "-0.125"]);
    }
}
