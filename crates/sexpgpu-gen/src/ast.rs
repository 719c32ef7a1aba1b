//! A generated program as data, and its text. A tensor expression is a
//! `Node`: the text around its tensor operands (`Part::Text`) and the
//! operands themselves (`Part::T`, or `Part::Ts` for a vector of them),
//! with the shape the generator gave it. Keeping the operands as nodes is
//! what lets the minimiser replace any of them by one of its own operands
//! of the same shape, or by a constant, without knowing what an operation
//! means.

/// A static shape.
pub type Shape = Vec<usize>;

/// One tensor expression of a known shape.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub parts: Vec<Part>,
    pub shape: Shape,
    /// A `bool` tensor (a mask), which no float may replace.
    pub mask: bool,
}

/// A piece of a node's text.
#[derive(Clone, Debug, PartialEq)]
pub enum Part {
    /// Host code, written as it is.
    Text(String),
    /// A tensor operand.
    T(Node),
    /// A vector of tensor operands, written `[a b ...]`.
    Ts(Vec<Node>),
}

impl Node {
    /// A node of written parts: strings are text, nodes operands.
    pub fn new(shape: &[usize], parts: Vec<Part>) -> Node {
        Node {
            parts,
            shape: shape.to_vec(),
            mask: false,
        }
    }

    /// A variable (or any host text that names a tensor of `shape`).
    pub fn var(name: &str, shape: &[usize]) -> Node {
        Node::new(shape, vec![Part::Text(name.to_string())])
    }

    /// `(head a b ... rest)`: the operands, then host text after them.
    pub fn call(head: &str, shape: &[usize], operands: Vec<Node>, rest: &str) -> Node {
        let mut parts = vec![text(&format!("({head}"))];
        parts.extend(operands.into_iter().map(Part::T));
        if !rest.is_empty() {
            parts.push(text(rest));
        }
        parts.push(text(")"));
        Node::new(shape, parts)
    }

    /// The node's text.
    pub fn write(&self, out: &mut String) {
        for part in &self.parts {
            match part {
                Part::Text(t) => push_word(out, t),
                Part::T(n) => n.write(out),
                Part::Ts(ns) => {
                    push_word(out, "[");
                    for n in ns {
                        n.write(out);
                    }
                    push_word(out, "]");
                }
            }
        }
    }

    pub fn text(&self) -> String {
        let mut s = String::new();
        self.write(&mut s);
        s
    }

    /// How many nodes this one holds, itself included.
    pub fn size(&self) -> usize {
        1 + self.operands().map(Node::size).sum::<usize>()
    }

    /// The tensor operands, in order.
    pub fn operands(&self) -> impl Iterator<Item = &Node> {
        self.parts.iter().flat_map(|p| match p {
            Part::Text(_) => [].iter(),
            Part::T(n) => std::slice::from_ref(n).iter(),
            Part::Ts(ns) => ns.iter(),
        })
    }

    /// The tensor operands, to change in place.
    pub fn operands_mut(&mut self) -> impl Iterator<Item = &mut Node> {
        self.parts.iter_mut().flat_map(|p| match p {
            Part::Text(_) => [].iter_mut(),
            Part::T(n) => std::slice::from_mut(n).iter_mut(),
            Part::Ts(ns) => ns.iter_mut(),
        })
    }
}

/// Host text as a part.
pub fn text(s: &str) -> Part {
    Part::Text(s.to_string())
}

/// Appends `word` with a space before it, except after an opening bracket
/// or before a closing one.
fn push_word(out: &mut String, word: &str) {
    let opens = out.ends_with(['(', '[', '{']) || out.is_empty() || out.ends_with('\n');
    let closes = word.starts_with([')', ']', '}']);
    if !opens && !closes {
        out.push(' ');
    }
    out.push_str(word);
}

/// How the loss function receives its parameters (`value-and-grad`'s
/// first argument) and names them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Layout {
    /// `{:w0 w0 ...}`, read with `{:keys [w0 ...]}`.
    MapKeys,
    /// `{:w0 w0 ...}`, read with `(:w0 p)`.
    MapGet,
    /// `[w0 ...]`, read with `[w0 ...]` destructuring.
    VectorDestructure,
    /// `[w0 ...]`, read with `(nth p i)`.
    VectorNth,
    /// The one parameter itself.
    Single,
}

/// A generated program: one graph whose inputs are the parameters and the
/// data, whose body calls `value-and-grad` on a loss written as host code
/// (helper functions, `let` bindings, then a scalar expression).
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    /// The parameters (differentiated), then the data, as graph inputs.
    pub params: Vec<(String, Shape)>,
    pub data: Vec<(String, Shape)>,
    pub layout: Layout,
    /// The loss as a closure over the data (`(fn [p] ...)`) instead of a
    /// `defn` taking them as arguments.
    pub closure: bool,
    /// The graph also returns each parameter after a step of gradient
    /// descent (an optimizer's update, fused with the backward pass).
    pub step: bool,
    /// The inputs, so the whole program, are bf16 (else f32).
    pub bf16: bool,
    /// Top-level helper definitions, whole forms.
    pub helpers: Vec<String>,
    /// The loss's `let` bindings in order.
    pub bindings: Vec<(String, Node)>,
    /// The loss, shape `[]`.
    pub loss: Node,
}

