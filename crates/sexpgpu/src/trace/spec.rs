//! Tensor operations described, not hand-written: a `Spec` lists what each
//! argument takes (`Param`: a tensor, a tensor or number, an integer, a
//! shape, a dtype keyword ...), each keyword with its default, and the
//! graph builder to call; `run` parses the arguments as its `Spec` says
//! (arity or keyword splitting, the host values first, then the graph's
//! operands inside the recording, so their errors name them), and hands
//! the builder an `Args`. Dtype rules, shape rules and broadcasting are the
//! graph crate's builders'; nothing here computes a shape.

use super::args::{bool_of, dtype_of, float_of, int_of, ints_of, shape_of, split};
use super::record::{record_nodes, Nodes};
use crate::codes;
use crate::eval::{arity, wrong_type, EvalResult, Flow, Interp, Site};
use crate::value::Value;
use diag::Diagnostic;
use sexpgpu_graph::{DType, Graph, NodeId, OpError, Operand, Scalar, Shape, MAX_ELEMENTS};

/// What one argument takes. The graph's operands (`Tensor`, `Operand`)
/// come first in a `Spec`'s positional parameters; host values after them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Param {
    /// A tensor, traced or computed.
    Tensor,
    /// A tensor or a plain number.
    Operand,
    Int,
    /// A number, as a float.
    Float,
    Bool,
    /// A non-negative integer within the tensor limit.
    Size,
    /// A dtype keyword (`:f32`).
    DType,
    /// A vector of non-negative integers within the tensor limit.
    Shape,
    /// An integer, float or boolean, kept as written (`full`'s value).
    Number,
    /// A vector of integers; the text names it in a wrong-type error.
    Ints(&'static str),
    /// An integer, or a vector of integers the text names.
    IntOrInts(&'static str),
    /// `:axes`: nil (every axis), an integer or a vector of integers.
    Axes,
    /// nil or an integer.
    IntOrNil,
    /// One of these keywords (`:amax`), written without the colon.
    Choice(&'static [&'static str]),
}

impl Param {
    /// Whether the argument is one of the graph's operands.
    fn is_operand(self) -> bool {
        matches!(self, Param::Tensor | Param::Operand)
    }
}

/// A host value parsed from an argument, or a keyword's default.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Given {
    /// Not given and without a default (the builder decides).
    Absent,
    Int(i64),
    Float(f64),
    Bool(bool),
    Size(usize),
    DType(DType),
    Shape(Shape),
    Number(Scalar),
    Ints(Vec<i64>),
    Choice(&'static str),
}

/// A keyword's value when it is not given.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Unset {
    /// None: the builder decides (`full`'s dtype follows its value).
    Absent,
    Int(i64),
    Float(f64),
    Bool(bool),
    DType(DType),
}

impl From<Unset> for Given {
    fn from(unset: Unset) -> Given {
        match unset {
            Unset::Absent => Given::Absent,
            Unset::Int(n) => Given::Int(n),
            Unset::Float(x) => Given::Float(x),
            Unset::Bool(b) => Given::Bool(b),
            Unset::DType(d) => Given::DType(d),
        }
    }
}

/// A keyword: its name (written here and nowhere else), what it takes and
/// its value when not given.
pub(super) struct Keyword {
    pub name: &'static str,
    pub param: Param,
    pub unset: Unset,
}

pub(super) const fn kw(name: &'static str, param: Param, unset: Unset) -> Keyword {
    Keyword { name, param, unset }
}

