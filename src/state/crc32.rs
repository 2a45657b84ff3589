//! CRC-32 (IEEE 802.3, the checksum of zlib, PNG and gzip: `zlib.crc32` computes the same
//! numbers), by the `crc32fast` crate (carry-less multiplication where the processor has
//! it). It detects every error of up to 32 consecutive bits, so every flipped bit of a
//! state (Koopman, "32-bit cyclic redundancy codes for Internet applications", DSN 2002).

/// The CRC-32 of `parts`, read one after the other.
pub fn crc32(parts: &[&[u8]]) -> u32 {
    let mut h = crc32fast::Hasher::new();
    for part in parts {
        h.update(part);
    }
    h.finalize()
}

#[cfg(test)]
mod tests {
    use super::crc32;

    #[test]
    fn check_values() {
        // The catalogue's check value of CRC-32/ISO-HDLC, and zlib.crc32 of the others.
        assert_eq!(crc32(&[b"123456789"]), 0xCBF4_3926);
        assert_eq!(crc32(&[b""]), 0);
        assert_eq!(crc32(&[b"1234", b"56789"]), 0xCBF4_3926);
        assert_eq!(crc32(&[b"The quick brown fox jumps over the lazy dog"]), 0x414F_A339);
    }
}
