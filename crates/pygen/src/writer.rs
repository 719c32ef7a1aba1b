//! Lines of Python with their indentation and `# file.ss:LINE` comments,
//! laid out the way `black` leaves them (4-space indents, two spaces before
//! a comment, 88 columns). Knows nothing of ShapeScript.

/// The line length `black` formats to.
pub const LINE_LENGTH: usize = 88;

#[derive(Default)]
pub struct Code {
    out: String,
}

impl Code {
    /// One line at `indent` levels, with an optional `# where` comment; the
    /// comment goes on a line of its own above when the line would be too long.
    pub fn line(&mut self, indent: usize, text: &str, comment: Option<&str>) {
        let pad = "    ".repeat(indent);
        match comment {
            Some(c) if pad.len() + text.len() + c.len() + 4 <= LINE_LENGTH => {
                self.out.push_str(&format!("{pad}{text}  # {c}\n"));
            }
            Some(c) => {
                self.out.push_str(&format!("{pad}# {c}\n{pad}{text}\n"));
            }
            None => self.out.push_str(&format!("{pad}{text}\n")),
        }
    }

    pub fn blank(&mut self) {
        self.out.push('\n');
    }

    /// A docstring at `indent`, one line when it fits, else with the quotes
    /// on lines of their own.
    pub fn docstring(&mut self, indent: usize, text: &str) {
        let pad = "    ".repeat(indent);
        let text = escape_docstring(text);
        let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
        if lines.len() == 1 && pad.len() + lines[0].len() + 6 <= LINE_LENGTH {
            self.out
                .push_str(&format!("{pad}\"\"\"{}\"\"\"\n", lines[0]));
            return;
        }
        self.out.push_str(&format!(
            "{pad}\"\"\"{}\n",
            lines.first().copied().unwrap_or("")
        ));
        for line in &lines[1..] {
            if line.is_empty() {
                self.out.push('\n');
            } else {
                self.out.push_str(&format!("{pad}{line}\n"));
            }
        }
        self.out.push_str(&format!("{pad}\"\"\"\n"));
    }

    pub fn finish(self) -> String {
        self.out
    }
}

/// Docstring text that cannot end the string early or start an escape.
fn escape_docstring(text: &str) -> String {
    let text = text.replace('\\', "\\\\").replace("\"\"\"", "\\\"\\\"\\\"");
    let text = text.trim();
    // A docstring ending in a quote would run into the closing quotes.
    if text.ends_with('"') {
        format!("{text} ")
    } else if text.is_empty() {
        " ".to_string()
    } else {
        text.to_string()
    }
}

/// A Python string literal, double-quoted as `black` writes it.
pub fn string_literal(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A float literal Python reads back as the same number.
pub fn float_literal(value: f64) -> String {
    if value.is_infinite() {
        return if value > 0.0 {
            "float(\"inf\")"
        } else {
            "-float(\"inf\")"
        }
        .to_string();
    }
    if value.is_nan() {
        return "float(\"nan\")".to_string();
    }
    let text = format!("{value:?}");
    if text.contains(['.', 'e', 'E']) {
        text
    } else {
        format!("{text}.0")
    }
}
