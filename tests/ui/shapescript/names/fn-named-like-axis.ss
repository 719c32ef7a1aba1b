# Checks clean: names in shapes are sizes, and a function is not one, so a
# top-level `fn h` doesn't block the generic axis `h` of any signature (as a
# Rust fn doesn't block a type parameter).
dim S = [b h w]
fn h(x: [n]) -> [n] = x
fn pooled(x: [b h w]) -> [b h] = sum(x, over=w)
fn through_alias(x: S) -> [b h] = sum(x, over=w)
fn height(x: [b h]) -> Int = h
fn called(x: [b h]) -> [b h] = h(x[0]) + x
extern fn e(x: [h]) -> [h] = "torch.exp"
