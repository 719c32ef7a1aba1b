//! `sexpgpu plot metrics.jsonl -o curves.svg`: the curves of a `--metrics`
//! file (`docs/sexpgpu/metrics.md`), one panel per metric, with `plotters`'
//! SVG backend. Training values are one line per panel; an evaluation's
//! metric joins the panel of the training metric of its name, or of its name
//! without a `test-`, `eval-`, `val-` or `valid-` prefix, as a second line,
//! else gets a panel of its own. The file is written whole (a temporary
//! file, then a rename).

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

/// The panels drawn as one SVG document, two panels a row.
pub fn svg(panels: &[Panel]) -> Result<String, String> {
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
            draw_panel(area, panel).map_err(|e| format!("metric `{}`: {e}", panel.name))?;
        }
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(out)
}

type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

/// One panel: its metric's training line (blue) and evaluation line (red,
/// with points), steps along x.
fn draw_panel(area: &Area, panel: &Panel) -> Result<(), String> {
    let text = |e: DrawingAreaErrorKind<std::io::Error>| e.to_string();
    let all = panel
        .train
        .iter()
        .chain(&panel.eval)
        .filter(|(_, y)| y.is_finite());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(x, y) in all {
        (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(y), y1.max(y));
    }
    if x0 > x1 {
        (x0, x1, y0, y1) = (0.0, 1.0, 0.0, 1.0);
    }
    if x1 - x0 < 1.0 {
        x1 = x0 + 1.0;
    }
    let pad = ((y1 - y0) * 0.05).max(1e-9);
    let (y0, y1) = (y0 - pad, y1 + pad);
    let mut chart = ChartBuilder::on(area)
        .caption(&panel.name, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(30)
        .y_label_area_size(60)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(text)?;
    chart
        .configure_mesh()
        .x_desc("step")
        .x_labels(6)
        .y_labels(6)
        .draw()
        .map_err(text)?;
    let finite = |points: &[(f64, f64)]| -> Vec<(f64, f64)> {
        points
            .iter()
            .copied()
            .filter(|(_, y)| y.is_finite())
            .collect()
    };
    if !panel.train.is_empty() {
        chart
            .draw_series(LineSeries::new(finite(&panel.train), BLUE.stroke_width(2)))
            .map_err(text)?
            .label("train")
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLUE.stroke_width(2)));
    }
    if !panel.eval.is_empty() {
        let label = panel
            .eval_name
            .clone()
            .unwrap_or_else(|| "eval".to_string());
        chart
            .draw_series(LineSeries::new(finite(&panel.eval), RED.stroke_width(2)).point_size(3))
            .map_err(text)?
            .label(label)
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], RED.stroke_width(2)));
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(text)?;
    Ok(())
}

/// `sexpgpu plot FILE -o OUT`: the exit code (2 when the file cannot be
/// read, is not a metrics file, or the output cannot be written).
pub fn run(input: &Path, output: &Path) -> i32 {
    match plot(input, output) {
        Ok(()) => 0,
        Err(why) => {
            eprintln!("error: {why}");
            2
        }
    }
}

fn plot(input: &Path, output: &Path) -> Result<(), String> {
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
    let svg = svg(&panels)?;
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
        let svg = svg(&panels(METRICS).unwrap()).unwrap();
        assert!(svg.starts_with("<svg"), "{svg}");
        for title in ["accuracy", "loss", "perplexity", "test-loss", "train"] {
            assert!(svg.contains(&format!("\n{title}\n</text>")), "{title}");
        }
        // Training lines in blue, evaluation lines in red.
        assert!(svg.contains("#0000FF") && svg.contains("#FF0000"));
    }
}
