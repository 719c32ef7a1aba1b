# Bug: the class token put in front of the patches without expanding it over
# the batch. The learned token is [1 1 D], one for the whole model, and
# concatenating over tokens needs every other axis to match: batch 1 against
# batch b (torch.cat: "Sizes of tensors must match except in dimension 1").
# Fix: repeat(cls, [1 t d] -> [b t d], b=b) first.
dim D = 768

fn prepend(cls: [1 c D], patches: [b n D]) -> [b c+n D] = concat(cls, patches, over=c)  # ~ E0401
