# An alias using another twice doubles at each step: a shape may have at
# most 4096 axes (E2203), reported once, at the first alias past the limit.
dim A0 = [A1 A1]      # ~ E2203 8192 axes
dim A1 = [A2 A2]
dim A2 = [A3 A3]
dim A3 = [A4 A4]
dim A4 = [A5 A5]
dim A5 = [A6 A6]
dim A6 = [A7 A7]
dim A7 = [A8 A8]
dim A8 = [A9 A9]
dim A9 = [A10 A10]
dim A10 = [A11 A11]
dim A11 = [A12 A12]
dim A12 = [b b]
extern fn f(x: A0) -> [b] = "m.f"
