# Bug: pooling over the features instead of the tokens. Averaging a
# sentence's token vectors must remove the token axis n; over=D removes the
# features and leaves one number per token, [b n].
# Fix: mean(x, over=n).
dim D = 768

fn sentence_vector(x: [b n D]) -> [b D] = mean(x, over=D)  # ~ E0401
