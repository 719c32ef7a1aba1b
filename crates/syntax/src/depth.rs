//! How deeply a syntax tree may nest. Brackets are bounded while parsing,
//! but operator chains (`x + x + ...`), postfix chains (`x[0][0]...`),
//! casts and size arithmetic are built in loops and could nest without
//! bound. Every later walk over a tree (the checker, code generation, the
//! language server, the printer, even dropping it) recurses over its nodes,
//! so the parser cuts any expression, type or size nested deeper than
//! `MAX_TREE_DEPTH` and reports it (`docs/shapescript/functions.md`). Measuring
//! and cutting never recurse over the chains themselves.

use crate::ast::{
    Axis, AxisKind, DomainKind, Expr, ExprKind, IndexArg, Shape, ShapeList, SizeExpr, SizeExprKind,
    Type, TypeKind,
};
use diag::Span;

/// The most levels of operators, calls, indexing, fields, casts and size
/// arithmetic one expression, type or size may nest. Far above what a
/// program needs, and below what Python compiles (about 1,000 levels).
pub const MAX_TREE_DEPTH: usize = 256;

/// How much stack a walk wants left before it recurses one more level.
const RED_ZONE: usize = 256 * 1024;

/// How much stack is added when less than `RED_ZONE` is left.
const STACK_PER_SEGMENT: usize = 4 * 1024 * 1024;

/// Runs `f`, on a new segment of stack when little is left. A recursive
/// walk over a syntax tree calls it once per level (as rustc's
/// `ensure_sufficient_stack`): trees are at most `MAX_TREE_DEPTH` deep, but
/// one level of checking or code generation can take several kilobytes of
/// stack in a debug build, and threads (a test's, the language server's)
/// may have as little as 2 MiB.
#[inline]
pub fn ensure_sufficient_stack<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(RED_ZONE, STACK_PER_SEGMENT, f)
}

/// A node that counts as one level of nesting.
enum Node<'a> {
    Expr(&'a mut Expr),
    Type(&'a mut Type),
    Size(&'a mut SizeExpr),
}

impl Node<'_> {
    fn span(&self) -> Span {
        match self {
            Node::Expr(expr) => expr.span,
            Node::Type(ty) => ty.span,
            Node::Size(size) => size.span,
        }
    }

    /// The same node, borrowed for a shorter while.
    fn reborrow(&mut self) -> Node<'_> {
        match self {
            Node::Expr(expr) => Node::Expr(expr),
            Node::Type(ty) => Node::Type(ty),
            Node::Size(size) => Node::Size(size),
        }
    }
}

/// A subtree taken out of a tree that was too deep, dropped level by level.
enum Owned {
    Expr(Expr),
    Type(Type),
    Size(SizeExpr),
}

