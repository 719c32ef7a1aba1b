//! The options of `defrun`: evaluated once, checked, and kept with the
//! spans of the forms that gave them so later mistakes point there. A
//! missing, unknown or ill-typed option is `E-RUN-002`.

use super::batches::Batches;
use super::run_error;
use crate::codes;
use crate::eval::{malformed, Ctx, EvalResult, Interp};
use crate::reader::{Form, FormKind};
use crate::value::{Env, GraphDef, Value};
use diag::Span;
use std::rc::Rc;

const KEYS: &[&str] = &[
    "seed",
    "model",
    "data",
    "loss",
    "optimizer",
    "steps",
    "log-every",
    "eval",
    "eval-data",
    "eval-every",
    "checkpoint",
    "checkpoint-every",
    "after",
];

/// The optimizer protocol `nn/sgd` and `nn/adamw` follow: `:init` makes the
/// state from the parameters (traced), `:hyper` gives the step's scalars
/// from the step number (host code, so schedules are plain functions),
/// `:update` maps parameters, gradients, state and scalars to
/// `[new-params new-state]` (traced into the step graph).
pub struct Optimizer {
    pub init: Value,
    pub hyper: Value,
    pub update: Value,
    pub span: Span,
}

pub struct EvalSpec {
    pub function: Value,
    pub span: Span,
    pub data: Batches,
    pub data_span: Span,
    pub every: u64,
}

pub struct RunSpec {
    pub name: String,
    pub span: Span,
    pub seed: u64,
    pub model: Rc<GraphDef>,
    pub data: Batches,
    pub data_span: Span,
    pub loss: Value,
    pub loss_span: Span,
    pub optimizer: Optimizer,
    pub steps: u64,
    pub log_every: u64,
    pub eval: Option<EvalSpec>,
    pub checkpoint_every: Option<u64>,
    /// `:checkpoint "out/"`: where checkpoints go when `--checkpoint` is
    /// not given (relative to the `.sx` file).
    pub checkpoint_dir: Option<String>,
    /// Called with the trained parameters (host tensors) when the run ends.
    pub after: Option<Value>,
}

