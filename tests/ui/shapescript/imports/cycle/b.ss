# The other half of the cycle.
import a # ~ E0202
dim B = a.A
