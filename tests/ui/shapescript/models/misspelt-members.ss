# A misspelt field, method or record keyword gets the closest name as a
# did-you-mean (a swap of two neighbouring letters is one edit); a name
# close to none lists the members there are.
record Stats {
  mean: [n] Real
  std: [n] NonNeg
}

model Lin {
  weight: [4 4]
  bias: [4]
  fn forward(self, x: [b 4]) -> [b 4] = x @ self.wieght + self.bias   # ~ E0409
  fn shifted(self, x: [b 4]) -> [b 4] = x + self.bais                 # ~ E0409
  fn again(self, x: [b 4]) -> [b 4] = self.froward(x)                # ~ E0409
  fn unknown(self, x: [b 4]) -> [b 4] = x + self.offset              # ~ E0409
  fn unknown_call(self, x: [b 4]) -> [b 4] = self.project(x)         # ~ E0409
  fn method_read(self, x: [b 4]) -> [b 4] = self.forward             # ~ E0409
}

fn spread(s: Stats) -> [4] = s.sdt to [4]                            # ~ E0409
fn make(m: [n], s: [n]) -> Stats = Stats(mean=m, stdd=s)            # ~ E0407
