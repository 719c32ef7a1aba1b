# Found by shapescript-gen (campaign 9000, program 6672): `stack` took its
# first operand's domain, so a `Unit` and a `Signed` tensor stacked were
# typed `Unit` (and `split` of them read that type). Operands that share
# a domain keep it; others make no claim.
fn mixed(tmp: [n t 3] Unit, hid: [n t 3] Signed) -> [2 n t 1] Unit = split(stack(tmp, hid), 3, over=3)[1]  # ~ E0606
fn shared(tmp: [n t 3] Unit, hid: [n t 3] Unit) -> [2 n t 1] Unit = split(stack(tmp, hid), 3, over=3)[1]
