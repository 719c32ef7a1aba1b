//! Function signatures: lowers each `fn` and `extern fn`'s parameter and
//! return types in one scope (parameter types introduce generic axes), and
//! checks the rules about a whole signature: parameters declared twice
//! (E0307), what only an `extern fn` may have (E0306), the `extern fn` rules
//! of `docs/shapescript/signatures.md` (E0308), and the grouped-size hint
//! H2201. Never checks bodies.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use syntax::Name;

use diag::{Diagnostic, FileId, Span};
use syntax::ast;

use crate::codes;
use crate::lower::{Env, Lowerer, Place};
use crate::per_file::PerFile;
use crate::size::Symbol;
use crate::types::{Axis, AxisKind, Ty, TyKind};

/// Every checked top-level signature, by (file, name): each file's in a
/// vector of their own, sized once, with a small table of places per file.
#[derive(Default, Debug)]
pub struct Signatures {
    /// By `FileId`'s number.
    files: Vec<Vec<Signature>>,
    places: PerFile<Name, u32>,
}

impl Signatures {
    pub fn get(&self, key: &(FileId, Name)) -> Option<&Signature> {
        let place = *self.places.get(key.0, &key.1)?;
        self.files.get(key.0 .0 as usize)?.get(place as usize)
    }

    /// Every signature, file by file.
    pub fn values(&self) -> impl Iterator<Item = &Signature> {
        self.files.iter().flatten()
    }

    pub fn len(&self) -> usize {
        self.places.len()
    }

    pub fn is_empty(&self) -> bool {
        self.places.is_empty()
    }

    /// Makes room for `more` signatures of `file`.
    fn reserve(&mut self, file: FileId, more: usize) {
        let slot = file.0 as usize;
        if self.files.len() <= slot {
            self.files.resize_with(slot + 1, Vec::new);
        }
        self.files[slot].reserve_exact(more);
        self.places.reserve(file, more);
    }

    /// Adds `name`'s signature, which `file` has none of yet (after `reserve`).
    fn insert(&mut self, file: FileId, name: Name, signature: Signature) {
        let signatures = &mut self.files[file.0 as usize];
        let place = u32::try_from(signatures.len()).expect("fewer than 2^32 signatures in a file");
        signatures.push(signature);
        self.places.insert(file, name, place);
    }
}

impl std::ops::Index<&(FileId, Name)> for Signatures {
    type Output = Signature;

    fn index(&self, key: &(FileId, Name)) -> &Signature {
        self.get(key).expect("a checked signature")
    }
}

/// A checked signature.
#[derive(Clone, Debug)]
pub struct Signature {
    pub params: Vec<ParamSig>,
    /// `None` for a `fn` written without `-> T`, and for an `extern fn`
    /// missing it (reported).
    pub ret: Option<Ty>,
    /// The generic axes its parameters introduce, in order of first use.
    pub generics: Vec<Name>,
    /// The dotted Python name of an `extern fn`.
    pub python: Option<Name>,
}

#[derive(Clone, Debug)]
pub struct ParamSig {
    pub name: Name,
    pub ty: Ty,
    pub span: Span,
}

/// A `fn` or an `extern fn`, seen alike.
struct SigSource<'a> {
    name: &'a ast::Ident,
    params: &'a [ast::Param],
    ret: Option<&'a ast::Type>,
    python: Option<Option<&'a ast::StrLit>>,
    /// The item and what follows it up to the next item.
    span: Span,
}

/// Checks every top-level signature of every module.
pub fn check_all(env: Env, diagnostics: &mut Vec<Diagnostic>) -> Signatures {
    let mut out = Signatures::default();
    let all: Vec<usize> = (0..env.program.modules.len()).collect();
    check_batch(env, &all, &mut out, diagnostics);
    out
}

