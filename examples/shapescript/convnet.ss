# A small convolutional network for CIFAR-10: 32 x 32 RGB images in, scores
# for 10 classes out. 620,362 parameters.
#
#   conv 3 -> 32, 3x3, stride 1, padding 1   32 x 32 -> 32 x 32, relu
#   max pool 2x2                             32 x 32 -> 16 x 16
#   conv 32 -> 64, 3x3, stride 1, padding 1  16 x 16 -> 16 x 16, relu
#   max pool 2x2                             16 x 16 ->  8 x  8
#   conv 64 -> 128, 3x3, stride 2, padding 1  8 x  8 ->  4 x  4, relu
#   flatten 128 x 4 x 4 = 2048, linear -> 256, relu, linear -> 10
#
# The spatial sizes are never written by hand: they come from the return
# types of the prelude's `conv2d` and `max_pool2d`, torch's formula
# (H + 2*P - K) / S + 1 rounding down. The last convolution is where the
# rounding matters: (8 + 2 - 3) / 2 + 1 is 7 / 2 + 1, which is 4. The first
# linear layer's input width, 2048, is then checked against what the
# convolutions produce, so changing a stride or a padding without changing
# `Flat` is an error before anything runs.
#
# Parameter names follow torch's nn.Conv2d and nn.Linear (`conv1.weight`,
# `fc1.bias`...).

# ---------------------------------------------------------------- sizes

## Height and width of the input images.
dim Image = 32

## Classes of CIFAR-10.
dim Classes = 10

## Channels after each convolution.
dim C1 = 32
dim C2 = 64
dim C3 = 128

## Values per image after the last convolution: 128 channels of 4 x 4.
dim Flat = C3 * 4 * 4

## Hidden width of the classifier.
dim Hidden = 256

# ------------------------------------------------------------- layers

## The rectified linear unit, max(x, 0). Not in the prelude, so it is
## declared here: the return type says its values are never negative.
extern fn relu(x: Real) -> NonNeg = "torch.relu"

## The weights of a K x K convolution from Cin to Cout channels, torch's
## layout. Stride and padding are chosen where it is applied.
model Conv(Cin, Cout, K) {
  weight: [Cout Cin K K] = normal(std=0.05)
  bias: [Cout] = zeros
}

## A fully connected layer on a batch of vectors, weight [Dout Din].
model Dense(Din, Dout) {
  weight: [Dout Din] = normal(std=0.02)
  bias: [Dout] = zeros
  fn forward(self, x: [b Din]) -> [b Dout] = linear(x, self.weight, self.bias)
}

# -------------------------------------------------------------- model

## The CIFAR-10 network: a batch of images in, one score per class out.
model ConvNet {
  conv1: Conv(3, C1, 3)
  conv2: Conv(C1, C2, 3)
  conv3: Conv(C2, C3, 3)
  fc1: Dense(Flat, Hidden)
  fc2: Dense(Hidden, Classes)

  fn forward(self, img: [b 3 Image Image]) -> [b Classes] {
    # [b 32 32 32]: padding 1 keeps a 3x3 convolution's output the size of its input.
    let c1 = relu(conv2d(img, self.conv1.weight, self.conv1.bias, stride=1, padding=1))
    # [b 32 16 16]: a 2x2 window with stride 2 (the default: the window) halves each side.
    let p1 = max_pool2d(c1, 2)
    # [b 64 16 16], then [b 64 8 8].
    let c2 = relu(conv2d(p1, self.conv2.weight, self.conv2.bias, stride=1, padding=1))
    let p2 = max_pool2d(c2, 2)
    # [b 128 4 4]: stride 2 on 8 x 8 with padding 1 rounds (8 + 2 - 3) / 2 down to 3, plus 1.
    let c3 = relu(conv2d(p2, self.conv3.weight, self.conv3.bias, stride=2, padding=1))
    # [b 2048], in torch's flatten order: channel, then row, then column.
    let flat: [b Flat] = rearrange(c3, [b c h w] -> [b (c h w)])
    self.fc2(relu(self.fc1(flat)))
  }

  ## The most likely class of each image: an id below Classes.
  fn predict(self, img: [b 3 Image Image]) -> [b] Index[Classes] =
    argmax(self.forward(img), over=Classes)
}
