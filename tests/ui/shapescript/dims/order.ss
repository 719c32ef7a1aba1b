# A dim may use dims declared after it; they are evaluated in dependency order.
dim Dh = D / H
dim D = H * 64
dim H = 12
dim Mlp = 4 * D