/// Checks the top-level signatures of the modules `batch` (indices into
/// `Program::modules`) into `out`.
pub fn check_batch(
    env: Env,
    batch: &[usize],
    out: &mut Signatures,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let is_signature =
        |item: &&ast::Item| matches!(item, ast::Item::Fn(_) | ast::Item::ExternFn(_));
    // One lowerer for every signature: its buffers are reused, not rebuilt.
    let mut lowerer = Lowerer::new(env, FileId(0), diagnostics);
    for module in batch.iter().map(|&m| &env.program.modules[m]) {
        // Its messages name other files' dims as it imports them (`vis.D`).
        let _names = module.import_names();
        let items = &module.ast.items;
        out.reserve(module.file, items.iter().filter(is_signature).count());
        for (i, item) in items.iter().enumerate() {
            let (name, params, ret, python) = match item {
                ast::Item::Fn(f) => (&f.name, &f.params[..], f.ret.as_ref(), None),
                ast::Item::ExternFn(f) => (
                    &f.name,
                    &f.params[..],
                    f.ret.as_ref(),
                    Some(f.python.as_ref()),
                ),
                _ => continue,
            };
            // The parser's mistakes after this item's start and before the
            // next item's belong to it.
            let region_end = items.get(i + 1).map_or(u32::MAX, |next| next.span().start);
            let source = SigSource {
                name,
                params,
                ret,
                python,
                span: Span::new(module.file, item.span().start, region_end),
            };
            lowerer.reset(module.file);
            let signature = check_signature(env, &source, &mut lowerer);
            if module.names.get(&source.name.name) == Some(&i) {
                out.insert(module.file, source.name.name, signature);
            }
        }
    }
}

/// Lowers each parameter's type (a new name introduces a generic axis):
/// E0307 for a name twice, E0306 for an axis or size parameter outside an
/// `extern fn`, and an extern fn's defaults checked.
fn lower_params(source: &SigSource, lowerer: &mut Lowerer, is_extern: bool) -> Vec<ParamSig> {
    let mut params = Vec::with_capacity(source.params.len());
    for (i, param) in source.params.iter().enumerate() {
        let first = source.params[..i]
            .iter()
            .find(|p| p.name.name == param.name.name)
            .map(|p| p.name.span);
        if let Some(first) = first {
            lowerer.diagnostics.push(
                Diagnostic::error(
                    codes::E0307,
                    format!("parameter `{}` is declared twice", param.name.name),
                )
                .with_primary(param.name.span, "declared again here")
                .with_secondary(first, "first declared here")
                .with_help("give each parameter its own name"),
            );
        }
        let before = lowerer.generic_order.len();
        lowerer.place = Place::Param;
        let ty = lowerer.lower_type(&param.ty);
        let sizes = matches!(&ty.kind, TyKind::Tuple(items) if crate::shape::is_size_tuple(items));
        match &ty.kind {
            _ if sizes && !is_extern => {
                lowerer.diagnostics.push(
                    Diagnostic::error(codes::E0306, "`Size` parameters are only for `extern fn`")
                        .with_primary(param.ty.span, "not allowed in a `fn`")
                        .with_help("a `fn` takes tensors and Python values; name axes with `over=` in its body"),
                );
            }
            TyKind::Axis(_) | TyKind::Axes(_) | TyKind::SizeParam(_) if !is_extern => {
                lowerer.diagnostics.push(
                    Diagnostic::error(codes::E0306, format!("`{}` parameters are only for `extern fn`", kind_word(&param.ty)))
                        .with_primary(param.ty.span, "not allowed in a `fn`")
                        .with_help("a `fn` takes tensors and Python values; name axes with `over=` in its body"),
                );
            }
            _ => {}
        }
        if is_extern && param.default.is_some() {
            let earlier = &lowerer.generic_order[..before];
            check_extern_param(param, &ty, earlier, lowerer.diagnostics);
        }
        params.push(ParamSig {
            name: param.name.name,
            ty,
            span: param.span,
        });
    }
    params
}

