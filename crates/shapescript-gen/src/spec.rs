//! What the harness needs to call a program's entry points: per function
//! or method, its generic axes, its parameters' types (sizes as
//! polynomials, dtypes, domains, the bounds to draw values from) and its
//! intended return type, as JSON (`harness.py` reads it).

use serde_json::{json, Value};

use crate::ast::{Field, Func, Model, Program};
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
        } else if let Some(m) = p.model(model) {
            if let Some(f) = m.methods.iter().find(|f| f.name == *name) {
                let mut e = entry(f, &format!("{model}.{name}"), &format!("m_{model}_{name}"));
                e["model"] = tree(p, m);
                entries.push(e);
            }
        }
    }
    json!({ "module": module, "dims": dims, "entries": entries })
}

/// A model as the harness builds it: its class, size parameters and
/// fields (sub-models and stacks with their own trees); each `lookup` is
/// the name whose Python spelling the runner fills in as `py`.
fn tree(p: &Program, m: &Model) -> Value {
    let fields: Vec<Value> = m
        .fields
        .iter()
        .map(|f| match f {
            Field::Tensor(n, t) => {
                let shape: Vec<Value> = t.axes.iter().map(|a| a.size.json()).collect();
                json!({ "ss": n, "kind": "tensor", "lookup": format!("{}.{n}", m.name), "shape": shape })
            }
            Field::Sub(n, sub, args) => {
                let inner = p.model(sub).map_or(Value::Null, |s| tree(p, s));
                let args: Vec<Value> = args.iter().map(|a| a.json()).collect();
                json!({ "ss": n, "kind": "sub", "lookup": format!("{}.{n}", m.name), "model": inner, "args": args })
            }
            Field::Stack(n, count, block) => {
                let inner = p.model(block).map_or(Value::Null, |s| tree(p, s));
                json!({ "ss": n, "kind": "stack", "lookup": format!("{}.{n}", m.name), "model": inner, "count": count })
            }
        })
        .collect();
    json!({ "lookup": m.name, "sizes": m.size_params, "fields": fields })
}

fn entry(f: &Func, lookup: &str, reference: &str) -> Value {
    let params: Vec<Value> = f.params.iter().map(|p| ty(&p.ty)).collect();
    json!({
        "name": lookup,
        "lookup": lookup,
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
