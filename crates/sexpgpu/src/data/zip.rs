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

/// The size a member's first bytes say it has (`Ok(None)` while they say
/// nothing yet), or why they can't be what the archive should hold.
pub type Sizer<'s> = &'s dyn Fn(&[u8]) -> Result<Option<u64>, String>;

/// The archive's members in directory order, or why the bytes are not an
/// archive this reader understands (the tests' view of any archive).
#[cfg(test)]
pub fn members(bytes: &[u8]) -> Result<Vec<Member>, String> {
    members_within(bytes, &|_| Ok(None), (MAX_MEMBER_BYTES, MAX_TOTAL_BYTES))
}

/// The members of an `.npz` archive: each inflated only as far as its
/// `.npy` header says it reaches, so a member that declares two elements
/// and inflates to gigabytes is refused after a few kilobytes, and one
/// with bytes past its array is refused too.
pub fn npy_members(bytes: &[u8]) -> Result<Vec<Member>, String> {
    let size = |prefix: &[u8]| {
        sexpgpu_graph::npy_file_size(prefix)
            .map(|s| s.map(|s| s as u64))
            .map_err(|e| e.to_string())
    };
    members_within(bytes, &size, (MAX_MEMBER_BYTES, MAX_TOTAL_BYTES))
}

/// `members` with the sizer and the limits (per member, all together) as
/// arguments, so tests can reach them.
fn members_within(
    bytes: &[u8],
    size: Sizer,
    (per_member, total): (u64, u64),
) -> Result<Vec<Member>, String> {
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
        let data = inflate(member, &name, size, per_member.min(left))?;
        left -= data.len() as u64;
        out.push(Member { name, bytes: data });
    }
    Ok(out)
}

/// A member's bytes, read a little at a time: the buffer grows with the
/// bytes actually inflated, never with the size the archive declares; it
/// stops at `limit` (one byte past it tells it was reached) and, once
/// `size` learns the member's own size from its first bytes, one byte past
/// that. Reading to the end also checks the member's CRC-32.
fn inflate(member: impl Read, name: &str, size: Sizer, limit: u64) -> Result<Vec<u8>, String> {
    let mut reader = member.take(limit + 1);
    let mut data = Vec::new();
    let mut declared: Option<u64> = None;
    loop {
        let upto = match declared {
            Some(d) => d.saturating_add(1),
            None => (data.len() as u64 * 2).max(4096),
        }
        .min(limit + 1);
        (&mut reader)
            .take(upto.saturating_sub(data.len() as u64))
            .read_to_end(&mut data)
            .map_err(|e| format!("member `{name}` cannot be read: {e}"))?;
        if data.len() as u64 > limit {
            return Err(format!(
                "member `{name}` inflates to more than {limit} bytes, more than a tensor can hold"
            ));
        }
        if declared.is_none() {
            declared = size(&data).map_err(|e| format!("member `{name}`: {e}"))?;
        }
        if let Some(d) = declared.filter(|&d| data.len() as u64 > d) {
            return Err(format!(
                "member `{name}` holds bytes past the {d} its header declares"
            ));
        }
        // The member ran dry before `upto`: it is whole.
        if (data.len() as u64) < upto {
            return Ok(data);
        }
    }
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
        let err = members_within(&bytes, &|_| Ok(None), (1 << 10, 1 << 20))
            .err()
            .unwrap();
        assert_eq!(
            err,
            "member `big.npy` inflates to more than 1024 bytes, more than a tensor can hold"
        );
        let two = write(
            &[("a.npy", vec![0; 800]), ("b.npy", vec![0; 800])],
            CompressionMethod::Deflated,
        );
        assert!(members_within(&two, &|_| Ok(None), (1 << 10, 1 << 20)).is_ok());
        let err = members_within(&two, &|_| Ok(None), (1 << 10, 1200))
            .err()
            .unwrap();
        assert!(
            err.starts_with("member `b.npy` inflates to more than 400 bytes"),
            "{err}"
        );
    }

    /// A 3 MB member of zeros behind a header that declares two elements:
    /// refused after the header and one byte more, not inflated whole.
    #[test]
    fn an_npy_member_is_inflated_only_as_far_as_its_header_says() {
        let x = sexpgpu_graph::Tensor::from_f64s(
            sexpgpu_graph::Shape::new(vec![2]),
            &[1.0, 2.0],
            sexpgpu_graph::DType::F32,
        )
        .unwrap();
        let mut npy = sexpgpu_graph::to_npy(&x);
        let whole = npy.len();
        let fine = write(&[("x.npy", npy.clone())], CompressionMethod::Deflated);
        assert_eq!(npy_members(&fine).unwrap()[0].bytes.len(), whole);
        npy.extend(std::iter::repeat_n(0u8, 3 << 20));
        let bomb = write(&[("x.npy", npy)], CompressionMethod::Deflated);
        assert!(bomb.len() < 1 << 15, "{}", bomb.len());
        let err = npy_members(&bomb).err().unwrap();
        assert_eq!(
            err,
            format!("member `x.npy` holds bytes past the {whole} its header declares")
        );
    }

    #[test]
    fn a_member_that_is_no_npy_says_so() {
        let bytes = write_stored(&[("x.npy", b"not numpy at all".to_vec())]);
        let err = npy_members(&bytes).err().unwrap();
        assert!(err.starts_with("member `x.npy`: not a .npy file"), "{err}");
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
