//! The options of `defrun`: evaluated once, checked, and kept with the
//! spans of the forms that gave them so later mistakes point there. A
//! missing, unknown or ill-typed option is `E-RUN-002`.

use super::batches::Batches;
use super::run_error;
use crate::codes;
use crate::eval::{malformed, Ctx, EvalResult, Interp};
use crate::reader::{Form, FormKind};
use crate::value::{Env, GraphDef, Value};
use diag::{Diagnostic, Span};
use std::rc::Rc;

/// The options of `defrun`, without their colons.
pub(crate) const KEYS: &[&str] = &[
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

const USAGE: &str = "(defrun name :model (m ...) :data ... :loss (fn (p batch) ...) :optimizer (nn/adamw :lr 1e-3) :steps 100)";

/// `(defrun name :key value ...)`: every option evaluated once, then each
/// checked in a fixed order (so the first mistake reported is always the
/// same one).
pub fn parse(interp: &mut Interp, args: &[Form], env: &Env, span: Span) -> EvalResult<RunSpec> {
    let Some((name_form, rest)) = args.split_first() else {
        return Err(malformed("defrun", USAGE, span));
    };
    let Some(name) = name_form.as_symbol() else {
        return Err(malformed("defrun", USAGE, name_form.span));
    };
    let given = Given {
        name,
        span,
        options: evaluate_options(interp, rest, env)?,
    };
    let model = given.model()?;
    let (data, data_span) = given.required("data")?;
    let data = Batches::from_value(&data, data_span)?;
    let (loss, loss_span) = given.required("loss")?;
    function(&loss, "loss", loss_span)?;
    let (optimizer, opt_span) = given.required("optimizer")?;
    let optimizer = parse_optimizer(&optimizer, opt_span)?;
    let steps = given.count("steps", 100, 0)?;
    let log_every = given.count("log-every", 10, 1)?;
    let eval = given.eval(log_every)?;
    let checkpoint_every = match given.get("checkpoint-every") {
        None => None,
        Some(_) => Some(given.count("checkpoint-every", 1, 1)?),
    };
    let checkpoint_dir = given.checkpoint_dir()?;
    let after = match given.get("after") {
        None => None,
        Some((f, s)) => {
            function(&f, "after", s)?;
            Some(f)
        }
    };
    Ok(RunSpec {
        name: name.to_string(),
        span,
        seed: given.count("seed", 0, 0)?,
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

/// Evaluates each `:key value` pair in order; an unknown key, a key without
/// a value or a key given twice is `E-RUN-002` before anything after it runs.
fn evaluate_options(
    interp: &mut Interp,
    rest: &[Form],
    env: &Env,
) -> EvalResult<Vec<(&'static str, Value, Span)>> {
    let mut given: Vec<(&'static str, Value, Span)> = Vec::new();
    for pair in rest.chunks(2) {
        let key_form = &pair[0];
        let FormKind::Keyword(key) = &key_form.kind else {
            return Err(malformed("defrun", USAGE, key_form.span));
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
        let Some(value_form) = pair.get(1) else {
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
    }
    Ok(given)
}

/// The evaluated options of one `defrun`, with the run's name and form for
/// messages about a missing one.
struct Given<'a> {
    name: &'a str,
    span: Span,
    options: Vec<(&'static str, Value, Span)>,
}

impl Given<'_> {
    fn get(&self, key: &str) -> Option<(Value, Span)> {
        self.options
            .iter()
            .find(|(k, _, _)| *k == key)
            .map(|(_, v, s)| (v.clone(), *s))
    }

    /// An option the run cannot do without.
    fn required(&self, key: &str) -> EvalResult<(Value, Span)> {
        self.get(key).ok_or_else(|| {
            run_error(
                codes::E_RUN_002,
                format!("defrun `{}` has no `:{key}`", self.name),
                self.span,
            )
            .with_help(format!("write it as `{USAGE}`"))
            .into()
        })
    }

    /// A count of at least `min`, `default` when not given.
    fn count(&self, key: &str, default: u64, min: u64) -> EvalResult<u64> {
        match self.get(key) {
            None => Ok(default),
            Some((Value::Int(n), _)) if n >= min as i64 => Ok(n as u64),
            Some((v, s)) => {
                let wanted = format!("an integer of at least {min}");
                Err(wrong_option(key, &wanted, quoted(&v), s).into())
            }
        }
    }

    /// `:model`: the init graph a `defmodel` call returned.
    fn model(&self) -> EvalResult<Rc<GraphDef>> {
        let (model, model_span) = self.required("model")?;
        let Value::Graph(model) = model else {
            return Err(wrong_option(
                "model",
                "a call of a `defmodel`",
                model.type_name(),
                model_span,
            )
            .with_help(
                "define the model with `(defmodel mlp [i h o] {...})` and write `:model (mlp 4 8 2)`",
            )
            .into());
        };
        Ok(model)
    }

    /// `:eval` with its `:eval-data` (read in order) and `:eval-every`
    /// (every logging window by default).
    fn eval(&self, log_every: u64) -> EvalResult<Option<EvalSpec>> {
        let Some((f, f_span)) = self.get("eval") else {
            return Ok(None);
        };
        function(&f, "eval", f_span)?;
        let (data, d_span) = self.get("eval-data").ok_or_else(|| {
            run_error(
                codes::E_RUN_002,
                "defrun: `:eval` needs `:eval-data`",
                f_span,
            )
        })?;
        Ok(Some(EvalSpec {
            function: f,
            span: f_span,
            data: Batches::from_value(&data, d_span)?.in_order(),
            data_span: d_span,
            every: self.count("eval-every", log_every, 1)?,
        }))
    }

    /// `:checkpoint "dir"`, or nil for none.
    fn checkpoint_dir(&self) -> EvalResult<Option<String>> {
        match self.get("checkpoint") {
            None | Some((Value::Nil, _)) => Ok(None),
            Some((Value::Str(dir), _)) => Ok(Some(dir.to_string())),
            Some((other, s)) => {
                Err(wrong_option("checkpoint", "a directory name", quoted(&other), s).into())
            }
        }
    }
}

fn function(value: &Value, key: &str, span: Span) -> EvalResult<()> {
    match value {
        Value::Fn(_) | Value::Builtin { .. } => Ok(()),
        other => Err(wrong_option(key, "a function", other.type_name(), span).into()),
    }
}

/// `E-RUN-002`: the option `:key` is not what it must be, `wanted`.
fn wrong_option(key: &str, wanted: &str, got: impl std::fmt::Display, span: Span) -> Diagnostic {
    run_error(
        codes::E_RUN_002,
        format!("defrun: `:{key}` must be {wanted}, got {got}"),
        span,
    )
}

/// A value as a message shows it: short, in backquotes.
fn quoted(value: &Value) -> String {
    format!("`{}`", crate::value::short(value))
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
        _ => Err(wrong_option(
            "optimizer",
            "an optimizer such as `(nn/adamw :lr 1e-3)`",
            quoted(value),
            span,
        )
        .with_note("an optimizer is a map with `:init`, `:hyper` and `:update` functions")
        .into()),
    }
}
