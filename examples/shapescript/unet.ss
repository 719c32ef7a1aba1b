# A U-Net for image segmentation with the widths of the original
# (Ronneberger, Fischer and Brox, 2015): 64, 128, 256, 512 and 1024 channels
# over four halvings of the image, RGB images in, a score per class for
# every pixel out.
#
#   inc     double conv 3 -> 64                  16h x 16w
#   down1   max pool 2x2, double conv 64 -> 128   8h x  8w
#   down2   max pool 2x2, double conv 128 -> 256  4h x  4w
#   down3   max pool 2x2, double conv 256 -> 512  2h x  2w
#   down4   max pool 2x2, double conv 512 -> 1024  h x   w
#   up1     upsample x2, concat the 512 of down3, double conv -> 512
#   up2     upsample x2, concat the 256 of down2, double conv -> 256
#   up3     upsample x2, concat the 128 of down1, double conv -> 128
#   up4     upsample x2, concat the 64 of inc, double conv -> 64
#   outc    1x1 conv 64 -> classes
#
# A double conv is two 3x3 convolutions with padding 1, each followed by a
# relu. As in most U-Nets since the original, the convolutions are padded
# (so the output has the size of the input) and the up path upsamples
# bilinearly with `interpolate` rather than with a transposed convolution.
#
# The image's sides are `16h` and `16w`: any multiple of 16, which is what
# four halvings need to come back to the same size. The checker follows
# each side through `max_pool2d`'s rounded-down formula and `interpolate`'s
# doubling, so a skip connection concatenated at the wrong level is an
# error before anything runs. 31,031,810 parameters.

# ---------------------------------------------------------------- sizes

## Channels of the input images (RGB).
dim Channels = 3

## Classes each pixel is scored for.
dim Classes = 2

## Channels at each of the five levels, from the full image down.
dim C1 = 64
dim C2 = 2 * C1
dim C3 = 2 * C2
dim C4 = 2 * C3
dim C5 = 2 * C4

# ------------------------------------------------------------- layers

## The weights of a K x K convolution from Cin to Cout channels, torch's
## layout (as nn.Conv2d), He (fan-in) initialised for the relu after it:
## a standard deviation of sqrt(2 / fan_in), fan_in = Cin * K * K.
model Conv(Cin, Cout, K) {
  weight: [Cout Cin K K] = normal(std=(2.0 / (Cin * K * K)) ** 0.5)
  bias: [Cout] = zeros
}

## Two 3x3 convolutions, each followed by a relu; padding 1 keeps the size.
model DoubleConv(Cin, Cout) {
  conv1: Conv(Cin, Cout, 3)
  conv2: Conv(Cout, Cout, 3)
  fn forward(self, x: [b Cin h w]) -> [b Cout h w] {
    let y = relu(conv2d(x, self.conv1.weight, self.conv1.bias, padding=1))
    relu(conv2d(y, self.conv2.weight, self.conv2.bias, padding=1))
  }
}

## One step down: halve each side by 2x2 max pooling, then a double conv.
model Down(Cin, Cout) {
  conv: DoubleConv(Cin, Cout)
  fn forward(self, x: [b Cin 2h 2w]) -> [b Cout h w] = self.conv(max_pool2d(x, 2))
}

## One step up: double each side (bilinear), put the skip connection of
## the same level beside it on the channel axis, then a double conv.
model Up(Cin, Cskip, Cout) {
  conv: DoubleConv(Cin + Cskip, Cout)
  fn forward(self, x: [b Cin h w], skip: [b Cskip 2h 2w]) -> [b Cout 2h 2w] {
    let up = interpolate(x, 2, bilinear=true)
    self.conv(concat(up, skip, over=Cin))
  }
}

# -------------------------------------------------------------- model

## The U-Net: images in, per-pixel class scores (logits) out.
model UNet {
  inc: DoubleConv(Channels, C1)
  down1: Down(C1, C2)
  down2: Down(C2, C3)
  down3: Down(C3, C4)
  down4: Down(C4, C5)
  up1: Up(C5, C4, C4)
  up2: Up(C4, C3, C3)
  up3: Up(C3, C2, C2)
  up4: Up(C2, C1, C1)
  outc: Conv(C1, Classes, 1)

  fn forward(self, img: [b Channels 16h 16w]) -> [b Classes 16h 16w] {
    let x1 = self.inc(img)
    let x2 = self.down1(x1)
    let x3 = self.down2(x2)
    let x4 = self.down3(x3)
    let x5 = self.down4(x4)
    let y4 = self.up1(x5, x4)
    let y3 = self.up2(y4, x3)
    let y2 = self.up3(y3, x2)
    let y1 = self.up4(y2, x1)
    conv2d(y1, self.outc.weight, self.outc.bias)
  }
}
