//! What the harness needs to call a program's entry points: per function
//! or method, its generic axes, its parameters' types (sizes as
//! polynomials, dtypes, domains, the bounds to draw values from) and its
//! intended return type, as JSON (`harness.py` reads it).

use serde_json::{json, Value};

use crate::ast::{Func, Program};
use crate::ty::{Ty, TT};

/// The spec of a program whose module is `module`.
pub fn program(p: &Program, module: &str) -> Value {
    let dims: serde_json::Map<String, Value> =
        p.dims.iter().map(|(n, v)| (n.clone(), json!(v))).collect();
    let mut entries = Vec::new();
    for (model, name) in &p.entries {
        if model.is_empty() {
            if let Some(f) = p.func(name) {
                entries.push(entry(f, name, &format!("f_{name}")));
            }
        }
    }
    json!({ "module": module, "dims": dims, "entries": entries })
}

fn entry(f: &Func, py: &str, reference: &str) -> Value {
    let params: Vec<Value> = f.params.iter().map(|p| ty(&p.ty)).collect();
    json!({
        "name": f.name,
        "py": py,
        "ref": reference,
        "generics": f.generics,
        "float": f.float.key(),
        "params": params,
        "ret": ty(&f.ret),
        "discontinuous": f.discontinuous,
    })
}

fn tensor(t: &TT) -> Value {
    let shape: Vec<Value> = t
        .axes
        .iter()
        .map(|a| {
            if a.size.symbols().iter().any(|s| s.starts_with('?')) {
                Value::Null
            } else {
                a.size.json()
            }
        })
        .collect();
    json!({
        "kind": "tensor",
        "shape": shape,
        "dtype": t.dt.key(),
        "dom": t.dom.json(),
        "lo": t.iv.lo,
        "hi": t.iv.hi,
    })
}

/// A type as the harness reads it.
pub fn ty(t: &Ty) -> Value {
    match t {
        Ty::T(t) => tensor(t),
        Ty::Int(iv) => json!({ "kind": "int", "lo": iv.lo, "hi": iv.hi }),
        Ty::Float(iv) => json!({ "kind": "float", "lo": iv.lo, "hi": iv.hi }),
        Ty::Bool => json!({ "kind": "bool" }),
        Ty::Tuple(items) => {
            json!({ "kind": "tuple", "items": items.iter().map(ty).collect::<Vec<_>>() })
        }
        Ty::Rec(name, _) => json!({ "kind": "record", "name": name }),
        Ty::Model(name) | Ty::Stack(_, name) => json!({ "kind": "model", "name": name }),
    }
}
