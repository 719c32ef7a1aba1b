//! Dependency walks over declarations that name each other (dims, shape
//! aliases): an order in which each declaration follows the ones it uses, and
//! every cycle found, each reported once. Iterative, so long chains can't
//! overflow the stack. Knows nothing of what the nodes are.

/// The result of [`walk`].
pub struct Walk {
    /// Every node, each after the nodes it depends on (cycles broken anywhere).
    pub order: Vec<usize>,
    /// Whether each node lies on a cycle.
    pub on_cycle: Vec<bool>,
}

/// Walks nodes `0..count`, whose dependencies `deps(i)` gives in the order
/// they are written. `new_cycle` is called for each cycle none of whose nodes
/// was on a cycle before, with the cycle as a stack slice: each node with one
/// past the index (in its `deps`) of the dependency the cycle follows.
pub fn walk<'a, D: 'a>(
    count: usize,
    deps: impl Fn(usize) -> &'a [(usize, D)],
    mut new_cycle: impl FnMut(&[(usize, usize)]),
) -> Walk {
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        New,
        Open,
        Done,
    }
    let mut state = vec![State::New; count];
    let mut order = Vec::with_capacity(count);
    let mut on_cycle = vec![false; count];
    for start in 0..count {
        if state[start] != State::New {
            continue;
        }
        let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
        state[start] = State::Open;
        while let Some(top) = stack.last_mut() {
            let (node, next) = *top;
            let node_deps = deps(node);
            if next == node_deps.len() {
                state[node] = State::Done;
                order.push(node);
                stack.pop();
                continue;
            }
            top.1 += 1;
            let dep = node_deps[next].0;
            match state[dep] {
                State::New => {
                    state[dep] = State::Open;
                    stack.push((dep, 0));
                }
                State::Open => {
                    let from = stack.iter().position(|&(n, _)| n == dep).unwrap_or(0);
                    let cycle = &stack[from..];
                    if cycle.iter().all(|&(n, _)| !on_cycle[n]) {
                        new_cycle(cycle);
                    }
                    for &(n, _) in cycle {
                        on_cycle[n] = true;
                    }
                }
                State::Done => {}
            }
        }
    }
    Walk { order, on_cycle }
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::{expect, Expect};

    /// Walks `edges` (node -> its deps) and shows the order, the nodes on
    /// cycles and each reported cycle's nodes.
    fn check(edges: &[&[usize]], expect: Expect) {
        let deps: Vec<Vec<(usize, ())>> = edges
            .iter()
            .map(|d| d.iter().map(|&n| (n, ())).collect())
            .collect();
        let mut cycles = Vec::new();
        let walk = walk(
            deps.len(),
            |i| &deps[i],
            |c| cycles.push(c.iter().map(|&(n, _)| n).collect::<Vec<_>>()),
        );
        let on: Vec<usize> = (0..deps.len()).filter(|&i| walk.on_cycle[i]).collect();
        expect.assert_eq(&format!(
            "order {:?} on_cycle {on:?} cycles {cycles:?}",
            walk.order
        ));
    }

    #[test]
    fn dependencies_come_first() {
        check(
            &[&[1, 2], &[2], &[]],
            expect!["order [2, 1, 0] on_cycle [] cycles []"],
        );
    }

    #[test]
    fn a_cycle_is_reported_once_and_its_users_are_not_on_it() {
        check(
            &[&[1], &[2], &[0], &[0], &[3, 1]],
            expect!["order [2, 1, 0, 3, 4] on_cycle [0, 1, 2] cycles [[0, 1, 2]]"],
        );
    }

    #[test]
    fn a_self_reference_is_a_cycle() {
        check(&[&[0]], expect!["order [0] on_cycle [0] cycles [[0]]"]);
    }

    #[test]
    fn a_long_chain_needs_no_deep_stack() {
        let edges: Vec<Vec<usize>> = (0..100_000).map(|i| vec![i + 1]).chain([vec![]]).collect();
        let edges: Vec<&[usize]> = edges.iter().map(|e| e.as_slice()).collect();
        let deps: Vec<Vec<(usize, ())>> = edges
            .iter()
            .map(|d| d.iter().map(|&n| (n, ())).collect())
            .collect();
        let walk = walk(deps.len(), |i| &deps[i], |_| {});
        assert_eq!(walk.order.first(), Some(&100_000));
        assert_eq!(walk.order.len(), 100_001);
    }
}
