//! Printing the syntax tree back as ShapeScript text: `Display` for types,
//! shapes, sizes and expressions (minimal parentheses, for messages and
//! hovers), and `dump`, an indented outline of a whole file with every
//! operator parenthesised (for snapshot tests). Never prints spans or diagnostics.

use crate::ast::*;
use std::fmt::{self, Display, Formatter, Write};

impl Display for Path {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if let Some(file) = &self.file {
            write!(f, "{}.", file.name)?;
        }
        f.write_str(&self.name.name)
    }
}

fn size_precedence(size: &SizeExpr) -> u8 {
    match &size.kind {
        SizeExprKind::Binary {
            op: SizeOp::Add | SizeOp::Sub,
            ..
        } => 1,
        SizeExprKind::Binary {
            op: SizeOp::Pow, ..
        } => 3,
        SizeExprKind::Binary { .. } => 2,
        _ => 4,
    }
}

/// Whether `lhs op rhs` is a unary minus, `-rhs`: the parser writes it as
/// `0 - rhs` with a `0` that covers no text.
pub fn is_negation(op: SizeOp, lhs: &SizeExpr) -> bool {
    op == SizeOp::Sub
        && lhs.span.start == lhs.span.end
        && matches!(&lhs.kind, SizeExprKind::Int(v) if v.get() == 0)
}

/// Whether a size, as printed, starts with `-`.
fn starts_with_sign(size: &SizeExpr) -> bool {
    match &size.kind {
        SizeExprKind::Binary { op, operands } => {
            is_negation(*op, &operands.0) || starts_with_sign(&operands.0)
        }
        _ => false,
    }
}

fn write_size_operand(f: &mut Formatter<'_>, size: &SizeExpr, parens: bool) -> fmt::Result {
    // This recursion follows the size's depth: grow the stack when needed.
    crate::depth::ensure_sufficient_stack(|| write_size_operand_here(f, size, parens))
}

fn write_size_operand_here(f: &mut Formatter<'_>, size: &SizeExpr, parens: bool) -> fmt::Result {
    if parens {
        write!(f, "({size})")
    } else {
        write!(f, "{size}")
    }
}

/// `+` and `-` are spaced and `*` and `/` are tight, as in `(H + 2*P - kh)/S + 1`.
impl Display for SizeExpr {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match &self.kind {
            SizeExprKind::Int(value) => write!(f, "{value}"),
            SizeExprKind::Name(name) => f.write_str(&name.name),
            SizeExprKind::Qualified(path) => write!(f, "{path}"),
            SizeExprKind::Unknown(name) => write!(f, "?{}", name.name),
            SizeExprKind::Binary { op, operands } => {
                let (lhs, rhs) = &**operands;
                let precedence = size_precedence(self);
                if is_negation(*op, lhs) {
                    // `-x`, parsed as `0 - x` with an empty `0`.
                    f.write_str("-")?;
                    return write_size_operand(f, rhs, size_precedence(rhs) <= precedence);
                }
                // `**` groups to the right: `2**3**2` is `2**(3**2)`.
                let pow = *op == SizeOp::Pow;
                write_size_operand(f, lhs, size_precedence(lhs) < precedence + u8::from(pow))?;
                match op {
                    SizeOp::Add | SizeOp::Sub => write!(f, " {} ", op.as_str())?,
                    SizeOp::Mul | SizeOp::Div | SizeOp::Pow => f.write_str(op.as_str())?,
                }
                write_size_operand(f, rhs, size_precedence(rhs) < precedence + u8::from(!pow))
            }
            SizeExprKind::Error => f.write_str("{error}"),
        }
    }
}

impl Display for Axis {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match &self.kind {
            // A size that starts with a sign is written in parentheses (E0109).
            AxisKind::Size(size) if starts_with_sign(size) => write!(f, "({size})"),
            AxisKind::Size(size) => write!(f, "{size}"),
            AxisKind::Group(axes) => {
                f.write_str("(")?;
                write_axes(f, axes)?;
                f.write_str(")")
            }
            AxisKind::Grouped { factor, name } => write!(f, "{factor}{}", name.name),
            AxisKind::Rest => f.write_str("..."),
        }
    }
}