/// What parsing produced that the depth bound applies to as a whole.
pub(crate) enum Root<'a> {
    Expr(&'a mut Expr),
    Type(&'a mut Type),
    Size(&'a mut SizeExpr),
    /// A `dim Name = [...]` alias: each axis is bounded on its own, so a
    /// too-deep axis keeps its place (the rank stays right).
    Shape(&'a mut ShapeList),
}

/// The trees the parser bounds as a whole, each with the word its message uses.
pub(crate) trait Bounded {
    const WHAT: &'static str;
    /// The help line of the diagnostic for a tree too deep.
    const HELP: &'static str = "write the size with fewer operators (`3*n` for `n + n + n`), or name parts of it with `dim`";
    fn root(&mut self) -> Root<'_>;
}

impl Bounded for Expr {
    const WHAT: &'static str = "an expression";
    const HELP: &'static str = "split it into steps with `let`";
    fn root(&mut self) -> Root<'_> {
        Root::Expr(self)
    }
}

/// The trees with the default help: each its root's variant and its word.
macro_rules! bounded {
    ($($tree:ident: $root:ident, $what:literal;)*) => {$(
        impl Bounded for $tree {
            const WHAT: &'static str = $what;
            fn root(&mut self) -> Root<'_> {
                Root::$root(self)
            }
        }
    )*};
}

bounded! {
    Type: Type, "a type";
    SizeExpr: Size, "a size";
    ShapeList: Shape, "a size";
}

/// Replaces a root nested deeper than `MAX_TREE_DEPTH` with an error node
/// (an axis of a shape list: with an error size) and returns the span of the
/// first part replaced. The tree is taken apart without recursion.
pub(crate) fn cut_too_deep(root: Root<'_>) -> Option<Span> {
    match root {
        Root::Expr(expr) => cut(Node::Expr(expr)),
        Root::Type(ty) => cut(Node::Type(ty)),
        Root::Size(size) => cut(Node::Size(size)),
        Root::Shape(list) => {
            let mut first = None;
            for_each_size(&mut list.axes, &mut |size| {
                let cut = cut(Node::Size(size));
                first = first.or(cut);
            });
            first
        }
    }
}

/// `cut_too_deep` for one tree.
fn cut(mut node: Node<'_>) -> Option<Span> {
    if depth_at_most(node.reborrow(), MAX_TREE_DEPTH) {
        return None;
    }
    let span = node.span();
    dismantle(take(node));
    Some(span)
}

/// Whether the tree under `root` is at most `limit` levels deep, by an
/// explicit stack; stops at the first path that goes deeper.
fn depth_at_most(root: Node<'_>, limit: usize) -> bool {
    // Each level's span is strictly inside its parent's (only error leaves
    // are empty), so a short tree needs no walk: most trees are short.
    if (root.span().len() as usize) < limit {
        return true;
    }
    let mut stack = vec![(root, 1usize)];
    let mut children = Vec::new();
    while let Some((node, depth)) = stack.pop() {
        if depth > limit {
            return false;
        }
        push_children(node, &mut children);
        stack.extend(children.drain(..).map(|child| (child, depth + 1)));
    }
    true
}

/// Drops a tree one level at a time: each node's counted children are taken
/// out (leaving error leaves) before the node itself is dropped.
fn dismantle(root: Owned) {
    let mut stack = vec![root];
    while let Some(mut owned) = stack.pop() {
        let mut children = Vec::new();
        let node = match &mut owned {
            Owned::Expr(expr) => Node::Expr(expr),
            Owned::Type(ty) => Node::Type(ty),
            Owned::Size(size) => Node::Size(size),
        };
        push_children(node, &mut children);
        stack.extend(children.drain(..).map(take));
        drop(owned);
    }
}

/// Moves a child out of its tree, leaving an error leaf with its span.
fn take(node: Node<'_>) -> Owned {
    let span = node.span();
    match node {
        Node::Expr(expr) => Owned::Expr(std::mem::replace(expr, Expr::error(span))),
        Node::Type(ty) => Owned::Type(std::mem::replace(ty, Type::error(span))),
        Node::Size(size) => Owned::Size(std::mem::replace(size, SizeExpr::error(span))),
    }
}

/// The counted nodes directly below `node` (through arguments, shapes and
/// the like, which do not count as levels).
fn push_children<'a>(node: Node<'a>, out: &mut Vec<Node<'a>>) {
    match node {
        Node::Expr(expr) => expr_children(expr, out),
        Node::Type(ty) => type_children(ty, out),
        Node::Size(size) => {
            if let SizeExprKind::Binary { operands, .. } = &mut size.kind {
                let (lhs, rhs) = &mut **operands;
                out.push(Node::Size(lhs));
                out.push(Node::Size(rhs));
            }
        }
    }
}

