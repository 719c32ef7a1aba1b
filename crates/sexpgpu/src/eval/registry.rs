//! What the layers above the evaluator register into it: special forms,
//! builtin functions, how a graph value is called, how arithmetic treats
//! tensors, hints for unbound names, and per-layer state. The evaluator
//! looks things up here and so never names `special`, `trace`, `train` or
//! `nn`; this module only stores, it never evaluates.

use super::{Ctx, EvalResult, Interp, Site};
use crate::reader::Form;
use crate::value::{BuiltinId, Env, GraphDef, Value};
use std::any::Any;
use std::rc::Rc;

/// A function the evaluator can call with evaluated arguments: a host
/// library function, or a tensor operation (which carries its own table
/// entry, see `trace::ops`).
pub trait Primitive: Sync {
    fn name(&self) -> &'static str;
    fn call(&self, interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult;
}

/// A builtin that is one plain function.
pub struct Builtin {
    pub name: &'static str,
    pub call: fn(&mut Interp, &Site, Vec<Value>) -> EvalResult,
}

impl Primitive for Builtin {
    fn name(&self) -> &'static str {
        self.name
    }

    fn call(&self, interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
        (self.call)(interp, site, args)
    }
}

/// One use of a special form: the name it was written with, the operand
/// forms (unevaluated) and the whole form.
pub struct SpecialUse<'a> {
    pub name: &'static str,
    pub args: &'a [Form],
    pub form: &'a Form,
}

/// A special form: evaluated from its unevaluated operands.
pub struct Special {
    pub name: &'static str,
    pub eval: fn(&mut Interp, &SpecialUse, &Env, Ctx) -> EvalResult,
    /// Whether a top-level use defines its second element's name (`def`,
    /// `defn`, `defgraph`...), so a failed one poisons that name.
    pub defines: bool,
}

/// How a graph value is called: `(g x y)`.
pub type GraphCall = fn(&mut Interp, &Rc<GraphDef>, Vec<Value>, &Site) -> EvalResult;

/// How a host arithmetic function (`+`, `<`, `sqrt`...), given a tensor
/// among its arguments, hands the call over to the tensor operations.
pub type Overload = fn(&mut Interp, &'static str, &Site, Vec<Value>) -> EvalResult;

/// A hint for an unbound name (such as "load the library first"), or `None`.
pub type Hint = fn(&Interp, &str) -> Option<String>;

/// Everything registered so far. Special forms are few and looked up on
/// every list form, so they are a short list compared in order, like the
/// `match` they replace.
#[derive(Default)]
pub struct Registry {
    pub(super) specials: Vec<&'static Special>,
    pub(super) builtins: Vec<&'static dyn Primitive>,
    pub(super) graph_call: Option<GraphCall>,
    pub(super) overload: Option<Overload>,
    pub(super) hints: Vec<Hint>,
    /// One value per layer that keeps state in the interpreter (the
    /// tracer, the runs, the loaded libraries), found by type.
    pub(super) state: Vec<Box<dyn Any>>,
}

impl Registry {
    pub(super) fn special(&self, name: &str) -> Option<&'static Special> {
        self.specials.iter().copied().find(|s| s.name == name)
    }
}

impl Interp {
    /// Adds special forms (each name registered once).
    pub fn register_specials(&mut self, specials: &'static [Special]) {
        self.registry.specials.extend(specials);
    }

    /// Adds builtins and defines each as a global of its name.
    pub fn register_builtins(
        &mut self,
        builtins: impl IntoIterator<Item = &'static dyn Primitive>,
    ) {
        for builtin in builtins {
            let id = BuiltinId(self.registry.builtins.len() as u32);
            self.registry.builtins.push(builtin);
            let name = builtin.name();
            self.define(name, Value::Builtin { id, name });
        }
    }

    pub fn register_graph_call(&mut self, call: GraphCall) {
        self.registry.graph_call = Some(call);
    }

    pub fn register_overload(&mut self, overload: Overload) {
        self.registry.overload = Some(overload);
    }

    pub fn register_hint(&mut self, hint: Hint) {
        self.registry.hints.push(hint);
    }

    /// A layer's state of type `T`, made with `T::default()` on first use.
    pub fn state<T: Any + Default>(&mut self) -> &mut T {
        let state = &mut self.registry.state;
        let at = match state.iter().position(|s| s.is::<T>()) {
            Some(at) => at,
            None => {
                state.push(Box::new(T::default()));
                state.len() - 1
            }
        };
        state[at].downcast_mut().expect("found by type above")
    }

    /// A layer's state of type `T`, if it was ever made.
    pub fn state_ref<T: Any>(&self) -> Option<&T> {
        self.registry.state.iter().find_map(|s| s.downcast_ref())
    }

    /// Hands a host arithmetic call with a tensor argument to the tensor
    /// operations. With none registered, a tensor is just the wrong type.
    pub fn overload(&mut self, name: &'static str, site: &Site, args: Vec<Value>) -> EvalResult {
        match self.registry.overload {
            Some(overload) => overload(self, name, site, args),
            None => {
                let i = args.iter().position(|a| !a.is_number()).unwrap_or(0);
                Err(super::wrong_type(name, "numbers", &args[i], site, i))
            }
        }
    }
}
