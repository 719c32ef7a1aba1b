//! The generator's own types: what it intends each value to be, written
//! into the program's signatures and checked against PyTorch's results. A
//! tensor has axes (each with a name or none, and a size), a dtype, the
//! domain the program may claim for it (`docs/shapescript/ranges.md`'s
//! rules, which the checker proves) and the interval its values truly lie
//! in (the generator's own bound, which keeps values finite).

use crate::size::Size;

/// A dtype; `F` is the float dtype of the call (a tensor type without one).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dt {
    F,
    F32,
    F64,
    Bf16,
    I64,
    I32,
    Bool,
}

impl Dt {
    pub fn is_float(self) -> bool {
        matches!(self, Dt::F | Dt::F32 | Dt::F64 | Dt::Bf16)
    }

    pub fn is_int(self) -> bool {
        matches!(self, Dt::I64 | Dt::I32)
    }

    /// The name written in a type; `None` for `F`.
    pub fn ss(self) -> Option<&'static str> {
        Some(match self {
            Dt::F => return None,
            Dt::F32 => "f32",
            Dt::F64 => "f64",
            Dt::Bf16 => "bf16",
            Dt::I64 => "i64",
            Dt::I32 => "i32",
            Dt::Bool => "bool",
        })
    }

    /// The harness's name: the `ss` name, `F` for the call's float dtype.
    pub fn key(self) -> &'static str {
        self.ss().unwrap_or("F")
    }
}

/// A domain a type may name.
#[derive(Clone, Debug, PartialEq)]
pub enum Dom {
    Real,
    Pos,
    NonNeg,
    Unit,
    Signed,
    Neg,
    NonPos,
    Index(Size),
    Bool,
}

impl Dom {
    /// The name written in a type; `None` for `Real` (written as nothing).
    pub fn ss(&self) -> Option<String> {
        Some(match self {
            Dom::Real => return None,
            Dom::Pos => "Pos".into(),
            Dom::NonNeg => "NonNeg".into(),
            Dom::Unit => "Unit".into(),
            Dom::Signed => "Signed".into(),
            Dom::Neg => "Neg".into(),
            Dom::NonPos => "NonPos".into(),
            Dom::Bool => "Bool".into(),
            Dom::Index(n) => format!("Index[{}]", n.ss()),
        })
    }

    /// The domain's values as `(lo, hi, lo_open, hi_open)`, an infinite end
    /// as `None`; `Index` bounds need the size's value.
    pub fn ends(&self) -> (Option<f64>, Option<f64>, bool, bool) {
        match self {
            Dom::Real => (None, None, true, true),
            Dom::Pos => (Some(0.0), None, true, true),
            Dom::NonNeg => (Some(0.0), None, false, true),
            Dom::Unit | Dom::Bool => (Some(0.0), Some(1.0), false, false),
            Dom::Signed => (Some(-1.0), Some(1.0), false, false),
            Dom::Neg => (None, Some(0.0), true, true),
            Dom::NonPos => (None, Some(0.0), true, false),
            Dom::Index(_) => (Some(0.0), None, false, true),
        }
    }

    /// The harness's form of a domain.
    pub fn json(&self) -> serde_json::Value {
        match self {
            Dom::Index(n) => serde_json::json!({ "index": n.json() }),
            other => serde_json::json!(other.ss().unwrap_or_else(|| "Real".into())),
        }
    }
}

/// A closed interval the values truly lie in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Iv {
    pub lo: f64,
    pub hi: f64,
}

impl Iv {
    pub const fn new(lo: f64, hi: f64) -> Iv {
        Iv { lo, hi }
    }

    pub fn point(v: f64) -> Iv {
        Iv::new(v, v)
    }

    pub fn plus(self, o: Iv) -> Iv {
        Iv::new(self.lo + o.lo, self.hi + o.hi)
    }

    pub fn negated(self) -> Iv {
        Iv::new(-self.hi, -self.lo)
    }

    pub fn minus(self, o: Iv) -> Iv {
        self.plus(o.negated())
    }

    pub fn product(self, o: Iv) -> Iv {
        let c = [
            self.lo * o.lo,
            self.lo * o.hi,
            self.hi * o.lo,
            self.hi * o.hi,
        ];
        Iv::new(
            c.iter().copied().fold(f64::INFINITY, f64::min),
            c.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        )
    }

    pub fn union(self, o: Iv) -> Iv {
        Iv::new(self.lo.min(o.lo), self.hi.max(o.hi))
    }

    /// The largest magnitude.
    pub fn mag(self) -> f64 {
        self.lo.abs().max(self.hi.abs())
    }

