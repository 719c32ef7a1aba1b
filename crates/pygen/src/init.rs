//! A model's tensor-field initialiser as the `torch.nn.init` call that
//! fills the parameter in `__init__` (`docs/shapescript/models.md`): its
//! numbers (`check::hir::InitExpr`) become Python arithmetic over the
//! constructor's size arguments and the dims, with `math.sqrt`, `math.log`
//! and `math.exp`, computed when the model is made.

use check::hir::{Init, InitExpr, InitOp, Poly, Size};

use crate::expr::{Val, ADD, ATOM, MUL, POW, UNARY};
use crate::scope::Scope;
use crate::writer::float_literal;

/// The `torch.nn.init` function and its keyword arguments (after the
/// tensor) for `init`; `None` when a size in it has no Python name here.
pub fn init_call(scope: &Scope, init: &Init) -> Option<(&'static str, Vec<String>)> {
    Some(match init {
        Init::Zeros => ("torch.nn.init.zeros_", Vec::new()),
        Init::Ones => ("torch.nn.init.ones_", Vec::new()),
        Init::Normal { mean, std } => {
            let mut args = Vec::new();
            // torch's own default mean is 0: leave it out, as a person would.
            if !mean.is_literal_zero() {
                args.push(format!("mean={}", number(scope, mean)?.code));
            }
            args.push(format!("std={}", number(scope, std)?.code));
            ("torch.nn.init.normal_", args)
        }
        Init::Uniform { lo, hi } => (
            "torch.nn.init.uniform_",
            vec![
                format!("a={}", number(scope, lo)?.code),
                format!("b={}", number(scope, hi)?.code),
            ],
        ),
    })
}

/// One number of an initialiser as Python, parenthesized by Python's
/// precedence and with `**` hugged where `black` hugs it.
fn number(scope: &Scope, e: &InitExpr) -> Option<Val> {
    // As deep as the written expression: on a stack with room for it.
    syntax::ensure_sufficient_stack(|| match e {
        InitExpr::Int(v) => Some(Val::atom(v.to_string())),
        InitExpr::Float(v) => Some(Val::atom(float_literal(*v))),
        InitExpr::Size(symbol) => {
            let size = Size::computed(Poly::symbol(symbol.clone()));
            scope.size_code(&size).map(Val::atom)
        }
        InitExpr::Neg(operand) => {
            let v = number(scope, operand)?;
            Some(Val {
                code: format!("-{}", v.at(UNARY)),
                prec: UNARY,
                simple: v.simple && v.prec == ATOM,
            })
        }
        InitExpr::Binary { op, lhs, rhs } => {
            Some(binary(*op, number(scope, lhs)?, number(scope, rhs)?))
        }
        InitExpr::Call { func, arg } => {
            let callee = scope.use_python(&format!("math.{}", func.name()));
            Some(Val::atom(format!("{callee}({})", number(scope, arg)?.code)))
        }
    })
}

/// `l op r`: `**` binds tighter than a unary minus on its left and is
/// written without spaces between simple operands (`K**2`), as `black` does.
fn binary(op: InitOp, l: Val, r: Val) -> Val {
    let (text, prec) = match op {
        InitOp::Add => ("+", ADD),
        InitOp::Sub => ("-", ADD),
        InitOp::Mul => ("*", MUL),
        InitOp::Div => ("/", MUL),
        InitOp::Pow => ("**", POW),
    };
    let code = if op == InitOp::Pow {
        // A parenthesized operand is no longer simple.
        let hug = l.simple && l.prec > POW && r.simple;
        let (lc, rc) = (l.at(POW + 1), r.at(UNARY));
        if hug {
            format!("{lc}**{rc}")
        } else {
            format!("{lc} ** {rc}")
        }
    } else {
        format!("{} {text} {}", l.at(prec), r.at(prec + 1))
    };
    Val {
        code,
        prec,
        simple: false,
    }
}
