//! The generator's random numbers: wyrand (Wang Yi's 64-bit generator),
//! seeded, the same numbers on every machine, so a seed names one program
//! for ever. Changing the algorithm changes which program a seed gives
//! (the figures in `docs/fuzzing.md` name their seeds).

/// A seeded wyrand generator.
#[derive(Clone, Debug)]
pub struct Rng {
    state: u64,
}

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng {
            state: seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xA076_1D64_78BD_642F,
        }
    }

    /// The next 64 random bits.
    pub fn bits(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0xA076_1D64_78BD_642F);
        let t = u128::from(self.state) * u128::from(self.state ^ 0xE703_7ED1_A0B4_28DB);
        ((t >> 64) as u64) ^ (t as u64)
    }

    /// An integer in `lo..=hi` (`lo` when the range is empty).
    pub fn int(&mut self, lo: usize, hi: usize) -> usize {
        if hi <= lo {
            return lo;
        }
        lo + (self.bits() % (hi - lo + 1) as u64) as usize
    }

    /// True with probability `p`.
    pub fn coin(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.bits() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// One of `items` (not empty).
    pub fn choose<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.int(0, items.len() - 1)]
    }

    /// An index drawn with the given weights (their sum positive).
    pub fn weighted(&mut self, weights: &[u32]) -> usize {
        let total: u64 = weights.iter().map(|&w| u64::from(w)).sum();
        let mut left = self.bits() % total.max(1);
        for (i, &w) in weights.iter().enumerate() {
            if left < u64::from(w) {
                return i;
            }
            left -= u64::from(w);
        }
        weights.len() - 1
    }
}

#[cfg(test)]
mod tests {
    use super::Rng;

    #[test]
    fn a_seed_gives_one_stream_within_bounds() {
        let (mut a, mut b) = (Rng::new(3), Rng::new(3));
        let mut seen = [0; 4];
        for _ in 0..400 {
            assert_eq!(a.bits(), b.bits());
            let k = a.int(1, 4);
            b.int(1, 4);
            seen[k - 1] += 1;
        }
        assert!(seen.iter().all(|&n| n > 50), "{seen:?}");
        assert_ne!(Rng::new(1).bits(), Rng::new(2).bits());
        assert_eq!(a.weighted(&[0, 5, 0]), 1);
    }
}
