# Axis, Axes and Size parameters are only for extern fn (E0306).
fn pick(x: [b n], dims: Axis[n]) -> [b] = x          # ~ E0306
fn picks(x: [b n], dims: Axes[n]) -> [b] = x         # ~ E0306
fn stride(x: [b n], step: Size[S]) -> [b n] = x      # ~ E0306
