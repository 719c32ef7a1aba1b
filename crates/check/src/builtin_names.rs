//! The one table of built-in operation names: `Builtin`, a variant per
//! built-in, which the checker's typing rules (`builtins`, `pattern`), the
//! typed bodies (`typed::Callee::Builtin`), the generated `builtins.ss`, the
//! Python generator and the docs' lists all go by. Names only; the rules
//! live in `builtins`.

/// Declares `Builtin` with one variant per built-in and its name.
macro_rules! builtins {
    ($($variant:ident = $name:literal,)*) => {
        /// A built-in operation (docs/shapescript/broadcasting.md,
        /// docs/shapescript/patterns.md). The checker types each by its own
        /// rule; `pygen` matches on it exhaustively, so a built-in the checker
        /// accepts but the generator can't emit fails to compile.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Builtin {
            $($variant,)*
        }

        impl Builtin {
            /// Every built-in, in the order `builtins.ss` lists them.
            pub const ALL: &'static [Builtin] = &[$(Builtin::$variant,)*];

            /// The name it is called by.
            pub fn name(self) -> &'static str {
                match self {
                    $(Builtin::$variant => $name,)*
                }
            }

            /// The built-in called `name` (not `range`, which only goes after
            /// `for ... in`).
            pub fn from_name(name: &str) -> Option<Builtin> {
                match name {
                    $($name => Some(Builtin::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

builtins! {
    Sum = "sum",
    Mean = "mean",
    Prod = "prod",
    Max = "max",
    Min = "min",
    Logsumexp = "logsumexp",
    Var = "var",
    Std = "std",
    Any = "any",
    All = "all",
    Argmax = "argmax",
    Argmin = "argmin",
    Softmax = "softmax",
    LogSoftmax = "log_softmax",
    Cumsum = "cumsum",
    Sort = "sort",
    Topk = "topk",
    Where = "where",
    Abs = "abs",
    Sign = "sign",
    Clamp = "clamp",
    Maximum = "maximum",
    Minimum = "minimum",
    Concat = "concat",
    Stack = "stack",
    Split = "split",
    Take = "take",
    OneHot = "one_hot",
    Zeros = "zeros",
    Ones = "ones",
    Full = "full",
    Arange = "arange",
    Eye = "eye",
    Tril = "tril",
    Triu = "triu",
    Rearrange = "rearrange",
    Reduce = "reduce",
    Repeat = "repeat",
    Einsum = "einsum",
}

impl std::fmt::Display for Builtin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
