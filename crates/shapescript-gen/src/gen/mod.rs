//! The generator of well-typed programs: from a seed, a program of dims,
//! records, functions and models whose every expression is built for a
//! type the generator chose (goal-directed, as csmith builds for a type),
//! so it knows each intermediate's axes, dtype, domain and value bounds
//! without asking the checker. `float`, `ints` and `calls` build
//! expressions; `stmts` statements; `funcs` functions, models and the
//! program.

mod calls;
mod float;
mod funcs;
mod fx;
mod hygiene;
mod ints;
mod layout;
mod models;
mod ops;
pub mod shape;
mod stmts;

use crate::ast::{Expr, Program};
use crate::rng::Rng;
use crate::ty::{Axis, Dom, Dt, Iv, TT};

pub use fx::Fx;
pub use layout::{pattern_expr, Call};
use shape::Dims;

/// Which names the program uses (`names.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Names {
    Ordinary,
    Clashing,
}

/// The largest magnitude a value may reach: keeps every value finite and
/// every float comparison of the emitted code and the reference stable.
pub const MAG: f64 = 30.0;

/// The program generator.
pub struct Gen {
    pub rng: Rng,
    pub names: Names,
    pub prog: Program,
    pub dims: Dims,
}

/// What an expression must be: its axes (names and sizes), dtype, the
/// domain it must be provably within, and bounds on its true values.
#[derive(Clone, Debug)]
pub struct Goal {
    pub axes: Vec<Axis>,
    pub dt: Dt,
    pub dom: Dom,
    pub within: Iv,
}

impl Goal {
    pub fn new(axes: Vec<Axis>, dt: Dt) -> Goal {
        let dom = match dt {
            Dt::Bool => Dom::Bool,
            _ => Dom::Real,
        };
        Goal {
            axes,
            dt,
            dom,
            within: Iv::new(-MAG, MAG),
        }
    }

    pub fn with_dom(mut self, dom: Dom) -> Goal {
        self.dom = dom;
        self
    }

    pub fn within(mut self, iv: Iv) -> Goal {
        self.within = iv;
        self
    }

    /// This goal's dtype, domain and bounds for other axes.
    pub fn same_values(&self, axes: Vec<Axis>) -> Goal {
        Goal {
            axes,
            ..self.clone()
        }
    }

    /// The type of a value made of `a`'s and `b`'s values (`concat`,
    /// `stack`): the goal's axes and dtype, both ranges.
    pub fn union_of(&self, a: &Expr, b: &Expr) -> Option<TT> {
        let (ta, tb) = (a.tensor()?, b.tensor()?);
        Some(TT {
            axes: self.axes.clone(),
            dt: self.dt,
            dom: funcs::join_dom(&ta.dom, &tb.dom),
            iv: ta.iv.union(tb.iv),
        })
    }

    /// A goal for a tensor of type `t`: its axes, dtype and domain, its
    /// values within `t`'s bounds.
    pub fn of(t: &TT) -> Goal {
        Goal {
            axes: t.axes.clone(),
            dt: t.dt,
            dom: t.dom.clone(),
            within: t.iv,
        }
    }
}

/// A way to build a value for a goal, `depth` operations deep at most;
/// `None` where it does not apply.
pub type Strategy = fn(&mut Gen, &mut Fx, &Goal, u32) -> Option<Expr>;

/// Whether a value the checker proves to be in `have` is in `want`.
pub fn dom_within(dims: &Dims, have: &Dom, want: &Dom) -> bool {
    use Dom::*;
    match (want, have) {
        (Real, _) => true,
        (NonNeg, NonNeg | Pos | Unit | Index(_) | Bool) => true,
        (Pos, Pos) | (Unit, Unit | Bool) | (Neg, Neg) | (Bool, Bool) => true,
        (Signed, Signed | Unit | Bool) => true,
        (NonPos, NonPos | Neg) => true,
        (Index(a), Index(b)) => dims.eq(a, b),
        _ => false,
    }
}

impl Gen {
    pub fn new(seed: u64, names: Names) -> Gen {
        Gen {
            rng: Rng::new(seed),
            names,
            prog: Program::default(),
            dims: Dims::default(),
        }
    }

    /// The first of `tries` strategies drawn from `table` (by weight)
    /// whose value fits `goal`; none at depth 0.
    pub fn first_fit(
        &mut self,
        fx: &mut Fx,
        goal: &Goal,
        depth: u32,
        table: &[(u32, Strategy)],
        tries: usize,
    ) -> Option<Expr> {
        if depth == 0 {
            return None;
        }
        let weights: Vec<u32> = table.iter().map(|(w, _)| *w).collect();
        for _ in 0..tries {
            let strategy = table[self.rng.weighted(&weights)].1;
            if let Some(e) = strategy(self, fx, goal, depth).filter(|e| self.fits(e, goal)) {
                return Some(e);
            }
        }
        None
    }

    /// Some of `axes`' named axes, in order: an operand that broadcasts
    /// into them by name.
    pub fn some_named(&mut self, axes: &[Axis]) -> Vec<Axis> {
        axes.iter()
            .filter(|a| a.name.is_some() && self.rng.chance(0.7))
            .cloned()
            .collect()
    }

    /// `(a, b)` or `(b, a)`, at random.
    pub fn either_order<T>(&mut self, a: T, b: T) -> (T, T) {
        if self.rng.chance(0.5) {
            (a, b)
        } else {
            (b, a)
        }
    }

    /// Whether `e` is what `goal` asks for.
    pub fn fits(&self, e: &crate::ast::Expr, goal: &Goal) -> bool {
        let Some(t) = e.tensor() else {
            return false;
        };
        t.dt == goal.dt
            && self.dims.same(&t.axes, &goal.axes)
            && dom_within(&self.dims, &t.dom, &goal.dom)
            && t.iv.lo >= goal.within.lo - 1e-9
            && t.iv.hi <= goal.within.hi + 1e-9
            && !(matches!(goal.dom, Dom::Pos) && t.iv.lo <= 0.0)
    }
}

/// A program from `seed`, with names of the given kind.
pub fn program(seed: u64, names: Names) -> Program {
    let mut g = Gen::new(seed, names);
    g.program();
    g.prog
}