fn write_axes(f: &mut Formatter<'_>, axes: &[Axis]) -> fmt::Result {
    for (i, axis) in axes.iter().enumerate() {
        if i > 0 {
            f.write_str(" ")?;
        }
        write!(f, "{axis}")?;
    }
    Ok(())
}

impl Display for ShapeList {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        write_axes(f, &self.axes)?;
        f.write_str("]")
    }
}

impl Display for Shape {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Shape::List(list) => write!(f, "{list}"),
            Shape::Alias(path) => write!(f, "{path}"),
        }
    }
}

impl<S: Display> Display for DomainKind<S> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DomainKind::Real => "Real",
            DomainKind::NonNeg => "NonNeg",
            DomainKind::Pos => "Pos",
            DomainKind::NonPos => "NonPos",
            DomainKind::Neg => "Neg",
            DomainKind::Unit => "Unit",
            DomainKind::Signed => "Signed",
            DomainKind::Bool => "Bool",
            DomainKind::Index(size) => return write!(f, "Index[{size}]"),
        })
    }
}

impl Display for Type {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match &self.kind {
            TypeKind::Tensor {
                shape,
                domain,
                dtype,
            } => {
                let mut parts: Vec<String> = Vec::with_capacity(3);
                if let Some(shape) = shape {
                    parts.push(shape.to_string());
                }
                if let Some(domain) = domain {
                    parts.push(domain.kind.to_string());
                }
                if let Some(dtype) = dtype {
                    parts.push(dtype.kind.as_str().to_string());
                }
                f.write_str(&parts.join(" "))
            }
            TypeKind::Scalar(scalar) => f.write_str(match scalar.kind {
                ScalarKind::Int => "Int",
                ScalarKind::Float => "Float",
                ScalarKind::Bool => "Bool",
            }),
            TypeKind::Named { path, args } => {
                write!(f, "{path}")?;
                if !args.is_empty() {
                    f.write_str("(")?;
                    for (i, arg) in args.iter().enumerate() {
                        if i > 0 {
                            f.write_str(", ")?;
                        }
                        write!(f, "{arg}")?;
                    }
                    f.write_str(")")?;
                }
                Ok(())
            }
            TypeKind::Stack { count, elem } => write!(f, "[{count}] {elem}"),
            TypeKind::Tuple(types) => {
                f.write_str("(")?;
                for (i, ty) in types.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{ty}")?;
                }
                if types.len() == 1 {
                    f.write_str(",")?;
                }
                f.write_str(")")
            }
            TypeKind::Axis(size) => write!(f, "Axis[{size}]"),
            TypeKind::Axes(size) => write!(f, "Axes[{size}]"),
            TypeKind::Size(size) => write!(f, "Size[{size}]"),
            TypeKind::Error => f.write_str("{error}"),
        }
    }
}

// ------------------------------------------------------------ expressions

const PREC_NOT: u8 = 3;
const PREC_NEG: u8 = 8;
const PREC_POW: u8 = 9;
const PREC_CAST: u8 = 10;
const PREC_POSTFIX: u8 = 11;

fn binary_precedence(op: BinaryOp) -> u8 {
    match op {
        BinaryOp::Or => 1,
        BinaryOp::And => 2,
        BinaryOp::Eq | BinaryOp::Ne | BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge => {
            4
        }
        BinaryOp::Add | BinaryOp::Sub => 5,
        BinaryOp::Mul | BinaryOp::Div => 6,
        BinaryOp::MatMul => 7,
        BinaryOp::Pow => PREC_POW,
    }
}

