//! The bytes of a state: a header, then the value in a self-describing encoding.
//!
//! ```text
//! offset 0   4 bytes  MAGIC, "KSTM" (kernelstream state, tagged MessagePack)
//!        4   u32 LE   the type's format version (StateVersion::STATE_VERSION)
//!        8   u32 LE   CRC-32 of bytes 0..8 and of the payload (state::crc32)
//!       12   ...      payload: MessagePack of the value (rmp-serde), structs as maps by
//!                     field name, enum variants by name
//! ```
//!
//! Fields are read by name, so a field added later with `#[serde(default)]` takes its
//! default when an older state lacks it, and a field a later release dropped is
//! ignored: such changes keep the format version. A change that cannot be read that
//! way (a field's meaning or type changes) bumps the version, and a state of another
//! version is refused by a message that names both.
//!
//! Decoding reads at most the input: sequences are pre-allocated only up to serde's
//! cautious size hint (1 MiB), strings and byte strings grow as they are read (never by
//! their declared length), nesting is limited (rmp-serde's depth limit, set to 256
//! here), and trailing bytes are refused.
//!
//! MessagePack rather than CBOR (ciborium) or bincode: on a NystromAWV of 2000 rows
//! (a 16 MB state) it decodes in about 0.6 of ciborium's time, at 1.12 of bincode's size
//! (each float takes 9 bytes); the figures are in the commit that chose it.
//!
//! States of kernelstream's development snapshots before 0.1.0 were positional
//! (bincode after a bare u32 version): they are refused with a message saying so.

use super::crc32::crc32;
use super::StateVersion;
use crate::error::{KsError, Result};

/// The first four bytes of every state of the tagged format.
pub const MAGIC: [u8; 4] = *b"KSTM";
/// Bytes before the payload.
pub const HEADER: usize = 12;

/// `value` as state bytes (its type's format version in the header).
pub fn encode<T: serde::Serialize + StateVersion>(value: &T) -> Result<Vec<u8>> {
    encode_as(T::STATE_VERSION, value)
}

/// `value` as state bytes with format version `version` (tests write older versions).
pub fn encode_as<T: serde::Serialize>(version: u32, value: &T) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(4096);
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    let mut ser = rmp_serde::Serializer::new(&mut out).with_struct_map();
    value
        .serialize(&mut ser)
        .map_err(|e| KsError::Internal(format!("could not serialise the learner state: {e}")))?;
    let sum = crc32(&[&out[..8], &out[HEADER..]]);
    out[8..HEADER].copy_from_slice(&sum.to_le_bytes());
    Ok(out)
}

/// The format version a state's header declares, once its magic and checksum hold.
pub fn version_of(bytes: &[u8]) -> Result<u32> {
    if bytes.len() < HEADER || bytes[..4] != MAGIC {
        return Err(not_tagged(bytes));
    }
    let word = |i: usize| u32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
    let (version, stored) = (word(4), word(8));
    let sum = crc32(&[&bytes[..8], &bytes[HEADER..]]);
    if sum != stored {
        return crate::input_err!(
            "corrupt learner state: checksum {sum:08x} of its {} bytes, {stored:08x} stored \
             (the bytes were changed after they were written)",
            bytes.len()
        );
    }
    Ok(version)
}

/// Decodes state bytes of format version `T::STATE_VERSION` (magic, checksum, version,
/// then the payload with nothing after it). Invariants are not checked here.
pub fn decode<T: serde::de::DeserializeOwned + StateVersion>(bytes: &[u8]) -> Result<T> {
    let version = version_of(bytes)?;
    if version != T::STATE_VERSION {
        return crate::input_err!(
            "learner state has format version {version}, this build reads version {}",
            T::STATE_VERSION
        );
    }
    decode_payload(&bytes[HEADER..])
}

/// Nesting the decoder follows at most (the deepest state, an AutoKernel's, is ~12).
const MAX_DEPTH: usize = 256;

/// The MessagePack payload as a `T`, refusing trailing bytes.
pub fn decode_payload<T: serde::de::DeserializeOwned>(payload: &[u8]) -> Result<T> {
    // A reader (not the borrowing one): its byte strings grow as they are read.
    let mut de = rmp_serde::Deserializer::new(std::io::Cursor::new(payload));
    de.set_max_depth(MAX_DEPTH);
    let value = T::deserialize(&mut de)
        .map_err(|e| KsError::Input(format!("corrupt learner state: {e}")))?;
    let rest = payload.len() as u64 - de.position();
    if rest != 0 {
        return crate::input_err!("corrupt learner state: {rest} bytes after the end of the state");
    }
    Ok(value)
}

/// The error for bytes without the tagged header: a positional state of a development
/// snapshot (a small version number first), or not a state at all.
fn not_tagged(bytes: &[u8]) -> KsError {
    match bytes.get(..4) {
        Some(h) if (1..=1000).contains(&u32::from_le_bytes([h[0], h[1], h[2], h[3]])) => {
            let v = u32::from_le_bytes([h[0], h[1], h[2], h[3]]);
            KsError::Input(format!(
                "learner state in the positional format (format version {v}) of kernelstream's \
                 development snapshots before 0.1.0, which this release does not read: fit the \
                 learner again (states of 0.1.0 on are tagged and keep loading)"
            ))
        }
        _ => KsError::Input(format!(
            "corrupt learner state: {} bytes without the header of a kernelstream state",
            bytes.len()
        )),
    }
}
