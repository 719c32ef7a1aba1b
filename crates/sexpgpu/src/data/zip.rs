//! Reads the members of a `.zip` archive from bytes, as `.npz` files need:
//! stored members (`numpy.savez`) and deflated ones
//! (`numpy.savez_compressed`), through the `zip` crate. What a member
//! inflates to is bounded by what one tensor can hold, so a small crafted
//! file cannot ask for unbounded memory. `archive` writes the stored
//! members of `save-npz`. Never touches files.

use std::io::{Cursor, Read};

/// The most elements a tensor may have (the graph crate's limit, which
/// tracing and `.npy` reading obey too).
const TENSOR_ELEMENTS: u64 = sexpgpu_graph::MAX_ELEMENTS as u64;

/// One member of an archive: its name and its (inflated) bytes.
pub struct Member {
    pub name: String,
    pub bytes: Vec<u8>,
}

/// The most bytes one member may inflate to: the largest tensor, of 8-byte
/// elements, and a generous `.npy` header.
pub const MAX_MEMBER_BYTES: u64 = 8 * TENSOR_ELEMENTS + (1 << 20);

/// The most bytes all members together may inflate to.
pub const MAX_TOTAL_BYTES: u64 = 4 * MAX_MEMBER_BYTES;

/// The archive's members in directory order, or why the bytes are not an
/// archive this reader understands.
pub fn members(bytes: &[u8]) -> Result<Vec<Member>, String> {
    members_within(bytes, MAX_MEMBER_BYTES, MAX_TOTAL_BYTES)
}

/// `members` with the limits as arguments, so tests can reach them.
fn members_within(bytes: &[u8], per_member: u64, total: u64) -> Result<Vec<Member>, String> {
    let mut archive = ::zip::ZipArchive::new(Cursor::new(bytes)).map_err(|e| {
        if bytes.starts_with(b"PK") {
            format!("the zip archive is damaged: {e}")
        } else {
            "the file is not a zip archive (an .npz file is one)".to_string()
        }
    })?;
    let mut out = Vec::with_capacity(archive.len().min(1024));
    let mut left = total;
    for index in 0..archive.len() {
        let member = archive
            .by_index(index)
            .map_err(|e| format!("member {} cannot be read: {e}", index + 1))?;
        let name = String::from_utf8_lossy(member.name_raw()).into_owned();
        let limit = per_member.min(left);
        // The buffer grows with the bytes actually inflated, never with the
        // size the archive declares; one byte past the limit tells it was
        // reached. Reading to the end also checks the member's CRC-32.
        let mut data = Vec::new();
        member
            .take(limit + 1)
            .read_to_end(&mut data)
            .map_err(|e| format!("member `{name}` cannot be read: {e}"))?;
        if data.len() as u64 > limit {
            return Err(format!(
                "member `{name}` inflates to more than {limit} bytes, more than a tensor can hold"
            ));
        }
        left -= data.len() as u64;
        out.push(Member { name, bytes: data });
    }
    Ok(out)
}

/// An archive of stored (uncompressed) members, as `numpy.savez` writes
/// (`save-npz`).
pub fn archive(members: &[(String, Vec<u8>)]) -> Result<Vec<u8>, String> {
    use std::io::Write;
    let mut writer = ::zip::ZipWriter::new(Cursor::new(Vec::new()));
    let options = ::zip::write::SimpleFileOptions::default()
        .compression_method(::zip::CompressionMethod::Stored)
        .large_file(members.iter().any(|(_, d)| d.len() >= u32::MAX as usize));
    for (name, data) in members {
        writer
            .start_file(name.as_str(), options)
            .map_err(|e| format!("cannot add `{name}`: {e}"))?;
        writer
            .write_all(data)
            .map_err(|e| format!("cannot add `{name}`: {e}"))?;
    }
    let cursor = writer
        .finish()
        .map_err(|e| format!("cannot finish the archive: {e}"))?;
    Ok(cursor.into_inner())
}

/// Writes members as a zip archive (the tests make `.npz` files with it),
/// each stored or deflated.
#[cfg(test)]
pub fn write(members: &[(&str, Vec<u8>)], method: ::zip::CompressionMethod) -> Vec<u8> {
    use std::io::Write;
    let mut writer = ::zip::ZipWriter::new(Cursor::new(Vec::new()));
    let options = ::zip::write::SimpleFileOptions::default().compression_method(method);
    for (name, data) in members {
        writer.start_file(*name, options).unwrap();
        writer.write_all(data).unwrap();
    }
    writer.finish().unwrap().into_inner()
}

