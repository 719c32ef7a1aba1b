# `Index[V]` ids into a table of V + 1 rows: one of the sizes is wrong.
dim V = 100
dim D = 16

fn f(ids: [b n] Index[V], table: [V+1 D]) -> [b n D] = embedding(ids, table)  # ~ E0603