pub fn parse(interp: &mut Interp, args: &[Form], env: &Env, span: Span) -> EvalResult<RunSpec> {
    let usage = "(defrun name :model (m ...) :data ... :loss (fn (p batch) ...) :optimizer (nn/adamw :lr 1e-3) :steps 100)";
    let Some((name_form, rest)) = args.split_first() else {
        return Err(malformed("defrun", usage, span));
    };
    let Some(name) = name_form.as_symbol() else {
        return Err(malformed("defrun", usage, name_form.span));
    };
    let mut given: Vec<(&str, Value, Span)> = Vec::new();
    let mut i = 0;
    while i < rest.len() {
        let key_form = &rest[i];
        let FormKind::Keyword(key) = &key_form.kind else {
            return Err(malformed("defrun", usage, key_form.span));
        };
        let Some(key) = KEYS.iter().find(|k| **k == key.as_str()) else {
            return Err(run_error(
                codes::E_RUN_002,
                format!("defrun: unknown option `:{key}`"),
                key_form.span,
            )
            .with_note(format!("the options are :{}", KEYS.join(" :")))
            .into());
        };
        let Some(value_form) = rest.get(i + 1) else {
            return Err(run_error(
                codes::E_RUN_002,
                format!("defrun: `:{key}` has no value"),
                key_form.span,
            )
            .into());
        };
        if given.iter().any(|(k, _, _)| k == key) {
            return Err(run_error(
                codes::E_RUN_002,
                format!("defrun: `:{key}` is given twice"),
                key_form.span,
            )
            .into());
        }
        let value = interp.eval(value_form, env, Ctx::TOP)?;
        given.push((key, value, value_form.span));
        i += 2;
    }
    let get = |key: &str| {
        given
            .iter()
            .find(|(k, _, _)| *k == key)
            .map(|(_, v, s)| (v.clone(), *s))
    };
    let required = |key: &str| -> EvalResult<(Value, Span)> {
        get(key).ok_or_else(|| {
            run_error(
                codes::E_RUN_002,
                format!("defrun `{name}` has no `:{key}`"),
                span,
            )
            .with_help(format!("write it as `{usage}`"))
            .into()
        })
    };
    let count = |key: &str, default: u64, min: u64| -> EvalResult<u64> {
        match get(key) {
            None => Ok(default),
            Some((Value::Int(n), _)) if n >= min as i64 => Ok(n as u64),
            Some((v, s)) => Err(run_error(
                codes::E_RUN_002,
                format!(
                    "defrun: `:{key}` must be an integer of at least {min}, got `{}`",
                    crate::value::short(&v)
                ),
                s,
            )
            .into()),
        }
    };
    let (model, model_span) = required("model")?;
    let Value::Graph(model) = model else {
        return Err(run_error(
            codes::E_RUN_002,
            format!(
                "defrun: `:model` must be a call of a `defmodel`, got {}",
                model.type_name()
            ),
            model_span,
        )
        .with_help(
            "define the model with `(defmodel mlp [i h o] {...})` and write `:model (mlp 4 8 2)`",
        )
        .into());
    };
    let (data, data_span) = required("data")?;
    let data = Batches::from_value(&data, data_span)?;
    let (loss, loss_span) = required("loss")?;
    function(&loss, "loss", loss_span)?;
    let (optimizer, opt_span) = required("optimizer")?;
    let optimizer = parse_optimizer(&optimizer, opt_span)?;
    let steps = count("steps", 100, 0)?;
    let log_every = count("log-every", 10, 1)?;
    let eval = match get("eval") {
        None => None,
        Some((f, f_span)) => {
            function(&f, "eval", f_span)?;
            let (data, d_span) = get("eval-data").ok_or_else(|| {
                run_error(
                    codes::E_RUN_002,
                    "defrun: `:eval` needs `:eval-data`",
                    f_span,
                )
            })?;
            Some(EvalSpec {
                function: f,
                span: f_span,
                data: Batches::from_value(&data, d_span)?.in_order(),
                data_span: d_span,
                every: count("eval-every", log_every, 1)?,
            })
        }
    };
    let checkpoint_every = match get("checkpoint-every") {
        None => None,
        Some(_) => Some(count("checkpoint-every", 1, 1)?),
    };
    let checkpoint_dir = match get("checkpoint") {
        None | Some((Value::Nil, _)) => None,
        Some((Value::Str(dir), _)) => Some(dir.to_string()),
        Some((other, s)) => {
            return Err(run_error(
                codes::E_RUN_002,
                format!(
                    "defrun: `:checkpoint` must be a directory name, got `{}`",
                    crate::value::short(&other)
                ),
                s,
            )
            .into())
        }
    };
    let after = match get("after") {
        None => None,
        Some((f, s)) => {
            function(&f, "after", s)?;
            Some(f)
        }
    };
    Ok(RunSpec {
        name: name.to_string(),
        span,
        seed: count("seed", 0, 0)?,
        model,
        data,
        data_span,
        loss,
        loss_span,
        optimizer,
        steps,
        log_every,
        eval,
        checkpoint_every,
        checkpoint_dir,
        after,
    })
}

fn function(value: &Value, key: &str, span: Span) -> EvalResult<()> {
    match value {
        Value::Fn(_) | Value::Builtin { .. } => Ok(()),
        other => Err(run_error(
            codes::E_RUN_002,
            format!(
                "defrun: `:{key}` must be a function, got {}",
                other.type_name()
            ),
            span,
        )
        .into()),
    }
}

fn parse_optimizer(value: &Value, span: Span) -> EvalResult<Optimizer> {
    let field = |name: &str| value.map_get(&Value::keyword(name));
    match (field("init"), field("hyper"), field("update")) {
        (Some(init), Some(hyper), Some(update)) => Ok(Optimizer {
            init,
            hyper,
            update,
            span,
        }),
        _ => Err(run_error(
            codes::E_RUN_002,
            format!(
                "defrun: `:optimizer` must be an optimizer such as `(nn/adamw :lr 1e-3)`, got `{}`",
                crate::value::short(value)
            ),
            span,
        )
        .with_note("an optimizer is a map with `:init`, `:hyper` and `:update` functions")
        .into()),
    }
}
