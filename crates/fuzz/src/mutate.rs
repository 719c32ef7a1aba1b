//! A small deterministic mutator, for the fixed-seed campaigns of
//! `scripts/test` (AFL++ does the long runs): each case is a seed with a
//! few edits of the kinds AFL++'s havoc stage makes — bits flipped, bytes
//! set to edge values, ranges deleted, copied or swapped with another
//! seed's, dictionary words inserted, the input cut short.

use uitest::support::Rng;

/// Values that sit on edges: 0, signs, powers of two, ASCII that parsers
/// treat specially.
const INTERESTING: &[u8] = b"\x00\x01\x7f\x80\xff-+.eE9[](){}\"\\\n#;:,";

/// One mutated input: `seed` edited one to eight times, words from
/// `dictionary` and pieces of `others` spliced in.
pub fn mutate(rng: &mut Rng, seed: &[u8], others: &[Vec<u8>], dictionary: &[String]) -> Vec<u8> {
    let mut data = seed.to_vec();
    for _ in 0..1 + rng.below(8) {
        edit(rng, &mut data, others, dictionary);
    }
    data
}

fn edit(rng: &mut Rng, data: &mut Vec<u8>, others: &[Vec<u8>], dictionary: &[String]) {
    let at = |rng: &mut Rng, data: &Vec<u8>| rng.below(data.len() + 1);
    match rng.below(8) {
        0 if !data.is_empty() => {
            let i = rng.below(data.len());
            data[i] ^= 1 << rng.below(8);
        }
        1 if !data.is_empty() => {
            let i = rng.below(data.len());
            data[i] = INTERESTING[rng.below(INTERESTING.len())];
        }
        2 if !data.is_empty() => {
            let start = rng.below(data.len());
            let len = 1 + rng.below((data.len() - start).min(64));
            data.drain(start..start + len);
        }
        3 if !data.is_empty() => {
            let start = rng.below(data.len());
            let len = 1 + rng.below((data.len() - start).min(64));
            let piece: Vec<u8> = data[start..start + len].to_vec();
            let to = at(rng, data);
            data.splice(to..to, piece);
        }
        4 | 5 if !dictionary.is_empty() => {
            let word = dictionary[rng.below(dictionary.len())].as_bytes().to_vec();
            let to = at(rng, data);
            data.splice(to..to, word);
        }
        6 if !others.is_empty() => {
            let other = &others[rng.below(others.len())];
            if !other.is_empty() {
                let start = rng.below(other.len());
                let len = 1 + rng.below((other.len() - start).min(256));
                let to = at(rng, data);
                data.splice(to..to, other[start..start + len].iter().copied());
            }
        }
        _ => {
            let keep = at(rng, data);
            data.truncate(keep);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_gives_the_same_inputs_each_time() {
        let words = vec!["fn".to_string()];
        let make = || {
            let mut rng = Rng::new(7);
            (0..50)
                .map(|_| mutate(&mut rng, b"fn f(x: [n]) -> [n] = x", &[], &words))
                .collect::<Vec<_>>()
        };
        let (a, b) = (make(), make());
        assert_eq!(a, b);
        assert!(a.iter().any(|m| m != b"fn f(x: [n]) -> [n] = x"));
    }
}
