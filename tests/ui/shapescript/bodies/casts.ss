# `as` claims what the checker can't see and is checked at run time; `to`
# converts: a dtype cast, a domain clamp, or a reshape that keeps the number
# of elements. A shapeless type keeps the value's shape (docs/shapescript/functions.md).
dim Ctx = 1024

fn positions(n: Int) -> [?n] Index[Ctx] = arange(n) as [?n] Index[Ctx]
fn claim(x: [n]) -> [n] Pos = x as Pos
fn half(x: [b n] f32) -> [b n] bf16 = x to bf16
fn probabilities(x: [b n]) -> [b n] Unit = x to Unit
fn flat(x: [b 3 4]) -> [b 12] = x to [b 12]
fn grouped(x: [b (h d)], w: [h d]) -> [b h d] = x to [b h d]
fn lossy(x: [b 3 4]) -> [b 10] = x to [b 10]          # ~ E0401
fn never(x: [b 3]) -> [b 4] = x as [b 4]              # ~ E0401
