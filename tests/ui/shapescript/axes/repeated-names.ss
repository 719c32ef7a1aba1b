# A name that matches more than one axis is E0411 wherever axes are found by
# name (docs/shapescript/broadcasting.md): `over=`, `Axis` arguments and
# broadcasting never pick one of two `n` axes silently. Naming one axis twice
# in `over=` is E0406.
extern fn roll(input: [...], shifts: Size[S], dims: Axis[n]) -> [...] = "torch.roll"

fn attention(q: [b h n d], k: [b h n d]) -> [b h n n] {
  let s = einsum(q, k, [b h i d], [b h j d] -> [b h i j])
  softmax(s, over=n)                                         # ~ E0411
}
fn row_sums(s: [b n n]) -> [b n] = sum(s, over=n)            # ~ E0411
fn both(s: [b n n]) -> [b] = sum(s, over=(n n))              # ~ E0411
fn twice(a: [b R]) -> [b] = sum(a, over=(R R))               # ~ E0406
fn best(s: [b n n]) -> [b n] Index[n] = argmax(s, over=n)    # ~ E0411
fn joined(a: [n n], c: [n n]) -> [2*n n] = concat(a, c, over=n)  # ~ E0411
fn picked(x: [n n], ids: [k] Index[n]) -> [k n] = take(x, ids, over=n)  # ~ E0411
fn top(x: [b n n]) -> [b n 2] = topk(x, 2, over=n)[0]        # ~ E0411
fn rolled(x: [b n n]) -> [b n n] = roll(x, 1, dims=n)        # ~ E0411
fn biased(s: [b n n], v: [n]) -> [b n n] = s + v             # ~ E0411
fn scored(q: [b h n d], k: [b h n d], v: [n]) -> [b h n n] {
  let s = einsum(q, k, [b h i d], [b h j d] -> [b h i j])
  s + v                                                      # ~ E0411
}