fn expr_precedence(expr: &Expr) -> u8 {
    match &expr.kind {
        ExprKind::Binary { op, .. } => binary_precedence(*op),
        ExprKind::Unary {
            op: UnaryOp::Not, ..
        } => PREC_NOT,
        ExprKind::Unary {
            op: UnaryOp::Neg, ..
        } => PREC_NEG,
        ExprKind::Cast { .. } => PREC_CAST,
        _ => 12,
    }
}

/// Writes expressions; `all_parens` wraps every operator for structural snapshots.
struct ExprWriter {
    all_parens: bool,
}

impl ExprWriter {
    fn operand(&self, out: &mut String, expr: &Expr, parens: bool) {
        if parens {
            out.push('(');
            self.expr(out, expr);
            out.push(')');
        } else {
            self.expr(out, expr);
        }
    }

    fn expr(&self, out: &mut String, expr: &Expr) {
        let operator = matches!(
            expr.kind,
            ExprKind::Binary { .. } | ExprKind::Unary { .. } | ExprKind::Cast { .. }
        );
        if self.all_parens && operator {
            out.push('(');
        }
        // This recursion follows the tree's depth: grow the stack when needed.
        crate::depth::ensure_sufficient_stack(|| self.expr_inner(out, expr));
        if self.all_parens && operator {
            out.push(')');
        }
    }

    fn expr_inner(&self, out: &mut String, expr: &Expr) {
        let precedence = expr_precedence(expr);
        match &expr.kind {
            ExprKind::Int(value) => write!(out, "{value}").unwrap_or(()),
            ExprKind::Float(value) => write!(out, "{value:?}").unwrap_or(()),
            ExprKind::Str(value) => write!(out, "{value:?}").unwrap_or(()),
            ExprKind::Bool(value) => out.push_str(if *value { "true" } else { "false" }),
            ExprKind::None => out.push_str("none"),
            ExprKind::Name(name) => out.push_str(&name.name),
            ExprKind::Field { base, name } => {
                self.operand(out, base, expr_precedence(base) < PREC_POSTFIX);
                out.push('.');
                out.push_str(&name.name);
            }
            ExprKind::Call { callee, args } => self.call(out, callee, args),
            ExprKind::Index { base, indices } => {
                self.operand(out, base, expr_precedence(base) < PREC_POSTFIX);
                out.push('[');
                comma_separated(out, indices, |out, index| self.index(out, index));
                out.push(']');
            }
            ExprKind::Unary { op, operand } => {
                let (text, min) = match op {
                    UnaryOp::Neg => ("-", PREC_NEG),
                    UnaryOp::Not => ("not ", PREC_NOT),
                };
                out.push_str(text);
                self.operand(
                    out,
                    operand,
                    !self.all_parens && expr_precedence(operand) < min,
                );
            }
            ExprKind::Binary { op, lhs, rhs } => self.binary(out, *op, lhs, rhs, precedence),
            ExprKind::Cast {
                kind,
                expr: inner,
                ty,
            } => {
                self.operand(
                    out,
                    inner,
                    !self.all_parens && expr_precedence(inner) < PREC_CAST,
                );
                write!(out, " {} {ty}", kind.as_str()).unwrap_or(());
            }
            ExprKind::Tuple(items) => self.tuple(out, items),
            ExprKind::AxisGroup(names) => {
                out.push('(');
                for (i, name) in names.iter().enumerate() {
                    if i > 0 {
                        out.push(' ');
                    }
                    out.push_str(&name.name);
                }
                out.push(')');
            }
            ExprKind::Pattern(pattern) => {
                comma_separated(out, &pattern.lhs, |out, shape| {
                    write!(out, "{shape}").unwrap_or(())
                });
                write!(out, " -> {}", pattern.rhs).unwrap_or(());
            }
            ExprKind::Shape(shape) => write!(out, "{shape}").unwrap_or(()),
            ExprKind::Error => out.push_str("{error}"),
        }
    }