/// Checks one `fn` or `extern fn` signature: its parameters, its return
/// type (whose names the parameters introduce), an extern fn's own rules
/// and Python name, and the hint for a group written like a grouped size.
fn check_signature(env: Env, source: &SigSource, lowerer: &mut Lowerer) -> Signature {
    let file = lowerer.module;
    let is_extern = source.python.is_some();
    lowerer.rest_allowed = is_extern;
    let params = lower_params(source, lowerer, is_extern);
    lowerer.place = Place::Return;
    lowerer.rounding = is_extern;
    let ret = source.ret.map(|r| lowerer.lower_type(r));
    let saw_written_group = lowerer.saw_written_group;
    let generics_order = lowerer.generic_order.to_vec();
    let diagnostics = &mut *lowerer.diagnostics;
    let mut python = None;
    if let Some(string) = source.python {
        if !env.program.module(file).has_parse_error_in(source.span) {
            check_extern_rules(source, &params, ret.as_ref(), diagnostics);
        }
        if let Some(string) = string {
            if check_python_name(string, diagnostics) {
                python = Some(Name::new(&string.value));
            }
        }
    }
    // The hint needs a written group somewhere: rare, so look before
    // collecting, and only when lowering saw one.
    let has_group = saw_written_group
        && params
            .iter()
            .map(|p| &p.ty)
            .chain(&ret)
            .any(has_written_group);
    if has_group {
        let mut shapes = Vec::with_capacity(params.len() + 1);
        for param in &params {
            collect_shapes(&param.ty, &mut shapes);
        }
        if let Some(ret) = &ret {
            collect_shapes(ret, &mut shapes);
        }
        grouped_size_hint(&shapes, diagnostics);
    }
    Signature {
        params,
        ret,
        generics: generics_order,
        python,
    }
}

fn kind_word(ty: &ast::Type) -> &'static str {
    match ty.kind {
        ast::TypeKind::Axis(_) => "Axis",
        ast::TypeKind::Axes(_) => "Axes",
        _ => "Size",
    }
}

/// Per-parameter extern rules: Axis defaults and Size defaults (E0308).
fn check_extern_param(
    param: &ast::Param,
    ty: &Ty,
    earlier: &[Name],
    diagnostics: &mut Vec<Diagnostic>,
) {
    let Some(default) = &param.default else {
        return;
    };
    match &ty.kind {
        TyKind::Axis(_) | TyKind::Axes(_) => diagnostics.push(
            Diagnostic::error(codes::E0308, format!("`{}` parameter `{}` can't have a default", kind_word(&param.ty), param.name.name))
                .with_primary(default.span, "default here")
                .with_help("an axis parameter names an axis of the first argument at each call; remove the default"),
        ),
        TyKind::SizeParam(_) => {
            let ok = match &default.kind {
                ast::ExprKind::Int(_) => true,
                ast::ExprKind::Name(name) => earlier.iter().any(|g| **g == *name.name),
                _ => false,
            };
            if !ok {
                let label = match &default.kind {
                    ast::ExprKind::Name(name) => format!("`{}` is not a size of an earlier parameter", name.name),
                    _ => "not a number".to_string(),
                };
                diagnostics.push(
                    Diagnostic::error(codes::E0308, format!("invalid default for `Size` parameter `{}`", param.name.name))
                        .with_primary(default.span, label)
                        .with_help("a `Size` default is a number, as in `= 1`, or a size from an earlier parameter, as in `= K` after `weight: [C K K]`"),
                );
            }
        }
        _ => {}
    }
}

