# Bug: dividing by a standard deviation that may be 0. Standardizing each
# feature over the batch divides by its std, which is 0 for a feature that
# is constant in the batch (a batch of one, a dead unit): the result is NaN.
# Fix: / (std(x, over=b, correction=0) + 1e-5).
dim D = 128

fn standardize(x: [b D]) -> [b D] = (x - mean(x, over=b)) / std(x, over=b, correction=0)  # ~ E0602
