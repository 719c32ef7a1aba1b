//! Shapes in the generator's own terms: sizes compared with dims replaced
//! by their values, axes found by name as `docs/shapescript/broadcasting.md`
//! says (an axis's own name first, else the axes whose size is that name),
//! and the pairing of a broadcast operand's axes with the result's.

use crate::size::Size;
use crate::ty::Axis;

/// The largest value a generic axis takes in a run (the harness draws
/// each from 1 to this).
pub const GMAX: i64 = 5;

/// The program's dims, for comparing and bounding sizes.
#[derive(Clone, Debug, Default)]
pub struct Dims(pub Vec<(String, i64)>);

impl Dims {
    pub fn value(&self, name: &str) -> Option<i64> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, v)| *v)
    }

    /// The size with every dim replaced by its value.
    pub fn norm(&self, s: &Size) -> Size {
        s.subst(&|x| self.value(x).map(Size::lit))
    }

    pub fn eq(&self, a: &Size, b: &Size) -> bool {
        self.norm(a) == self.norm(b)
    }

    /// The largest value the size takes in a run.
    pub fn max(&self, s: &Size) -> i64 {
        s.eval(&|x| self.value(x).unwrap_or(GMAX))
    }

    /// The smallest value the size takes in a run (generics at 1).
    pub fn min(&self, s: &Size) -> i64 {
        s.eval(&|x| self.value(x).unwrap_or(1))
    }

    /// Whether two axes lists have equal sizes and equal names.
    pub fn same(&self, a: &[Axis], b: &[Axis]) -> bool {
        a.len() == b.len()
            && a.iter()
                .zip(b)
                .all(|(x, y)| x.name == y.name && self.eq(&x.size, &y.size))
    }

    /// Whether two axes lists have equal sizes.
    pub fn same_sizes(&self, a: &[Axis], b: &[Axis]) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| self.eq(&x.size, &y.size))
    }
}

/// An axis with its name made explicit: an unnamed axis whose size is one
/// symbol is found by that name.
pub fn named(mut a: Axis) -> Axis {
    if a.name.is_none() && a.text.is_none() {
        a.name = a.size.as_sym().map(str::to_string);
    }
    a
}

/// The axes `name` finds: those it names, else those whose size it is.
pub fn find(axes: &[Axis], name: &str) -> Vec<usize> {
    let own: Vec<usize> = (0..axes.len())
        .filter(|&i| axes[i].name.as_deref() == Some(name))
        .collect();
    if !own.is_empty() {
        return own;
    }
    (0..axes.len())
        .filter(|&i| axes[i].size.as_sym() == Some(name))
        .collect()
}

/// The one axis `name` finds, if exactly one.
pub fn find_one(axes: &[Axis], name: &str) -> Option<usize> {
    match find(axes, name).as_slice() {
        [one] => Some(*one),
        _ => None,
    }
}

/// Whether `over=name` on these axes is unambiguous and finds `at`.
pub fn names_uniquely(axes: &[Axis], name: &str, at: usize) -> bool {
    find_one(axes, name) == Some(at)
}

/// Where each axis of `small` goes in `big` when a broadcast pairs them by
/// name: every axis of `small` named, each found exactly once in `big`
/// with the same size, positions increasing; equal shapes pair in place.
pub fn pair(dims: &Dims, small: &[Axis], big: &[Axis]) -> Option<Vec<usize>> {
    if dims.same(small, big) {
        return Some((0..big.len()).collect());
    }
    if small.len() >= big.len() {
        return None;
    }
    let mut out = Vec::new();
    for a in small {
        let name = a.name.as_deref()?;
        let at = find_one(big, name)?;
        if !dims.eq(&a.size, &big[at].size) || out.last().is_some_and(|&l| l >= at) {
            return None;
        }
        // The name must find one axis of the smaller operand too.
        if find(small, name).len() != 1 {
            return None;
        }
        out.push(at);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcast_pairs_by_name_in_order() {
        let dims = Dims(vec![("D".into(), 4)]);
        let big = vec![Axis::sym("b"), Axis::sym("n"), Axis::sym("D")];
        assert_eq!(pair(&dims, &[Axis::sym("D")], &big), Some(vec![2]));
        assert_eq!(
            pair(&dims, &[Axis::sym("b"), Axis::sym("D")], &big),
            Some(vec![0, 2])
        );
        assert_eq!(pair(&dims, &[Axis::sym("D"), Axis::sym("b")], &big), None);
        assert_eq!(pair(&dims, &[Axis::anon(Size::lit(4))], &big), None);
        let renamed = vec![
            Axis {
                name: Some("i".into()),
                size: Size::sym("n"),
                text: None,
            },
            Axis {
                name: Some("j".into()),
                size: Size::sym("n"),
                text: None,
            },
        ];
        assert_eq!(find(&renamed, "n"), vec![0, 1]);
        assert_eq!(find(&renamed, "j"), vec![1]);
        assert_eq!(dims.max(&Size::sym("n").add(&Size::sym("D"))), GMAX + 4);
    }
}
