# Bug: reducing over an axis that is already gone. The sum over tokens n
# removed n, and the mean then looks for n again; the author meant the mean
# over the batch.
# Fix: mean(sum(x, over=n), over=b).
dim D = 768

fn pooled(x: [b n D]) -> [D] = mean(sum(x, over=n), over=n)  # ~ E0405
