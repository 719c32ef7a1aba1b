# Every top-level name is declared once (E0203).
dim D = 768
dim D = 512 # ~ E0203
extern fn D(x: Real) -> Real = "m.d" # ~ E0203