/// A builder of one node from the parsed arguments.
pub(super) type BuildOne = fn(&mut Graph, &Args<'_>) -> Result<NodeId, OpError>;
/// A builder of two (`sort`'s values and indices).
pub(super) type BuildTwo = fn(&mut Graph, &Args<'_>) -> Result<(NodeId, NodeId), OpError>;

/// How the parsed arguments become nodes: one (most operations) or two,
/// returned as a vector.
pub(super) enum Build {
    One(BuildOne),
    Two(BuildTwo),
}

/// One operation's arguments and builder.
pub(super) struct Spec {
    /// Positional parameters, the graph's operands first.
    pub params: &'static [Param],
    /// How many of `params` must be given; the rest are optional, which
    /// only a spec without keywords allows.
    pub required: usize,
    pub keywords: &'static [Keyword],
    pub build: Build,
}

/// A spec whose positional parameters are all required.
pub(super) const fn spec(
    params: &'static [Param],
    keywords: &'static [Keyword],
    build: Build,
) -> Spec {
    Spec {
        params,
        required: params.len(),
        keywords,
        build,
    }
}

/// Where a host value is: positional parameter `i` or a keyword.
pub(super) trait Key: Copy {
    fn find<'a>(self, args: &'a Args<'_>) -> Option<&'a Given>;
}

impl Key for usize {
    fn find<'a>(self, args: &'a Args<'_>) -> Option<&'a Given> {
        args.host.get(self.checked_sub(args.operands.len())?)
    }
}

impl Key for &str {
    fn find<'a>(self, args: &'a Args<'_>) -> Option<&'a Given> {
        let k = args.spec.keywords.iter().position(|k| k.name == self)?;
        args.keywords.get(k)
    }
}

/// The parsed arguments a builder reads: the graph's operands by position,
/// host values by position or keyword name. A read of the wrong kind is a
/// mistake in the table, reported as an internal error, never a panic.
pub(super) struct Args<'s> {
    operands: Vec<Operand>,
    host: Vec<Given>,
    keywords: Vec<Given>,
    spec: &'s Spec,
}

/// One accessor per kind of host value: the value given (or defaulted)
/// for `key`, cloned, or an internal error when the table reads a kind
/// the `Spec` did not parse there.
macro_rules! reads {
    ($($name:ident: $variant:ident -> $ty:ty, $what:literal;)*) => {
        $(
            pub fn $name(&self, key: impl Key) -> Result<$ty, OpError> {
                match self.get(key) {
                    Given::$variant(v) => Ok(v.clone()),
                    _ => Err(misread(concat!($what, " it did not take"))),
                }
            }
        )*
    };
}

fn misread(what: &str) -> OpError {
    OpError::not_a_tensor(format!("internal: the operation's table reads {what}"))
}

impl Args<'_> {
    pub fn node(&self, i: usize) -> Result<NodeId, OpError> {
        match self.operands.get(i) {
            Some(Operand::Tensor(node)) => Ok(*node),
            _ => Err(misread("a tensor it did not take")),
        }
    }

    pub fn operand(&self, i: usize) -> Result<Operand, OpError> {
        self.operands
            .get(i)
            .copied()
            .ok_or_else(|| misread("an operand it did not take"))
    }

    fn get(&self, key: impl Key) -> &Given {
        key.find(self).unwrap_or(&Given::Absent)
    }

    /// `read`'s value, or `None` when the argument was not given (or was
    /// nil where nil means "not given").
    pub fn opt<K: Key, T>(
        &self,
        key: K,
        read: fn(&Self, K) -> Result<T, OpError>,
    ) -> Result<Option<T>, OpError> {
        match self.get(key) {
            Given::Absent => Ok(None),
            _ => read(self, key).map(Some),
        }
    }

    reads! {
        int: Int -> i64, "an integer";
        float: Float -> f64, "a number";
        bool: Bool -> bool, "a boolean";
        size: Size -> usize, "a size";
        dtype: DType -> DType, "a dtype";
        shape: Shape -> Shape, "a shape";
        number: Number -> Scalar, "a number";
        choice: Choice -> &'static str, "a keyword";
    }

    pub fn ints(&self, key: impl Key) -> Result<&[i64], OpError> {
        match self.get(key) {
            Given::Ints(v) => Ok(v),
            _ => Err(misread("integers it did not take")),
        }
    }

    /// `:axes`: `None` for every axis.
    pub fn axes(&self, key: impl Key) -> Result<Option<&[i64]>, OpError> {
        match self.get(key) {
            Given::Absent => Ok(None),
            _ => self.ints(key).map(Some),
        }
    }
}

/// Traces a call of `name` with `args` as `spec` describes it.
pub(super) fn run(
    interp: &mut Interp,
    name: &str,
    spec: &Spec,
    site: &Site,
    args: Vec<Value>,
) -> EvalResult {
    let (positional, host, keywords) = given(name, spec, site, args)?;
    let n_operands = spec.params.iter().take_while(|p| p.is_operand()).count();
    let operands = &positional[..n_operands.min(positional.len())];
    let mut parsed = Args {
        operands: Vec::new(),
        host,
        keywords,
        spec,
    };
    record_nodes(interp, name, site, operands, |g, call| {
        for (i, param) in spec.params[..operands.len()].iter().enumerate() {
            let operand = match param {
                Param::Tensor => Operand::Tensor(call.tensor(g, i)?),
                _ => call.operand(g, i)?,
            };
            parsed.operands.push(operand);
        }
        Ok(match spec.build {
            Build::One(build) => build(g, &parsed).map(Nodes::One),
            Build::Two(build) => build(g, &parsed).map(|(a, b)| Nodes::Two(a, b)),
        })
    })
}