/// `push_children` for an expression.
fn expr_children<'a>(expr: &'a mut Expr, out: &mut Vec<Node<'a>>) {
    match &mut expr.kind {
        ExprKind::Field { base, .. } => out.push(Node::Expr(base)),
        ExprKind::Call { callee, args } => {
            out.push(Node::Expr(callee));
            out.extend(args.iter_mut().map(|arg| Node::Expr(&mut arg.value)));
        }
        ExprKind::Index { base, indices } => {
            out.push(Node::Expr(base));
            for index in indices {
                match index {
                    IndexArg::Expr(expr) => out.push(Node::Expr(expr)),
                    IndexArg::Slice {
                        start, end, step, ..
                    } => {
                        let bounds = [start, end, step];
                        out.extend(bounds.into_iter().flatten().map(|b| Node::Expr(b)));
                    }
                    IndexArg::Ellipsis(_) => {}
                    IndexArg::List { items, .. } => out.extend(items.iter_mut().map(Node::Expr)),
                }
            }
        }
        ExprKind::Unary { operand, .. } => out.push(Node::Expr(operand)),
        ExprKind::Binary { lhs, rhs, .. } => {
            out.push(Node::Expr(lhs));
            out.push(Node::Expr(rhs));
        }
        ExprKind::Cast { expr, ty, .. } => {
            out.push(Node::Expr(expr));
            out.push(Node::Type(ty));
        }
        ExprKind::Tuple(items) => out.extend(items.iter_mut().map(Node::Expr)),
        ExprKind::Pattern(pattern) => {
            let pattern = &mut **pattern;
            for list in pattern.lhs.iter_mut().chain([&mut pattern.rhs]) {
                for_each_size(&mut list.axes, &mut |size| out.push(Node::Size(size)));
            }
        }
        ExprKind::Shape(list) => {
            for_each_size(&mut list.axes, &mut |size| out.push(Node::Size(size)));
        }
        ExprKind::Int(_)
        | ExprKind::Float(_)
        | ExprKind::Str(_)
        | ExprKind::Bool(_)
        | ExprKind::None
        | ExprKind::Name(_)
        | ExprKind::AxisGroup(_)
        | ExprKind::Error => {}
    }
}

/// `push_children` for a type.
fn type_children<'a>(ty: &'a mut Type, out: &mut Vec<Node<'a>>) {
    match &mut ty.kind {
        TypeKind::Tensor { shape, domain, .. } => {
            if let Some(Shape::List(list)) = shape {
                for_each_size(&mut list.axes, &mut |size| out.push(Node::Size(size)));
            }
            if let Some(domain) = domain {
                if let DomainKind::Index(size) = &mut domain.kind {
                    out.push(Node::Size(size));
                }
            }
        }
        TypeKind::Named { args, .. } => out.extend(args.iter_mut().map(Node::Size)),
        TypeKind::Stack { count, elem } => {
            out.push(Node::Size(count));
            out.push(Node::Type(elem));
        }
        TypeKind::Tuple(types) => out.extend(types.iter_mut().map(Node::Type)),
        TypeKind::Axis(size) | TypeKind::Axes(size) | TypeKind::Size(size) => {
            out.push(Node::Size(size));
        }
        TypeKind::Scalar(_) | TypeKind::Error => {}
    }
}

/// Calls `f` on every size among `axes`, inside groups too (groups nest only
/// as deep as brackets, which the parser bounds).
fn for_each_size<'a>(axes: &'a mut [Axis], f: &mut dyn FnMut(&'a mut SizeExpr)) {
    for axis in axes {
        match &mut axis.kind {
            AxisKind::Size(size) => f(size),
            AxisKind::Group(inner) => for_each_size(inner, f),
            AxisKind::Grouped { .. } | AxisKind::Rest => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ast::{BinaryOp, Ident, Name};
    use diag::FileId;

    /// `x + x + ... + x` with `n` names, spans as the parser gives them.
    fn chain(n: u32) -> Expr {
        let leaf = |at: u32| Expr {
            kind: ExprKind::Name(Ident {
                name: Name::new("x"),
                span: Span::new(FileId(0), at, at + 1),
            }),
            span: Span::new(FileId(0), at, at + 1),
        };
        let mut expr = leaf(0);
        for i in 1..n {
            expr = Expr {
                kind: ExprKind::Binary {
                    op: BinaryOp::Add,
                    lhs: Box::new(expr),
                    rhs: Box::new(leaf(4 * i)),
                },
                span: Span::new(FileId(0), 0, 4 * i + 1),
            };
        }
        expr
    }

    #[test]
    fn the_limit_is_inclusive() {
        let mut at_limit = chain(MAX_TREE_DEPTH as u32);
        assert_eq!(cut_too_deep(Root::Expr(&mut at_limit)), None);
        let mut over = chain(MAX_TREE_DEPTH as u32 + 1);
        assert!(cut_too_deep(Root::Expr(&mut over)).is_some());
        assert_eq!(over.kind, ExprKind::Error);
    }

    #[test]
    fn a_very_deep_tree_is_cut_and_dropped_without_recursion() {
        // Dropped the ordinary way, a chain this deep overflows the stack.
        let mut deep = chain(1_000_000);
        assert!(cut_too_deep(Root::Expr(&mut deep)).is_some());
        assert_eq!(deep.kind, ExprKind::Error);
    }
}