/// Writes stored members as a zip archive, as `numpy.savez` does.
#[cfg(test)]
pub fn write_stored(members: &[(&str, Vec<u8>)]) -> Vec<u8> {
    write(members, ::zip::CompressionMethod::Stored)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ::zip::CompressionMethod;
    use proptest::prelude::*;

    /// Written by `numpy.savez_compressed("compressed.npz", x=np.arange(6,
    /// dtype=np.float32).reshape(2, 3), y=np.array([1, 2, 3], dtype=np.int64))`
    /// with NumPy 2.3: two deflated members.
    const SAVEZ_COMPRESSED: &[u8] = include_bytes!("testdata/compressed.npz");

    fn names_and_sizes(found: &[Member]) -> Vec<(String, usize)> {
        found
            .iter()
            .map(|m| (m.name.clone(), m.bytes.len()))
            .collect()
    }

    #[test]
    fn reads_what_numpy_savez_compressed_writes() {
        let found = members(SAVEZ_COMPRESSED).unwrap();
        let names: Vec<&str> = found.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["x.npy", "y.npy"]);
        let x = sexpgpu_graph::from_npy(&found[0].bytes).unwrap();
        assert_eq!(x.to_clojure_string(), "[[0.0 1.0 2.0] [3.0 4.0 5.0]]");
        let y = sexpgpu_graph::from_npy(&found[1].bytes).unwrap();
        assert_eq!(y.to_clojure_string(), "[1 2 3]");
    }

    #[test]
    fn stored_and_deflated_members_read_the_same() {
        let data = vec![("a.npy", vec![7u8; 5000]), ("b.npy", b"hello".to_vec())];
        for method in [CompressionMethod::Stored, CompressionMethod::Deflated] {
            let found = members(&write(&data, method)).unwrap();
            assert_eq!(
                names_and_sizes(&found),
                [("a.npy".to_string(), 5000), ("b.npy".to_string(), 5)]
            );
            assert_eq!(found[1].bytes, b"hello");
        }
    }

    #[test]
    fn a_member_past_the_limit_is_refused_not_inflated() {
        // 64 KiB of zeros deflate to a few hundred bytes.
        let bytes = write(
            &[("big.npy", vec![0; 1 << 16])],
            CompressionMethod::Deflated,
        );
        assert!(bytes.len() < 1 << 12);
        let err = members_within(&bytes, 1 << 10, 1 << 20).err().unwrap();
        assert_eq!(
            err,
            "member `big.npy` inflates to more than 1024 bytes, more than a tensor can hold"
        );
        let two = write(
            &[("a.npy", vec![0; 800]), ("b.npy", vec![0; 800])],
            CompressionMethod::Deflated,
        );
        assert!(members_within(&two, 1 << 10, 1 << 20).is_ok());
        let err = members_within(&two, 1 << 10, 1200).err().unwrap();
        assert!(
            err.starts_with("member `b.npy` inflates to more than 400 bytes"),
            "{err}"
        );
    }

    #[test]
    fn a_damaged_member_is_an_error() {
        let mut bytes = write_stored(&[("x.npy", b"some array bytes".to_vec())]);
        let at = bytes.windows(4).position(|w| w == b"some").unwrap();
        bytes[at] ^= 0xff;
        let err = members(&bytes).err().unwrap();
        assert!(err.starts_with("member `x.npy` cannot be read"), "{err}");
    }

    #[test]
    fn not_a_zip_and_a_truncated_zip_say_so() {
        assert_eq!(
            members(b"hello").err().unwrap(),
            "the file is not a zip archive (an .npz file is one)"
        );
        let bytes = write_stored(&[("x.npy", vec![1; 100])]);
        let err = members(&bytes[..bytes.len() - 30]).err().unwrap();
        assert!(err.starts_with("the zip archive is damaged"), "{err}");
    }

    /// A zip64 end record that declares 2^40 entries, a directory of 2^50
    /// bytes and offsets far past the end of the 98-byte file.
    fn zip64_claiming_too_much() -> Vec<u8> {
        let huge: u64 = 1 << 40;
        let mut bytes = Vec::new();
        bytes.extend(0x0606_4b50u32.to_le_bytes());
        bytes.extend(44u64.to_le_bytes());
        bytes.extend(45u16.to_le_bytes());
        bytes.extend(45u16.to_le_bytes());
        bytes.extend(0u32.to_le_bytes());
        bytes.extend(0u32.to_le_bytes());
        bytes.extend(huge.to_le_bytes());
        bytes.extend(huge.to_le_bytes());
        bytes.extend((1u64 << 50).to_le_bytes());
        bytes.extend(huge.to_le_bytes());
        bytes.extend(0x0706_4b50u32.to_le_bytes());
        bytes.extend(0u32.to_le_bytes());
        bytes.extend(0u64.to_le_bytes());
        bytes.extend(1u32.to_le_bytes());
        bytes.extend(0x0605_4b50u32.to_le_bytes());
        bytes.extend([0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff]);
        bytes.extend([0xff; 8]);
        bytes.extend([0, 0]);
        bytes
    }

    #[test]
    fn declared_counts_and_sizes_are_not_trusted() {
        let bytes = zip64_claiming_too_much();
        assert_eq!(bytes.len(), 98);
        assert!(members(&bytes).is_err());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Crafted archives (a valid one with bytes overwritten, cut short
        /// or extended) give an answer, never a panic or a huge allocation.
        #[test]
        fn mutated_archives_never_panic(
            deflated in any::<bool>(),
            edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..8),
            cut in any::<prop::sample::Index>(),
            tail in proptest::collection::vec(any::<u8>(), 0..64),
        ) {
            let method = if deflated { CompressionMethod::Deflated } else { CompressionMethod::Stored };
            let mut bytes = write(&[("x.npy", vec![3; 300]), ("y.npy", vec![4; 40])], method);
            for (at, value) in edits {
                let i = at.index(bytes.len());
                bytes[i] = value;
            }
            bytes.truncate(cut.index(bytes.len() + 1));
            bytes.extend(tail);
            let _ = members(&bytes);
        }

        #[test]
        fn random_bytes_never_panic(mut bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
            let _ = members(&bytes);
            // With the signatures that make a reader look further.
            bytes.splice(0..0, *b"PK\x03\x04");
            bytes.extend(b"PK\x05\x06");
            let _ = members(&bytes);
        }
    }
}
