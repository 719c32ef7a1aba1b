//! Lexical environments: an immutable chain of name/value frames shared by
//! closures. Globals live in the interpreter, not here.

use super::Value;
use std::rc::Rc;

/// Local bindings, innermost first. Cloning is cheap (one `Rc`).
#[derive(Clone, Default)]
pub struct Env(Option<Rc<Frame>>);

pub struct Frame {
    name: Rc<str>,
    value: Value,
    parent: Env,
}

impl Env {
    /// A new environment with `name` bound in front of this one.
    pub fn bind(&self, name: Rc<str>, value: Value) -> Env {
        Env(Some(Rc::new(Frame {
            name,
            value,
            parent: self.clone(),
        })))
    }

    pub fn lookup(&self, name: &str) -> Option<&Value> {
        let mut env = self;
        while let Some(frame) = &env.0 {
            if &*frame.name == name {
                return Some(&frame.value);
            }
            env = &frame.parent;
        }
        None
    }

    /// Every bound name, innermost first (for "did you mean" suggestions).
    pub fn names(&self) -> Vec<Rc<str>> {
        let mut names = Vec::new();
        let mut env = self;
        while let Some(frame) = &env.0 {
            names.push(frame.name.clone());
            env = &frame.parent;
        }
        names
    }
}

impl Drop for Frame {
    /// Unlinks a long chain one frame at a time instead of recursively, so a
    /// deep environment cannot overflow the stack when it is dropped.
    fn drop(&mut self) {
        let mut next = self.parent.0.take();
        while let Some(rc) = next {
            match Rc::try_unwrap(rc) {
                Ok(mut frame) => next = frame.parent.0.take(),
                Err(_) => break,
            }
        }
    }
}
