# A dim's value must be a whole number of at least 1, and its divisions exact (E0305).
dim Z = 4 - 4      # ~ E0305
dim Neg = 1 - 3    # ~ E0305
dim Q = 768 / 5    # ~ E0305
dim ByZero = 3 / 0 # ~ E0305
dim Fine = 2 * Z   # uses the broken Z: no second error
