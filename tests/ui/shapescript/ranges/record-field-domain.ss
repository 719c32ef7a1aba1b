# A record's fields are checked against their domains where the record is
# built, as a call's arguments are against its parameters
# (docs/shapescript/ranges.md): `std` may be 0, and the field says `Pos`.
dim D = 8
dim V = 100

record Stats { mean: [D], std: [D] Pos }
record Batch { ids: [n] Index[V], weight: [n] Unit }

fn stats(x: [b D]) -> Stats = Stats(mean=mean(x, over=b), std=std(x, over=b, correction=0))   # ~ E0606
fn safe_stats(x: [b D]) -> Stats = Stats(mean=mean(x, over=b), std=std(x, over=b, correction=0) + 1e-5)
fn normalize(x: [b D], s: Stats) -> [b D] = (x - s.mean) / s.std
fn weighted(ids: [n] Index[V], w: [n]) -> Batch = Batch(ids=ids, weight=w)     # ~ E0606
fn sigmoid_weighted(ids: [n] Index[V], w: [n]) -> Batch = Batch(ids=ids, weight=sigmoid(w))
fn other_ids(ids: [n] Index[V + 1], w: [n] Unit) -> Batch = Batch(ids=ids, weight=w)   # ~ E0603
