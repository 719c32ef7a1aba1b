//! Reads the members of a `.zip` archive from bytes, as far as `.npz` files
//! need: stored (uncompressed) members, which is what `numpy.savez` writes.
//! Deflated members (`numpy.savez_compressed`) are refused with a reason.
//! Never touches files.

/// One member of an archive: its name and its bytes.
pub struct Member<'a> {
    pub name: String,
    pub bytes: &'a [u8],
}

const END_OF_DIRECTORY: u32 = 0x0605_4b50;
const DIRECTORY_ENTRY: u32 = 0x0201_4b50;
const LOCAL_HEADER: u32 = 0x0403_4b50;

fn u16_at(bytes: &[u8], at: usize) -> Option<usize> {
    let b = bytes.get(at..at + 2)?;
    Some(u16::from_le_bytes([b[0], b[1]]) as usize)
}

fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    let b = bytes.get(at..at + 4)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// The archive's members in directory order, or why the bytes are not an
/// archive this reader understands.
pub fn members(bytes: &[u8]) -> Result<Vec<Member<'_>>, String> {
    let not_zip = || "the file is not a zip archive (an .npz file is one)".to_string();
    // The end-of-directory record sits in the last 22 + 65535 bytes.
    let search_from = bytes.len().saturating_sub(22 + 65_535);
    let end = (search_from..bytes.len().saturating_sub(21))
        .rev()
        .find(|&i| u32_at(bytes, i) == Some(END_OF_DIRECTORY))
        .ok_or_else(not_zip)?;
    let count = u16_at(bytes, end + 10).ok_or_else(not_zip)?;
    let mut at = u32_at(bytes, end + 16).ok_or_else(not_zip)? as usize;
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        let truncated = || "the zip directory is truncated".to_string();
        if u32_at(bytes, at) != Some(DIRECTORY_ENTRY) {
            return Err(truncated());
        }
        let method = u16_at(bytes, at + 10).ok_or_else(truncated)?;
        let compressed = u32_at(bytes, at + 20).ok_or_else(truncated)? as usize;
        let name_len = u16_at(bytes, at + 28).ok_or_else(truncated)?;
        let extra_len = u16_at(bytes, at + 30).ok_or_else(truncated)?;
        let comment_len = u16_at(bytes, at + 32).ok_or_else(truncated)?;
        let local = u32_at(bytes, at + 42).ok_or_else(truncated)? as usize;
        let name_bytes = bytes
            .get(at + 46..at + 46 + name_len)
            .ok_or_else(truncated)?;
        let name = String::from_utf8_lossy(name_bytes).into_owned();
        if compressed == u32::MAX as usize || local == u32::MAX as usize {
            return Err(format!(
                "member `{name}` uses zip64, which is not supported"
            ));
        }
        if method != 0 {
            return Err(format!(
                "member `{name}` is compressed; save the arrays with numpy.savez, not numpy.savez_compressed"
            ));
        }
        if u32_at(bytes, local) != Some(LOCAL_HEADER) {
            return Err(format!("member `{name}` has no local header"));
        }
        let local_name = u16_at(bytes, local + 26).ok_or_else(truncated)?;
        let local_extra = u16_at(bytes, local + 28).ok_or_else(truncated)?;
        let start = local + 30 + local_name + local_extra;
        let data = bytes
            .get(start..start + compressed)
            .ok_or_else(|| format!("member `{name}` is truncated"))?;
        out.push(Member { name, bytes: data });
        at += 46 + name_len + extra_len + comment_len;
    }
    Ok(out)
}

/// Writes stored members as a zip archive (the tests make `.npz` files with it).
#[cfg(test)]
pub fn write_stored(members: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut directory = Vec::new();
    for (name, data) in members {
        let offset = out.len() as u32;
        let header = |sig: u32, central: bool| {
            let mut h = sig.to_le_bytes().to_vec();
            if central {
                h.extend(20u16.to_le_bytes());
            }
            h.extend([20, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
            h.extend(0u32.to_le_bytes()); // crc, not checked by readers here
            h.extend((data.len() as u32).to_le_bytes());
            h.extend((data.len() as u32).to_le_bytes());
            h.extend((name.len() as u16).to_le_bytes());
            h.extend(0u16.to_le_bytes());
            h
        };
        out.extend(header(LOCAL_HEADER, false));
        out.extend(name.as_bytes());
        out.extend(data);
        directory.extend(header(DIRECTORY_ENTRY, true));
        directory.extend([0u8; 10]);
        directory.extend(offset.to_le_bytes());
        directory.extend(name.as_bytes());
    }
    let dir_offset = out.len() as u32;
    out.extend(&directory);
    out.extend(END_OF_DIRECTORY.to_le_bytes());
    out.extend([0, 0, 0, 0]);
    out.extend((members.len() as u16).to_le_bytes());
    out.extend((members.len() as u16).to_le_bytes());
    out.extend((directory.len() as u32).to_le_bytes());
    out.extend(dir_offset.to_le_bytes());
    out.extend(0u16.to_le_bytes());
    out
}
