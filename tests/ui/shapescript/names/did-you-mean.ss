# An unknown name close to a known one gets a "did you mean" help, as rustc
# gives: a misspelt function (this file's, or a built-in), a misspelt local.
# A name close to nothing keeps the generic help.
dim D = 768

fn double(x: [n D]) -> [n D] = x + x

fn calls_a_typo(inputs: [n D]) -> [n D] = doubel(inputs) # ~ E0301

fn reads_a_typo(inputs: [n D]) -> [n D] = double(input) # ~ E0301

fn builtin_typo(x: [n D]) -> [n D] = softmx(x, over=D) # ~ E0301

fn far_from_everything(x: [n D]) -> [n D] = zzzzzz(x) # ~ E0301
