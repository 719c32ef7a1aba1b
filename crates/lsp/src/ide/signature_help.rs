//! Signature help: inside a call's parentheses, the callee's signature with
//! the parameter being written picked out (by position, or by keyword).

use diag::FileId;

use super::defs::DefKind;
use super::Analysis;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignatureHelp {
    /// `gelu(x: Real) -> Real`.
    pub label: String,
    /// Each parameter's byte range in `label`.
    pub params: Vec<(u32, u32)>,
    pub active: Option<u32>,
    pub doc: Option<String>,
}

impl Analysis {
    pub fn signature_help(&self, file: FileId, offset: u32) -> Option<SignatureHelp> {
        let call = self
            .index()
            .calls
            .get(&file)?
            .iter()
            .filter(|c| c.args_span.start < offset && offset <= c.args_span.end)
            .filter(|c| c.callee.is_some())
            .min_by_key(|c| c.args_span.len())?;
        let callee = self.index().defs.get(&call.callee?)?;
        if !matches!(
            callee.kind,
            DefKind::Fn | DefKind::ExternFn | DefKind::Method
        ) {
            return None;
        }
        let param_defs = self.index().params.get(&callee.span)?;
        let mut label = format!("{}(", callee.name);
        let mut params = Vec::new();
        let mut names = Vec::new();
        for (i, def) in param_defs
            .iter()
            .filter_map(|d| self.index().defs.get(d))
            .enumerate()
        {
            if i > 0 {
                label.push_str(", ");
            }
            let start = label.len() as u32;
            label.push_str(self.text(def.item_span));
            params.push((start, label.len() as u32));
            names.push(def.name.clone());
        }
        label.push(')');
        let header = self.header(callee);
        if let Some(arrow) = header.find("->") {
            // Without an extern's `= "python.name"`, on one line however it was written.
            let ret = &header[arrow..];
            let ret = match ret.rfind('=') {
                Some(eq) if ret[eq + 1..].trim_start().starts_with('"') => &ret[..eq],
                _ => ret,
            };
            label.push(' ');
            label.push_str(&ret.split_whitespace().collect::<Vec<_>>().join(" "));
        }
        // The argument being written: the first one not wholly before the cursor.
        let index = call
            .args
            .iter()
            .position(|(span, _)| offset <= span.end)
            .unwrap_or(call.args.len());
        let active = match call.args.get(index).and_then(|(_, key)| key.as_ref()) {
            Some(key) => names.iter().position(|n| n == key),
            None if call.args[..index].iter().any(|(_, key)| key.is_some()) => None,
            None => Some(index),
        };
        Some(SignatureHelp {
            label,
            params,
            active: active.filter(|&a| a < names.len()).map(|a| a as u32),
            doc: callee.doc.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::ide::tests::analysis;
    use expect_test::{expect, Expect};

    fn check(text: &str, expect: Expect) {
        let (analysis, file, offset) = analysis(&[("m.ss", text)]);
        let out = match analysis.signature_help(file, offset) {
            Some(help) => {
                let active = help
                    .active
                    .map(|a| {
                        let (s, e) = help.params[a as usize];
                        help.label[s as usize..e as usize].to_string()
                    })
                    .unwrap_or_default();
                format!("{} [{active}]", help.label)
            }
            None => "none".into(),
        };
        expect.assert_eq(&out);
    }

    #[test]
    fn the_argument_under_the_cursor_is_active() {
        check(
            "fn g(a: [n], b: [n]) -> [n] = a\nfn f(x: [n]) -> [n] = g(x, $0x)\n",
            expect!["g(a: [n], b: [n]) -> [n] [b: [n]]"],
        );
        check(
            "fn g(a: [n], b: [n]) -> [n] = a\nfn f(x: [n]) -> [n] = g(x$0, x)\n",
            expect!["g(a: [n], b: [n]) -> [n] [a: [n]]"],
        );
    }

    #[test]
    fn keywords_pick_their_parameter() {
        check(
            "fn f(x: [b 4], w: [8 4]) -> [b 8] = linear(x, bias=$0none, weight=w)\n",
            expect!["linear(input: [... Din], weight: [Dout Din], bias: [Dout] = none) -> [... Dout] [bias: [Dout] = none]"],
        );
    }
}
