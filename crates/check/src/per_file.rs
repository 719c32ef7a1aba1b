//! `PerFile`: a table keyed by a file and a key within it, held as one small
//! hash table per file. The checker fills its tables module by module (each
//! right after the module is parsed), so a module's entries stay together
//! in memory and a table never rehashes the whole program's entries.

use diag::FileId;
use rustc_hash::FxHashMap as HashMap;
use std::hash::Hash;

/// A map from `(FileId, K)` to `V`, one hash table per file.
#[derive(Debug)]
pub struct PerFile<K, V> {
    /// By `FileId`'s number; files with no entries have an empty table,
    /// which allocates nothing.
    files: Vec<HashMap<K, V>>,
    len: usize,
}

impl<K, V> Default for PerFile<K, V> {
    fn default() -> Self {
        PerFile {
            files: Vec::new(),
            len: 0,
        }
    }
}

impl<K: Eq + Hash, V> PerFile<K, V> {
    pub fn get(&self, file: FileId, key: &K) -> Option<&V> {
        self.files.get(file.0 as usize)?.get(key)
    }

    /// The entry's own key with its value.
    pub fn get_key_value(&self, file: FileId, key: &K) -> Option<(&K, &V)> {
        self.files.get(file.0 as usize)?.get_key_value(key)
    }

    /// Adds or replaces the entry; returns the value it replaced.
    pub fn insert(&mut self, file: FileId, key: K, value: V) -> Option<V> {
        let old = self.table(file).insert(key, value);
        self.len += usize::from(old.is_none());
        old
    }

    pub fn remove(&mut self, file: FileId, key: &K) -> Option<V> {
        let old = self.files.get_mut(file.0 as usize)?.remove(key);
        self.len -= usize::from(old.is_some());
        old
    }

    /// Makes room for `more` entries of `file`.
    pub fn reserve(&mut self, file: FileId, more: usize) {
        self.table(file).reserve(more);
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.files.iter().flat_map(|table| table.values())
    }

    fn table(&mut self, file: FileId) -> &mut HashMap<K, V> {
        let slot = file.0 as usize;
        if self.files.len() <= slot {
            self.files.resize_with(slot + 1, HashMap::default);
        }
        &mut self.files[slot]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_found_by_file_and_key() {
        let mut table: PerFile<&str, u32> = PerFile::default();
        assert_eq!(table.insert(FileId(3), "a", 1), None);
        assert_eq!(table.insert(FileId(0), "a", 2), None);
        assert_eq!(table.insert(FileId(3), "a", 5), Some(1));
        assert_eq!(table.len(), 2);
        assert_eq!(table.get(FileId(3), &"a"), Some(&5));
        assert_eq!(table.get(FileId(1), &"a"), None);
        assert_eq!(table.get(FileId(9), &"a"), None);
        assert_eq!(table.remove(FileId(0), &"a"), Some(2));
        assert_eq!(table.remove(FileId(0), &"a"), None);
        let all: Vec<_> = table.values().collect();
        assert_eq!(all, vec![&5]);
    }
}