    /// `n` values of this interval added up.
    pub fn times(self, n: f64) -> Iv {
        Iv::new((self.lo * n).min(self.lo), (self.hi * n).max(self.hi))
    }
}

/// One axis: its name (a single identifier, or what a pattern named it),
/// its size, and how a signature writes it when not by name or size
/// (`2gh`).
#[derive(Clone, Debug, PartialEq)]
pub struct Axis {
    pub name: Option<String>,
    pub size: Size,
    pub text: Option<String>,
}

impl Axis {
    /// An axis named by its size's one symbol (`n`, `D`).
    pub fn sym(name: &str) -> Axis {
        Axis {
            name: Some(name.to_string()),
            size: Size::sym(name),
            text: None,
        }
    }

    /// An anonymous axis of size `size`.
    pub fn anon(size: Size) -> Axis {
        Axis {
            name: None,
            size,
            text: None,
        }
    }

    /// The axis as a signature writes it.
    pub fn ss(&self) -> String {
        if let Some(t) = &self.text {
            return t.clone();
        }
        if let Some(s) = self.size.as_sym() {
            return s.to_string();
        }
        match self.size.as_lit() {
            Some(c) => c.to_string(),
            None => format!("({})", self.size.ss()),
        }
    }
}

/// A tensor type.
#[derive(Clone, Debug, PartialEq)]
pub struct TT {
    pub axes: Vec<Axis>,
    pub dt: Dt,
    pub dom: Dom,
    pub iv: Iv,
}

impl TT {
    /// `[b n D] Pos f32`.
    pub fn ss(&self) -> String {
        let axes: Vec<String> = self.axes.iter().map(Axis::ss).collect();
        let mut out = format!("[{}]", axes.join(" "));
        if let Some(d) = self.dom.ss() {
            out.push(' ');
            out.push_str(&d);
        }
        if let Some(d) = self.dt.ss() {
            let implied = matches!(self.dom, Dom::Bool)
                || matches!(self.dom, Dom::Index(_)) && self.dt == Dt::I64;
            if !implied {
                out.push(' ');
                out.push_str(d);
            }
        }
        out
    }

    pub fn rank(&self) -> usize {
        self.axes.len()
    }
}

/// What a value is.
#[derive(Clone, Debug, PartialEq)]
pub enum Ty {
    T(TT),
    Int(Iv),
    Float(Iv),
    Bool,
    Tuple(Vec<Ty>),
    /// A record of the program, by name, with the sizes its generic axes
    /// were bound to (`(axis, size)`).
    Rec(String, Vec<(String, Size)>),
    /// A model of the program (`self`, a sub-model, a stack's element).
    Model(String),
    /// `[count] Model`.
    Stack(i64, String),
}

impl Ty {
    pub fn tensor(&self) -> Option<&TT> {
        match self {
            Ty::T(t) => Some(t),
            _ => None,
        }
    }

    /// The type as a signature writes it (a record by its name).
    pub fn ss(&self) -> String {
        match self {
            Ty::T(t) => t.ss(),
            Ty::Int(_) => "Int".into(),
            Ty::Float(_) => "Float".into(),
            Ty::Bool => "Bool".into(),
            Ty::Tuple(items) => {
                let items: Vec<String> = items.iter().map(Ty::ss).collect();
                format!("({})", items.join(", "))
            }
            Ty::Rec(name, _) | Ty::Model(name) => name.clone(),
            Ty::Stack(count, name) => format!("[{count}] {name}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_print_as_signatures_write_them() {
        let t = TT {
            axes: vec![
                Axis::sym("b"),
                Axis::anon(Size::sym("n").add(&Size::lit(1))),
                Axis::anon(Size::lit(3)),
                Axis {
                    name: None,
                    size: Size::sym("gh").scale(2),
                    text: Some("2gh".into()),
                },
            ],
            dt: Dt::Bf16,
            dom: Dom::Pos,
            iv: Iv::new(0.0, 1.0),
        };
        assert_eq!(t.ss(), "[b (n + 1) 3 2gh] Pos bf16");
        let ids = TT {
            axes: vec![Axis::sym("k")],
            dt: Dt::I64,
            dom: Dom::Index(Size::sym("n")),
            iv: Iv::new(0.0, 8.0),
        };
        assert_eq!(ids.ss(), "[k] Index[n]");
        assert_eq!(
            Iv::new(-1.0, 2.0).product(Iv::new(-3.0, 1.0)),
            Iv::new(-6.0, 3.0)
        );
    }
}