/// Whole-signature extern rules (E0308): a return type, a shaped first
/// parameter for Axis parameters, and `...` in the return only with a parameter's.
fn check_extern_rules(
    source: &SigSource,
    params: &[ParamSig],
    ret: Option<&Ty>,
    diagnostics: &mut Vec<Diagnostic>,
) {
    if let Some(None) = source.python {
        diagnostics.push(
            Diagnostic::error(codes::E0308, format!("extern fn `{}` has no Python name", source.name.name))
                .with_primary(source.name.span, "needs `= \"module.function\"`")
                .with_help("an extern fn stands for a Python function: end it with its dotted name, as in `= \"torch.special.erfc\"`"),
        );
    }
    if source.ret.is_none() {
        diagnostics.push(
            Diagnostic::error(codes::E0308, format!("extern fn `{}` has no return type", source.name.name))
                .with_primary(source.name.span, "needs `-> Type`")
                .with_help("an extern fn has no body to infer it from: write its result's type, as in `-> Real`"),
        );
    }
    let axis_param = params
        .iter()
        .zip(source.params)
        .find(|(p, _)| matches!(p.ty.kind, TyKind::Axis(_) | TyKind::Axes(_)));
    if let Some((axis, axis_src)) = axis_param {
        let first = &params[0];
        let shaped = first.ty.shape().is_some() || matches!(first.ty.kind, TyKind::Error);
        if !shaped {
            diagnostics.push(
                Diagnostic::error(
                    codes::E0308,
                    format!(
                        "extern fn `{}` has an `{}` parameter but its first parameter has no shape",
                        source.name.name,
                        kind_word(&axis_src.ty)
                    ),
                )
                .with_primary(first.ty.span, "the first parameter needs a shape")
                .with_secondary(
                    axis.span,
                    "this parameter names an axis of the first argument",
                )
                .with_help("give the first parameter a shape, as in `input: [...]`"),
            );
        }
    }
    if let Some(ret) = ret {
        if let Some(rest) = find_rest(ret) {
            if !params.iter().any(|p| find_rest(&p.ty).is_some()) {
                diagnostics.push(
                    Diagnostic::error(codes::E0308, "`...` in the return type needs a parameter with `...`")
                        .with_primary(rest, "these axes come from no parameter")
                        .with_help("the result's `...` is the axes the argument's `...` had: add `...` to a parameter's shape"),
                );
            }
        }
    }
}

fn find_rest(ty: &Ty) -> Option<Span> {
    match &ty.kind {
        TyKind::Tensor(t) => t
            .shape
            .as_ref()?
            .iter()
            .find(|a| matches!(a.kind, AxisKind::Rest))
            .map(|a| a.span),
        TyKind::Tuple(items) => items.iter().find_map(find_rest),
        _ => None,
    }
}

/// Python's keywords; a `match` compares by length first, so checking the
/// parts of every extern fn's name costs no scan of a list.
fn is_python_keyword(part: &str) -> bool {
    is_python_keyword_bytes(part.as_bytes())
}

fn is_python_keyword_bytes(part: &[u8]) -> bool {
    matches!(
        part,
        b"False"
            | b"None"
            | b"True"
            | b"and"
            | b"as"
            | b"assert"
            | b"async"
            | b"await"
            | b"break"
            | b"class"
            | b"continue"
            | b"def"
            | b"del"
            | b"elif"
            | b"else"
            | b"except"
            | b"finally"
            | b"for"
            | b"from"
            | b"global"
            | b"if"
            | b"import"
            | b"in"
            | b"is"
            | b"lambda"
            | b"nonlocal"
            | b"not"
            | b"or"
            | b"pass"
            | b"raise"
            | b"return"
            | b"try"
            | b"while"
            | b"with"
            | b"yield"
    )
}

/// Checks the dotted Python name (E0308); true when it is valid.
fn check_python_name(string: &ast::StrLit, diagnostics: &mut Vec<Diagnostic>) -> bool {
    if is_plain_python_name(&string.value) {
        return true;
    }
    let problem = if !string.value.contains('.') {
        Some(format!("`{}` is not a module and a function", string.value))
    } else {
        string.value.split('.').find_map(|part| {
            let mut chars = part.chars();
            let starts_well = chars.next().is_some_and(|c| c == '_' || c.is_alphabetic());
            if !starts_well || !chars.all(|c| c == '_' || c.is_alphanumeric()) {
                Some(format!("`{part}` is not a Python identifier"))
            } else if is_python_keyword(part) {
                Some(format!("`{part}` is a Python keyword"))
            } else {
                None
            }
        })
    };
    match problem {
        None => true,
        Some(label) => {
            diagnostics.push(
                Diagnostic::error(codes::E0308, "invalid Python name for an extern fn")
                    .with_primary(string.span, label)
                    .with_help("write the function's dotted Python name, a module and a function, as in \"torch.special.erfc\""),
            );
            false
        }
    }
}

