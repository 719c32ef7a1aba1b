# An `Int` index known before the program runs must lie on its axis for
# every size the axis may have: PyTorch raises an `IndexError` otherwise.
fn past_the_end(x: [10 D]) -> [D] = x[10]                  # ~ E0401
fn maybe_short(x: [n D]) -> [D] = x[3]                     # ~ E0401
fn first_and_last(x: [n D]) -> [D] = x[0] + x[-1]
fn from_the_end(x: [10 D]) -> [D] = x[-10] + x[9]
fn longer(x: [n + 3 D]) -> [D] = x[3]
# A list's positions are checked as Int indices are: 2 is past an axis of 2.
fn listed_past(x: [n D]) -> [2 D] = x[[0, 2]]  # ~ E0401
fn listed(x: [n D]) -> [2 D] = x[[0, -1]]