/// The positional arguments, and the host values parsed in order: the
/// positional ones, then each keyword (its default when not given).
/// Without keywords the arity is checked as for any builtin; with them the
/// positional arguments are exactly `spec.params`.
fn given(
    name: &str,
    spec: &Spec,
    site: &Site,
    args: Vec<Value>,
) -> EvalResult<(Vec<Value>, Vec<Given>, Vec<Given>)> {
    let (positional, found) = if spec.keywords.is_empty() {
        arity(name, site, &args, spec.required, Some(spec.params.len()))?;
        (args, Vec::new())
    } else {
        let names: Vec<&'static str> = spec.keywords.iter().map(|k| k.name).collect();
        let parsed = split(name, args, site, spec.params.len(), &names)?;
        let found: Vec<Option<(Value, usize)>> = spec
            .keywords
            .iter()
            .map(|k| parsed.keyword(k.name).map(|(v, i)| (v.clone(), i)))
            .collect();
        (parsed.positional, found)
    };
    let mut host = Vec::new();
    for (i, &param) in spec.params.iter().enumerate() {
        if !param.is_operand() {
            host.push(match positional.get(i) {
                Some(v) => parse(name, param, v, site, i)?,
                None => Given::Absent,
            });
        }
    }
    let mut keywords = Vec::new();
    for (k, found) in spec
        .keywords
        .iter()
        .zip(found.into_iter().chain(std::iter::repeat(None)))
    {
        keywords.push(match found {
            Some((v, i)) => parse(name, k.param, &v, site, i)?,
            None => Given::from(k.unset),
        });
    }
    Ok((positional, host, keywords))
}

/// Argument `i`'s host value, or why it is refused.
fn parse(name: &str, param: Param, value: &Value, site: &Site, i: usize) -> EvalResult<Given> {
    Ok(match (param, value) {
        (Param::Int, v) => Given::Int(int_of(name, v, site, i)?),
        (Param::Float, v) => Given::Float(float_of(name, v, site, i)?),
        (Param::Bool, v) => Given::Bool(bool_of(name, v, site, i)?),
        (Param::Size, v) => Given::Size(size_of(name, v, site, i)?),
        (Param::DType, v) => Given::DType(dtype_of(name, v, site, i)?),
        (Param::Shape, v) => Given::Shape(shape_of(name, v, site, i)?),
        (Param::Number, Value::Int(n)) => Given::Number(Scalar::Int(*n)),
        (Param::Number, Value::Float(x)) => Given::Number(Scalar::Float(*x)),
        (Param::Number, Value::Bool(b)) => Given::Number(Scalar::Bool(*b)),
        (Param::Number, v) => return Err(wrong_type(name, "a number", v, site, i)),
        (Param::Ints(what), v) => Given::Ints(ints_of(name, what, v, site, i)?),
        (Param::IntOrInts(_) | Param::Axes, Value::Int(a)) => Given::Ints(vec![*a]),
        (Param::IntOrInts(what), v) => Given::Ints(ints_of(name, what, v, site, i)?),
        (Param::Axes | Param::IntOrNil, Value::Nil) => Given::Absent,
        (Param::Axes, v) => Given::Ints(ints_of(
            name,
            "`:axes` as a vector of integers",
            v,
            site,
            i,
        )?),
        (Param::IntOrNil, v) => Given::Int(int_of(name, v, site, i)?),
        (Param::Choice(names), v) => Given::Choice(choice_of(name, names, v, site, i)?),
        // The graph's operands are read inside the recording.
        (Param::Tensor | Param::Operand, _) => Given::Absent,
    })
}

/// One of `names` written as a keyword (`:amax`), or why it is refused.
fn choice_of(
    op: &str,
    names: &'static [&'static str],
    v: &Value,
    site: &Site,
    i: usize,
) -> EvalResult<&'static str> {
    match v {
        Value::Keyword(k) => names.iter().find(|n| **n == &**k).copied(),
        _ => None,
    }
    .ok_or_else(|| {
        let listed: Vec<String> = names.iter().map(|n| format!("`:{n}`")).collect();
        wrong_type(op, &format!("one of {}", listed.join(" ")), v, site, i)
    })
}

/// A size argument: a non-negative integer within the tensor limit.
fn size_of(op: &str, v: &Value, site: &Site, i: usize) -> EvalResult<usize> {
    let n = int_of(op, v, site, i)?;
    match usize::try_from(n) {
        Ok(n) if n <= MAX_ELEMENTS => Ok(n),
        _ => Err(Flow::from(
            Diagnostic::error(codes::E_DIM_001, format!("{op}: {n} is not a size"))
                .with_primary(site.arg(i), "")
                .with_help(format!("a size is an integer from 0 to {MAX_ELEMENTS}")),
        )),
    }
}