/// Whether `name` is an ASCII dotted name of two parts or more, each a
/// Python identifier and no keyword: the common case, tested in one pass
/// with one table look-up per byte (the general test decodes characters).
fn is_plain_python_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    let mut parts = 0;
    // Where the current part starts.
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        match BYTE_CLASS[usize::from(b)] {
            IDENT_START => {}
            DIGIT if i > start => {}
            DOT if i > start && !is_python_keyword_bytes(&bytes[start..i]) => {
                parts += 1;
                start = i + 1;
            }
            _ => return false,
        }
    }
    // The last part, which no dot ends.
    start < bytes.len() && !is_python_keyword_bytes(&bytes[start..]) && parts >= 1
}

/// What `is_plain_python_name` makes of each byte.
const OTHER: u8 = 0;
const IDENT_START: u8 = 1;
const DIGIT: u8 = 2;
const DOT: u8 = 3;

/// `BYTE_CLASS[b]`: a letter or `_` starts an identifier; a digit continues
/// one; a dot ends it.
const BYTE_CLASS: [u8; 256] = {
    let mut table = [OTHER; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        if c == b'_' || c.is_ascii_alphabetic() {
            table[b] = IDENT_START;
        } else if c.is_ascii_digit() {
            table[b] = DIGIT;
        } else if c == b'.' {
            table[b] = DOT;
        }
        b += 1;
    }
    table
};

fn collect_shapes<'t>(ty: &'t Ty, out: &mut Vec<&'t [Axis]>) {
    match &ty.kind {
        TyKind::Tensor(t) => {
            if let Some(shape) = &t.shape {
                out.push(shape);
            }
        }
        TyKind::Tuple(items) => items.iter().for_each(|t| collect_shapes(t, out)),
        TyKind::Stack { elem, .. } => collect_shapes(elem, out),
        _ => {}
    }
}

/// Whether a shape in the type has a written group `(a b)`, as `grouped_size_hint` wants.
fn has_written_group(ty: &Ty) -> bool {
    match &ty.kind {
        TyKind::Tensor(t) => t.shape.as_ref().is_some_and(|shape| {
            shape
                .iter()
                .any(|a| matches!(a.kind, AxisKind::Group { grouped: false, .. }))
        }),
        TyKind::Tuple(items) => items.iter().any(has_written_group),
        TyKind::Stack { elem, .. } => has_written_group(elem),
        _ => false,
    }
}

/// The generic axis name of an axis that is exactly one generic symbol.
fn generic_name(axis: &Axis) -> Option<&str> {
    match &axis.kind {
        AxisKind::Size {
            size,
            name: Some(_),
        } => match size.poly.as_symbol() {
            Some(Symbol::Generic(name)) => Some(name),
            _ => None,
        },
        _ => None,
    }
}

/// The number of an axis written as a number (`3`, not `D` or `2*2`).
fn written_factor(axis: &Axis) -> Option<i128> {
    match &axis.kind {
        AxisKind::Size { size, name: None }
            if size
                .written
                .as_deref()
                .is_none_or(|w| w.bytes().all(|b| b.is_ascii_digit())) =>
        {
            size.poly.as_constant()
        }
        _ => None,
    }
}

