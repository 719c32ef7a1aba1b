# Arguments by position and keyword; a left-out `none` default; each
# parameter at most once (E0407), every required one given (E0407), and
# keywords that name parameters (E0407).
dim D = 64

fn with_bias(x: [b D], w: [D D], bias: [D]) -> [b D] = linear(x, w, bias)
fn by_keyword(x: [b D], w: [D D], bias: [D]) -> [b D] = linear(weight=w, input=x, bias=bias)
fn no_bias(x: [b D], w: [D D]) -> [b D] = linear(x, w)
fn twice(x: [b D], w: [D D]) -> [b D] = linear(x, w, weight=w)      # ~ E0407
fn missing(x: [b D]) -> [b D] = linear(x)                          # ~ E0407
fn unknown(x: [b D], w: [D D]) -> [b D] = linear(x, w, scale=2)     # ~ E0407
fn too_many(x: [b D], w: [D D], c: [D]) -> [b D] = linear(x, w, c, c)  # ~ E0407
