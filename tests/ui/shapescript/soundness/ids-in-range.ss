# Ids given where `Index[V]` is wanted must be known to lie in [0, V): ids
# shifted by one reach past the table (PyTorch raises an IndexError), and
# integers of an unknown range need an `as` claim, checked when it runs.
fn shifted(t: [n D]) -> [n D] = embedding(arange(n) + 1, t)          # ~ E0603
fn moved(t: [n D], ids: [k] Index[n]) -> [k D] = embedding(ids + 1, t)  # ~ E0603
fn other_size(t: [m D], ids: [k] Index[n]) -> [k D] = embedding(ids, t)  # ~ E0603
fn claimed(t: [n D], ids: [k] i64) -> [k D] = embedding(ids as [k] Index[n], t)
fn own(t: [n D]) -> [n D] = embedding(arange(n), t)
