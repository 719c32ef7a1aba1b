# Files can't import each other in a circle (E0202).
import b # ~ E0202
dim A = 1
