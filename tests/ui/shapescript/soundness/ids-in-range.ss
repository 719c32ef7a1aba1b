# Ids given where `Index[V]` is wanted must be known to lie in [0, V): ids
# shifted by one reach past the table (PyTorch raises an IndexError), and
# integers of an unknown range need an `as` claim, checked when it runs.
fn shifted(t: [n D]) -> [n D] = embedding(arange(n) + 1, t)          # ~ E0603
fn moved(t: [n D], ids: [k] Index[n]) -> [k D] = embedding(ids + 1, t)  # ~ E0603
fn other_size(t: [m D], ids: [k] Index[n]) -> [k D] = embedding(ids, t)  # ~ E0603
fn claimed(t: [n D], ids: [k] i64) -> [k D] = embedding(ids as [k] Index[n], t)
fn own(t: [n D]) -> [n D] = embedding(arange(n), t)
# Integer tensors that index (`x[ids]`) are ids too: integers of an unknown
# range may reach past the axis. A mask converted to integers picks rows 0
# and 1 in PyTorch rather than selecting, and one converted to floats is no
# index at all: a mask keeps the `bool` dtype.
fn picked(t: [n D], ids: [k] i64) -> [k D] = t[ids]                     # ~ E0603
fn picked_claimed(t: [n D], ids: [k] i64) -> [k D] = t[ids as [k] Index[n]]
fn picked_cols(t: [b n], ids: [k] Index[n]) -> [b k] = t[:, ids]
fn mask_as_ids(t: [n D], y: [n]) -> [n D] = t[(y > 0.0) to i64]         # ~ E0603
fn mask_as_floats(t: [n D], y: [n]) -> [?k D] = t[(y > 0.0) to f32]     # ~ E0408