/// H2201, exactly under the conditions of `docs/shapescript/signatures.md`
/// (Grouped sizes): a number greater than 1 directly followed by a name that
/// isn't a dim, is an axis of its own nowhere else in the signature, and is
/// part of a group somewhere in it, but not a grouped size.
fn grouped_size_hint(shapes: &[&[Axis]], diagnostics: &mut Vec<Diagnostic>) {
    // Without a written group nothing can be "part of a group": the common case.
    let has_group = shapes.iter().any(|shape| {
        shape
            .iter()
            .any(|a| matches!(a.kind, AxisKind::Group { grouped: false, .. }))
    });
    if !has_group {
        return;
    }
    // Nor without a number above 1 followed by a generic name: look before
    // building the tables.
    let has_pair = shapes.iter().any(|shape| {
        shape.windows(2).any(|pair| {
            written_factor(&pair[0]).is_some_and(|f| f > 1) && generic_name(&pair[1]).is_some()
        })
    });
    if !has_pair {
        return;
    }
    let mut own: HashMap<&str, Vec<Span>> = HashMap::default();
    let mut in_group: HashMap<&str, Span> = HashMap::default();
    let mut grouped: HashSet<&str> = HashSet::default();
    for shape in shapes {
        for axis in shape.iter() {
            if let Some(name) = generic_name(axis) {
                own.entry(name).or_default().push(axis.span);
            }
            if let AxisKind::Group {
                parts,
                grouped: is_grouped,
                ..
            } = &axis.kind
            {
                for part in parts {
                    if let Some(name) = generic_name(part) {
                        if *is_grouped {
                            grouped.insert(name);
                        } else {
                            in_group.entry(name).or_insert(axis.span);
                        }
                    }
                }
            }
        }
    }
    for shape in shapes {
        for pair in shape.windows(2) {
            let (number, name_axis) = (&pair[0], &pair[1]);
            let Some(factor) = written_factor(number).filter(|&f| f > 1) else {
                continue;
            };
            let Some(name) = generic_name(name_axis) else {
                continue;
            };
            if number.span.file != name_axis.span.file || number.span.end > name_axis.span.start {
                continue;
            }
            let elsewhere = own
                .get(name)
                .is_some_and(|spans| spans.iter().any(|s| *s != name_axis.span));
            let Some(&group) = in_group.get(name) else {
                continue;
            };
            if elsewhere || grouped.contains(name) {
                continue;
            }
            diagnostics.push(
                Diagnostic::hint(codes::H2201, format!("`{factor} {name}` is two axes; did you mean the grouped size `{factor}{name}`?"))
                    .with_primary(number.span.to(name_axis.span), format!("two axes, {factor} and {name}"))
                    .with_secondary(group, format!("`{name}` is part of this group"))
                    .with_help(format!("write `{factor}{name}`, touching, for one axis of size {factor} × {name}")),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use diag::SourceMap;
    use expect_test::{expect, Expect};

    use crate::{check_sources, Options};

    #[test]
    fn plain_python_names() {
        let plain = ["torch.nn.functional.conv2d", "m.up", "a_1._b2"];
        let not_plain = [
            "", "m", ".m", "m.", "m..up", "m.2d", "1m.up", "m.class", "if.up", "m.up-x", "m.é",
        ];
        for name in plain {
            assert!(super::is_plain_python_name(name), "{name}");
        }
        for name in not_plain {
            assert!(!super::is_plain_python_name(name), "{name}");
        }
    }

    /// Checks the files (the first is the root) and shows the signature of
    /// `name` in the root as the checker lowered it, then its diagnostics.
    fn check_signature(files: &[(&str, &str)], name: &str, expect: Expect) {
        let mut map = SourceMap::new();
        let checked = check_sources(&mut map, files, &Options::default());
        let root = checked.user_modules().next().unwrap().file;
        let signature = &checked.signatures[&(root, name.into())];
        let params: Vec<String> = signature
            .params
            .iter()
            .map(|p| format!("{}: {}", p.name, p.ty))
            .collect();
        let ret = signature
            .ret
            .as_ref()
            .map_or("-".to_string(), |t| t.to_string());
        let generics: Vec<&str> = signature.generics.iter().map(|g| &**g).collect();
        let mut shown = format!(
            "({}) -> {ret}\ngenerics: {}\n",
            params.join(", "),
            generics.join(" ")
        );
        shown.push_str(&crate::tests::show(&map, &checked.diagnostics));
        expect.assert_eq(&shown);
    }

    #[test]
    fn grouped_sizes_introduce_their_names() {
        check_signature(
            &[("a.ss", "dim D = 768\nextern fn patchify(img: [b 3 16gh 16gw]) -> [b (gh gw) D] = \"v.p\"\n")],
            "patchify",
            expect![[r#"
                (img: [b 3 16gh 16gw]) -> [b (gh gw) D]
                generics: b gh gw
            "#]],
        );
    }

    #[test]
    fn aliases_are_replaced_with_the_users_names() {
        check_signature(
            &[
                ("main.ss", "import vision\nextern fn f(x: vision.Tokens, y: [vision.Images vision.D]) -> [b n] = \"m.f\"\n"),
                ("vision.ss", "dim D = 768\ndim Images = [b 3 16gh 16gw]\ndim Tokens = [b n D]\n"),
            ],
            "f",
            expect![[r#"
                (x: [b n vision.D], y: [b 3 16gh 16gw vision.D]) -> [b n]
                generics: b n gh gw
            "#]],
        );
    }

    #[test]
    fn an_alias_lowered_before_still_introduces_its_axes() {
        // `f` lowers `T` first; `h` takes it as remembered, in its own order.
        check_signature(
            &[("a.ss", "dim T = [b n]\nextern fn f(x: T) -> [b] = \"m.f\"\nextern fn h(x: [n], y: T, z: [T 2]) -> [b] = \"m.h\"\n")],
            "h",
            expect![[r#"
                (x: [n], y: [b n], z: [b n 2]) -> [b]
                generics: n b
            "#]],
        );
    }

    #[test]
    fn a_remembered_alias_in_a_return_type_needs_its_axes() {
        check_signature(
            &[("a.ss", "dim T = [b n]\nextern fn f(x: T) -> [b] = \"m.f\"\nextern fn g(y: [b]) -> T = \"m.g\"\n")],
            "g",
            expect![[r#"
                (y: [b]) -> [b {error}]
                generics: b
                a.ss:1:12 E0301 cannot find size `n` [`n`: not a dim, and no parameter's type has this axis]
                  help: a generic axis is introduced by a parameter's type: use `n` in one, or declare `dim n = ...`
            "#]],
        );
    }

    #[test]
    fn rounded_division_is_kept_for_each_call() {
        check_signature(
            &[(
                "a.ss",
                "extern fn pool(x: [b C H], k: Size[K] = 2) -> [b C (H - K)/K + 1] = \"m.pool\"\n",
            )],
            "pool",
            expect![[r#"
                (x: [b C H], k: Size[K]) -> [b C (H - K)/K + 1]
                generics: b C H K
            "#]],
        );
    }

    #[test]
    fn sizes_equal_after_dims_are_replaced() {
        let src = "dim D = 768\ndim H = 12\ndim Dh = D / H\nextern fn qkv(w: [D 3*D]) -> [3*H*Dh] = \"m.q\"\nextern fn twice(x: [n + n]) -> [2*n] = \"m.t\"\n";
        let mut map = SourceMap::new();
        let checked = check_sources(&mut map, &[("a.ss", src)], &Options::default());
        assert!(checked.diagnostics.is_empty());
        let file = checked.user_modules().next().unwrap().file;
        let size_of = |ty: &crate::types::Ty, i: usize| match &ty.shape().unwrap()[i].kind {
            crate::types::AxisKind::Size { size, .. } => size.clone(),
            other => panic!("not a size: {other:?}"),
        };
        let qkv = &checked.signatures[&(file, "qkv".into())];
        let (three_d, three_h_dh) = (
            size_of(&qkv.params[0].ty, 1),
            size_of(qkv.ret.as_ref().unwrap(), 0),
        );
        assert_ne!(three_d.poly, three_h_dh.poly, "symbolically different");
        assert!(
            checked.dims.same_size(&three_d.poly, &three_h_dh.poly),
            "both 2304"
        );
        assert_eq!(
            three_h_dh.to_string(),
            "3*H*Dh",
            "keeps the user's spelling"
        );
        let twice = &checked.signatures[&(file, "twice".into())];
        assert_eq!(
            size_of(&twice.params[0].ty, 0).poly,
            size_of(twice.ret.as_ref().unwrap(), 0).poly
        );
    }
}
