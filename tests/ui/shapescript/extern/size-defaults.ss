# A Size default is a number or a size from an earlier parameter (E0308).
extern fn conv2d(input: [b Cin H W], weight: [Cout Cin kh kw], bias: [Cout] = none, stride: Size[S] = 1, padding: Size[P] = 0) -> [b Cout (H + 2*P - kh)/S + 1 (W + 2*P - kw)/S + 1] = "torch.nn.functional.conv2d"
extern fn pool(input: [b C K K], kernel: Size[Ks] = K, stride: Size[S] = Ks) -> [b C (K - Ks)/S + 1] = "m.pool"

extern fn later(input: [b n], stride: Size[S] = T, other: Size[T] = 2) -> [b n] = "m.later" # ~ E0308 T is not earlier
extern fn fractional(input: [b n], stride: Size[S] = 1.5) -> [b n] = "m.fractional"        # ~ E0308 not a number