    /// A call: the callee, then the arguments with their keywords.
    fn call(&self, out: &mut String, callee: &Expr, args: &[Arg]) {
        self.operand(out, callee, expr_precedence(callee) < PREC_POSTFIX);
        out.push('(');
        comma_separated(out, args, |out, arg| {
            if let Some(name) = &arg.name {
                out.push_str(&name.name);
                out.push('=');
            }
            self.expr(out, &arg.value);
        });
        out.push(')');
    }

    /// A binary operation, with the parentheses its operands need (`**`
    /// groups to the right, every other operator to the left).
    fn binary(&self, out: &mut String, op: BinaryOp, lhs: &Expr, rhs: &Expr, precedence: u8) {
        let (lhs_parens, rhs_parens) = if op == BinaryOp::Pow {
            (
                expr_precedence(lhs) <= precedence,
                expr_precedence(rhs) < PREC_NEG,
            )
        } else {
            (
                expr_precedence(lhs) < precedence,
                expr_precedence(rhs) <= precedence,
            )
        };
        self.operand(out, lhs, !self.all_parens && lhs_parens);
        write!(out, " {} ", op.as_str()).unwrap_or(());
        self.operand(out, rhs, !self.all_parens && rhs_parens);
    }

    /// A tuple; one item takes a trailing comma.
    fn tuple(&self, out: &mut String, items: &[Expr]) {
        out.push('(');
        comma_separated(out, items, |out, item| self.expr(out, item));
        if items.len() == 1 {
            out.push(',');
        }
        out.push(')');
    }

    fn index(&self, out: &mut String, index: &IndexArg) {
        match index {
            IndexArg::Expr(expr) => self.expr(out, expr),
            IndexArg::Slice {
                start, end, step, ..
            } => {
                if let Some(start) = start {
                    self.expr(out, start);
                }
                out.push(':');
                if let Some(end) = end {
                    self.expr(out, end);
                }
                if let Some(step) = step {
                    out.push(':');
                    self.expr(out, step);
                }
            }
            IndexArg::Ellipsis(_) => out.push_str("..."),
            IndexArg::List { items, .. } => {
                out.push('[');
                comma_separated(out, items, |out, item| self.expr(out, item));
                out.push(']');
            }
        }
    }
}

/// `items`, each written by `write`, separated by `, `.
fn comma_separated<T>(out: &mut String, items: &[T], mut write: impl FnMut(&mut String, &T)) {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write(out, item);
    }
}

impl Display for Expr {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        ExprWriter { all_parens: false }.expr(&mut out, self);
        f.write_str(&out)
    }
}

// ------------------------------------------------------------ outline

/// An indented outline of a file: one line per declaration, member and
/// statement, expressions with every operator parenthesised.
pub fn dump(file: &File) -> String {
    let mut dumper = Dumper {
        out: String::new(),
        writer: ExprWriter { all_parens: true },
    };
    for item in &file.items {
        dumper.item(item);
    }
    dumper.out
}

struct Dumper {
    out: String,
    writer: ExprWriter,
}

