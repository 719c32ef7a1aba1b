# Declarations that importers use as `vision.D`, `vision.Images`, `vision.Tokens`.
dim D = 768
dim Images = [b 3 16gh 16gw]
dim Tokens = [b n D]
