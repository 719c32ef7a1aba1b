//! Interned identifiers: `Name` is one copyable pointer that compares and
//! hashes by address, shared by the parser, the checker and every tool.
//!
//! Why: a program of 100,000 lines holds about a million identifiers but a
//! few thousand distinct names. Owning a `String` per identifier made the
//! parser allocate for each and the checker clone, hash and compare bytes
//! wherever it looked a name up. An interned name costs nothing to copy, and
//! equality is one comparison.
//!
//! The table is global to the process and never shrinks, like rustc's symbol
//! table: the language server keeps the names of every version of a file it
//! has seen, which is bounded by what a person types (a few bytes each).
//! Each thread keeps its own cache in front of the shared table, so the
//! lexer's hot path takes no lock.

use std::borrow::Borrow;
use std::cell::RefCell;
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::{Mutex, OnceLock};

use rustc_hash::FxHashSet;

/// An interned identifier. Two `Name`s are equal exactly when their texts
/// are; ordering is by text, so sorted output does not depend on the order
/// names were first seen.
///
/// One pointer wide (to the name's one `&str`), so identifiers, size symbols
/// and axes stay small: every node that names something holds one.
#[derive(Clone, Copy)]
pub struct Name(&'static &'static str);

/// A table entry: the name's one `&str`, found by its text.
#[derive(Clone, Copy)]
struct Entry(&'static &'static str);

impl Borrow<str> for Entry {
    fn borrow(&self) -> &str {
        self.0
    }
}

impl PartialEq for Entry {
    fn eq(&self, other: &Entry) -> bool {
        *self.0 == *other.0
    }
}

impl Eq for Entry {}

impl Hash for Entry {
    fn hash<H: Hasher>(&self, state: &mut H) {
        // As `str` hashes, so that lookups by `&str` find it.
        (*self.0).hash(state)
    }
}

/// The process-wide table of every name's one copy.
fn global() -> &'static Mutex<FxHashSet<Entry>> {
    static TABLE: OnceLock<Mutex<FxHashSet<Entry>>> = OnceLock::new();
    TABLE.get_or_init(Default::default)
}

thread_local! {
    /// This thread's view of the table: every name it has interned.
    static LOCAL: RefCell<FxHashSet<Entry>> = RefCell::new(FxHashSet::default());
}

/// The empty name's one `&str`, so that every empty `Name` is one address.
static EMPTY_TEXT: &str = "";

impl Name {
    /// The name with this text, interning it on first use.
    pub fn new(text: &str) -> Name {
        if text.is_empty() {
            return Name::EMPTY;
        }
        LOCAL.with(|local| {
            if let Some(&Entry(interned)) = local.borrow().get(text) {
                return Name(interned);
            }
            let interned = {
                // A panic elsewhere while holding the lock leaves the set
                // consistent (inserts are atomic from our side), so a
                // poisoned lock is still usable.
                let mut table = global().lock().unwrap_or_else(|e| e.into_inner());
                match table.get(text) {
                    Some(&Entry(interned)) => interned,
                    None => {
                        let leaked: &'static str = Box::leak(text.into());
                        let leaked: &'static &'static str = Box::leak(Box::new(leaked));
                        table.insert(Entry(leaked));
                        leaked
                    }
                }
            };
            local.borrow_mut().insert(Entry(interned));
            Name(interned)
        })
    }

    /// The empty name: what the parser gives an identifier it could not find.
    pub const EMPTY: Name = Name(&EMPTY_TEXT);

    pub fn as_str(self) -> &'static str {
        self.0
    }
}

impl Default for Name {
    fn default() -> Self {
        Name::EMPTY
    }
}

impl PartialEq for Name {
    fn eq(&self, other: &Name) -> bool {
        // Interned: equal texts share one address (the empty one too).
        std::ptr::eq(self.0, other.0)
    }
}

impl Eq for Name {}

impl Hash for Name {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_usize(std::ptr::from_ref(self.0) as usize);
    }
}

impl PartialOrd for Name {
    fn partial_cmp(&self, other: &Name) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Name {
    fn cmp(&self, other: &Name) -> Ordering {
        if self == other {
            return Ordering::Equal;
        }
        // Most names differ in their first byte (`H`, `P`, `kh`): tell
        // those apart without the library's byte comparison, since size
        // polynomials keep their symbols sorted and compare them often.
        let (a, b) = (self.0.as_bytes(), other.0.as_bytes());
        match (a.first(), b.first()) {
            (Some(x), Some(y)) if x != y => x.cmp(y),
            _ => a.cmp(b),
        }
    }
}

impl std::ops::Deref for Name {
    type Target = str;
    fn deref(&self) -> &str {
        self.0
    }
}

impl AsRef<str> for Name {
    fn as_ref(&self) -> &str {
        self.0
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(*self.0, f)
    }
}

impl PartialEq<str> for Name {
    fn eq(&self, other: &str) -> bool {
        *self.0 == other
    }
}

impl PartialEq<&str> for Name {
    fn eq(&self, other: &&str) -> bool {
        *self.0 == *other
    }
}

impl PartialEq<String> for Name {
    fn eq(&self, other: &String) -> bool {
        *self.0 == other.as_str()
    }
}

impl PartialEq<Name> for str {
    fn eq(&self, other: &Name) -> bool {
        self == *other.0
    }
}

impl PartialEq<Name> for String {
    fn eq(&self, other: &Name) -> bool {
        self.as_str() == *other.0
    }
}

impl PartialEq<Name> for &str {
    fn eq(&self, other: &Name) -> bool {
        *self == *other.0
    }
}

impl From<&str> for Name {
    fn from(text: &str) -> Name {
        Name::new(text)
    }
}

impl From<&Name> for Name {
    fn from(name: &Name) -> Name {
        *name
    }
}

impl From<&String> for Name {
    fn from(text: &String) -> Name {
        Name::new(text)
    }
}

impl From<Name> for String {
    fn from(name: Name) -> String {
        name.0.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::Name;

    #[test]
    fn equal_texts_are_one_name_across_threads() {
        let here = Name::new("heads");
        let there = std::thread::spawn(|| Name::new("heads")).join().unwrap();
        assert_eq!(here, there);
        assert!(std::ptr::eq(here.as_str(), there.as_str()));
        assert_ne!(here, Name::new("head"));
        assert_eq!(here, "heads");
    }

    #[test]
    fn a_name_is_one_pointer() {
        assert_eq!(std::mem::size_of::<Name>(), 8);
        assert_eq!(std::mem::size_of::<Option<Name>>(), 8);
    }

    #[test]
    fn order_is_by_text_not_by_first_use() {
        let (late, early) = (Name::new("zz_first_seen"), Name::new("aa_seen_second"));
        assert!(early < late);
        let mut names = vec![late, early, Name::EMPTY];
        names.sort();
        assert_eq!(names, [Name::EMPTY, early, late]);
    }

    #[test]
    fn order_matches_the_texts_order() {
        let texts = [
            "", "H", "Hb", "P", "kh", "kw", "Dh", "D", "\u{e9}", "e", "ab", "a",
        ];
        for a in texts {
            for b in texts {
                assert_eq!(Name::new(a).cmp(&Name::new(b)), a.cmp(b), "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn empty_names_are_equal_and_hash_alike() {
        use std::collections::HashSet;
        let set: HashSet<Name> = [Name::EMPTY, Name::new(""), Name::default()].into();
        assert_eq!(set.len(), 1);
    }
}