impl Dumper {
    fn line(&mut self, indent: usize, text: &str) {
        for _ in 0..indent {
            self.out.push_str("  ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    fn expr(&self, expr: &Expr) -> String {
        let mut out = String::new();
        self.writer.expr(&mut out, expr);
        out
    }

    fn doc(&mut self, indent: usize, doc: Option<&Doc>) {
        if let Some(doc) = doc {
            self.line(indent, &format!("doc {:?}", doc.text));
        }
    }

    fn item(&mut self, item: &Item) {
        self.doc(0, item.doc());
        match item {
            Item::Import(import) => self.line(0, &format!("import {}", import.name.name)),
            Item::Dim(dim) => {
                let value = match &dim.value {
                    DimValue::Size(size) => size.to_string(),
                    DimValue::Alias(shape) => shape.to_string(),
                };
                self.line(0, &format!("dim {} = {value}", dim.name.name));
            }
            Item::ExternFn(f) => {
                let mut text = format!("extern fn {}{}", f.name.name, self.params(None, &f.params));
                if let Some(ret) = &f.ret {
                    write!(text, " -> {ret}").unwrap_or(());
                }
                if let Some(python) = &f.python {
                    write!(text, " = {:?}", python.value).unwrap_or(());
                }
                self.line(0, &text);
            }
            Item::Fn(f) => self.function(0, f),
            Item::Model(model) => {
                let mut text = format!("model {}", model.name.name);
                if !model.size_params.is_empty() {
                    let names: Vec<&str> =
                        model.size_params.iter().map(|p| p.name.as_str()).collect();
                    write!(text, "({})", names.join(", ")).unwrap_or(());
                }
                self.line(0, &text);
                for field in &model.fields {
                    self.field(field);
                }
                for method in &model.methods {
                    self.doc(1, method.doc.as_deref());
                    self.function(1, method);
                }
            }
            Item::Record(record) => {
                self.line(0, &format!("record {}", record.name.name));
                for field in &record.fields {
                    self.field(field);
                }
            }
        }
    }

    fn params(&self, self_param: Option<diag::Span>, params: &[Param]) -> String {
        let mut parts = Vec::new();
        if self_param.is_some() {
            parts.push("self".to_string());
        }
        for param in params {
            let mut text = format!("{}: {}", param.name.name, param.ty);
            if let Some(default) = &param.default {
                write!(text, " = {}", self.expr(default)).unwrap_or(());
            }
            parts.push(text);
        }
        format!("({})", parts.join(", "))
    }

    fn field(&mut self, field: &Field) {
        self.doc(1, field.doc.as_deref());
        let kind = if field.buffer { "buffer" } else { "field" };
        let mut text = format!("{kind} {}: {}", field.name.name, field.ty);
        if let Some(init) = &field.init {
            write!(text, " = {}", self.expr(init)).unwrap_or(());
        }
        self.line(1, &text);
    }

    fn function(&mut self, indent: usize, f: &Fn) {
        let mut text = format!("fn {}{}", f.name.name, self.params(f.self_param, &f.params));
        if let Some(ret) = &f.ret {
            write!(text, " -> {ret}").unwrap_or(());
        }
        match &f.body {
            FnBody::Expr(expr) => {
                write!(text, " = {}", self.expr(expr)).unwrap_or(());
                self.line(indent, &text);
            }
            FnBody::Block(block) => {
                self.line(indent, &text);
                self.block(indent + 1, block);
            }
        }
    }

    fn block(&mut self, indent: usize, block: &Block) {
        for stmt in &block.stmts {
            self.stmt(indent, stmt);
        }
    }

    fn stmt(&mut self, indent: usize, stmt: &Stmt) {
        match &stmt.kind {
            StmtKind::Let { name, ty, value } => {
                let ty = ty.as_ref().map_or(String::new(), |ty| format!(": {ty}"));
                let text = format!("let {}{ty} = {}", name.name, self.expr(value));
                self.line(indent, &text);
            }
            StmtKind::LetTuple { names, value } => {
                let names: Vec<&str> = names.iter().map(|n| n.name.as_str()).collect();
                let text = format!("let ({}) = {}", names.join(", "), self.expr(value));
                self.line(indent, &text);
            }
            StmtKind::Assign { name, value } => {
                let text = format!("{} = {}", name.name, self.expr(value));
                self.line(indent, &text);
            }
            StmtKind::Return(value) => {
                let text = format!("return {}", self.expr(value));
                self.line(indent, &text);
            }
            StmtKind::If {
                cond,
                then_block,
                else_block,
            } => {
                let text = format!("if {}", self.expr(cond));
                self.line(indent, &text);
                self.block(indent + 1, then_block);
                if let Some(else_block) = else_block {
                    self.line(indent, "else");
                    self.block(indent + 1, else_block);
                }
            }
            StmtKind::For { var, iter, body } => {
                let text = format!("for {} in {}", var.name, self.expr(iter));
                self.line(indent, &text);
                self.block(indent + 1, body);
            }
            StmtKind::Expr(expr) => {
                let text = self.expr(expr);
                self.line(indent, &text);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::ast::*;
    use diag::FileId;
    use expect_test::{expect, Expect};

    /// Parses `fn f(x: TYPE) = EXPR` and shows the type's axes one per line
    /// with their kind and text, then the type and expression as `Display` writes them.
    fn check(ty: &str, expr: &str, expect: Expect) {
        let src = format!("fn f(x: {ty}) = {expr}");
        let parsed = crate::parse(FileId(0), &src);
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        let Some(Item::Fn(f)) = parsed.file.items.first() else {
            panic!("not a fn: {src}")
        };
        let param = &f.params[0];
        let mut out = String::new();
        if let TypeKind::Tensor {
            shape: Some(Shape::List(list)),
            ..
        } = &param.ty.kind
        {
            for axis in &list.axes {
                let kind = match &axis.kind {
                    AxisKind::Size(_) => "size",
                    AxisKind::Group(_) => "group",
                    AxisKind::Grouped { .. } => "grouped",
                    AxisKind::Rest => "rest",
                };
                let text = &src[axis.span.start as usize..axis.span.end as usize];
                out.push_str(&format!("{kind} {text:?} => {axis}\n"));
            }
        }
        let FnBody::Expr(body) = &f.body else {
            panic!("not an expression body")
        };
        out.push_str(&format!("type: {}\nexpr: {body}\n", param.ty));
        expect.assert_eq(&out);
    }

    #[test]
    fn conv_output_has_four_axes() {
        check(
            "[b Cout (H + 2*P - kh)/S + 1 (W + 2*P - kw)/S + 1]",
            "x",
            expect![[r#"
                size "b" => b
                size "Cout" => Cout
                size "(H + 2*P - kh)/S + 1" => (H + 2*P - kh)/S + 1
                size "(W + 2*P - kw)/S + 1" => (W + 2*P - kw)/S + 1
                type: [b Cout (H + 2*P - kh)/S + 1 (W + 2*P - kw)/S + 1]
                expr: x
            "#]],
        );
    }

    #[test]
    fn groups_grouped_sizes_and_rest() {
        check(
            "[... (gh 16) 16gh (16 gh) 16 gh ?k vision.D (n) (a - (b - c))*2] Index[N] i32",
            "x",
            expect![[r#"
                rest "..." => ...
                group "(gh 16)" => (gh 16)
                grouped "16gh" => 16gh
                group "(16 gh)" => (16 gh)
                size "16" => 16
                size "gh" => gh
                size "?k" => ?k
                size "vision.D" => vision.D
                size "(n)" => n
                size "(a - (b - c))*2" => (a - (b - c))*2
                type: [... (gh 16) 16gh (16 gh) 16 gh ?k vision.D n (a - (b - c))*2] Index[N] i32
                expr: x
            "#]],
        );
    }

    #[test]
    fn expressions_print_with_minimal_parentheses() {
        check(
            "Real",
            "-(a + b) * c ** -d @ (e - (f - g)) + not_a(x)[1:, ::2].y as [n] Unit or not (p and q) == r",
            expect![[r#"
                type: Real
                expr: -(a + b) * c ** -d @ (e - (f - g)) + not_a(x)[1:, ::2].y as [n] Unit or not (p and q) == r
            "#]],
        );
        check(
            "(Int, [n] bool,)",
            "(-x) ** 2 + (a ** b) ** c + (x as Real) to f32 + f(over=(n D), p=[a] -> [a], s=[n]) + (1,)",
            expect![[r#"
                type: (Int, [n] bool)
                expr: (-x) ** 2 + (a ** b) ** c + x as Real to f32 + f(over=(n D), p=[a] -> [a], s=[n]) + (1,)
            "#]],
        );
    }
}
