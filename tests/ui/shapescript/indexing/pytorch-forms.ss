# Indexing as PyTorch does it (docs/shapescript/functions.md, Indexing):
# `none` adds an axis of size 1, negative bounds count from the end, steps
# divide the length rounding up, `...` stands for the other axes, and integer
# tensors and lists pick positions.

fn lead(x: [10 20]) -> [1 10 20] = x[none]
fn mid(x: [10 20]) -> [10 1 20] = x[:, none]
fn both_ends(x: [b n]) -> [1 b n 1] = x[none, ..., none]
fn not_an_int(x: [10 20]) -> [20] = x[none]         # ~ E0401 none is an axis
fn drop_last(x: [10 20]) -> [9 20] = x[:-1]
fn last_three(x: [10 20]) -> [3 20] = x[-3:]
fn from_end(x: [n + 2]) -> [n] = x[1:-1]
fn every_other(x: [100]) -> [50] = x[::2]
fn every_third(x: [10]) -> [3] = x[1::3]
fn halves(x: [2*n]) -> [n] = x[::2]
fn odd_halves(x: [2*n + 1]) -> [n + 1] = x[::2]
fn inexact(x: [n]) -> [?k] = x[::2]
fn last_axis(x: [b n D]) -> [b n] = x[..., 0]
fn last_two(x: [b n 8]) -> [b n 2] = x[..., :2]
fn first_row(x: [b n D]) -> [n D] = x[0, ...]
fn rows(x: [n D], ids: [k] Index[n]) -> [k D] = x[ids]
fn cols(x: [b n D], ids: [k] Index[n]) -> [b k D] = x[:, ids]
fn grid(x: [n D], ids: [i j] Index[n]) -> [i j D] = x[ids]
fn listed(x: [n D]) -> [2 D] = x[[0, -1]]
fn pairs(x: [n m D], a: [k] Index[n], c: [k] Index[m]) -> [k D] = x[a, c]
fn apart(x: [n D m], a: [k] Index[n], c: [k] Index[m]) -> [k D] = x[a, :, c]
fn int_first(x: [b n m], a: [k] Index[n]) -> [k m] = x[0, a]
fn two_rests(x: [b n D]) -> [n] = x[..., 0, ...]    # ~ E0408 one `...`
fn floats(x: [n D], w: [k]) -> [k D] = x[w]           # ~ E0408 a float tensor
fn unequal(x: [n m], a: [k] Index[n], c: [j] Index[m]) -> [k] = x[a, c] # ~ E0401 picks differ
fn over(x: [n D]) -> [n D] = x[none, 0, 0, 0]          # ~ E0401 3 indices
fn reversed(x: [n D]) -> [n D] = x[::-1]               # ~ E0408 step at least 1
fn zero_step(x: [n D]) -> [n D] = x[::0]               # ~ E0408 step at least 1