impl Program {
    /// The program's `.sx` text; its one graph is named `g`.
    pub fn text(&self) -> String {
        let mut out = String::from("(require nn)\n\n");
        for h in &self.helpers {
            out.push_str(h);
            out.push_str("\n\n");
        }
        let body = self.loss_body();
        let data: Vec<&str> = self.data.iter().map(|(n, _)| n.as_str()).collect();
        let params = self.params_value();
        let call = if self.closure {
            format!("(let [f (fn [p]\n{body})]\n    (value-and-grad f {params}))")
        } else {
            let args = data.join(" ");
            out.push_str(&format!("(defn loss [p {args}]\n{body})\n\n"));
            format!("(value-and-grad loss {params} {args})")
        };
        out.push_str(&self.graph_head());
        if self.step {
            out.push_str(&format!(
                "  (let [[value grads] {call}]\n    [value grads [{}]]))\n",
                self.updates()
            ));
        } else {
            out.push_str(&format!("  {call})\n"));
        }
        out
    }

    /// Each parameter after a gradient step, read from `grads` as its
    /// layout holds them.
    fn updates(&self) -> String {
        let steps: Vec<String> = self
            .params
            .iter()
            .enumerate()
            .map(|(i, (n, _))| {
                let grad = match self.layout {
                    Layout::MapKeys => format!("(:{n} grads)"),
                    Layout::MapGet => format!("(get grads :{n})"),
                    Layout::VectorDestructure => format!("(grads {i})"),
                    Layout::VectorNth => format!("(nth grads {i})"),
                    Layout::Single => "grads".to_string(),
                };
                format!("(- {n} (* 0.1 {grad}))")
            })
            .collect();
        steps.join(" ")
    }

    fn graph_head(&self) -> String {
        let inputs: Vec<String> = self
            .params
            .iter()
            .chain(&self.data)
            .map(|(n, s)| {
                format!(
                    "({n} {}{})",
                    shape_text(s),
                    if self.bf16 { " :bf16" } else { "" }
                )
            })
            .collect();
        format!("(defgraph g [{}]\n", inputs.join(" "))
    }

    /// The parameters as `value-and-grad` takes them.
    fn params_value(&self) -> String {
        let names: Vec<&str> = self.params.iter().map(|(n, _)| n.as_str()).collect();
        match self.layout {
            Layout::MapKeys | Layout::MapGet => {
                let entries: Vec<String> = names.iter().map(|n| format!(":{n} {n}")).collect();
                format!("{{{}}}", entries.join(" "))
            }
            Layout::VectorDestructure | Layout::VectorNth => format!("[{}]", names.join(" ")),
            Layout::Single => names[0].to_string(),
        }
    }

    /// The loss's body: bindings of the parameters, the generated
    /// bindings, the loss.
    fn loss_body(&self) -> String {
        let names: Vec<&str> = self.params.iter().map(|(n, _)| n.as_str()).collect();
        let mut lets: Vec<String> = match self.layout {
            Layout::MapKeys => vec![format!("{{:keys [{}]}} p", names.join(" "))],
            Layout::MapGet => names.iter().map(|n| format!("{n} (:{n} p)")).collect(),
            Layout::VectorDestructure => vec![format!("[{}] p", names.join(" "))],
            Layout::VectorNth => names
                .iter()
                .enumerate()
                .map(|(i, n)| format!("{n} (nth p {i})"))
                .collect(),
            Layout::Single => vec![format!("{} p", names[0])],
        };
        lets.extend(
            self.bindings
                .iter()
                .map(|(n, e)| format!("{n} {}", e.text())),
        );
        format!(
            "    (let [{}]\n      {})",
            lets.join("\n          "),
            self.loss.text()
        )
    }

    /// How many nodes the program holds (the minimiser's measure).
    pub fn size(&self) -> usize {
        self.loss.size()
            + self.bindings.iter().map(|(_, n)| n.size()).sum::<usize>()
            + self.helpers.len()
    }
}

/// `[2 3]`.
pub fn shape_text(shape: &[usize]) -> String {
    let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
    format!("[{}]", dims.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodes_write_their_operands_in_place() {
        let x = Node::var("x", &[2]);
        let y = Node::call("tanh", &[2], vec![x.clone()], "");
        let z = Node::call("sum", &[], vec![y], ":axes [0]");
        assert_eq!(z.text(), "(sum (tanh x) :axes [0])");
        assert_eq!(z.size(), 3);
        let v = Node::new(
            &[2],
            vec![text("(h"), Part::Ts(vec![x.clone(), x]), text(")")],
        );
        assert_eq!(v.text(), "(h [x x])");
    }
}
