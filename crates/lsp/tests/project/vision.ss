## Colour channels.
dim C = 3
dim Images = [b C 16gh 16gw]
