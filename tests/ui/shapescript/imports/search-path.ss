# `import name` looks beside the file, then in each `-I DIR`.
# ui-args: check -I lib
import shared
extern fn f(x: [shared.Shared]) -> [shared.Shared] = "m.f"
