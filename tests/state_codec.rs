//! The tagged state encoding (`state::codec`): fields by name, so that a field added
//! with `#[serde(default)]` loads from a state written before it existed; a checksum
//! that refuses every flipped bit; truncations, trailing bytes, lengths beyond the
//! input and the positional states of the development snapshots refused.
use kernelstream::learners::{OnlineLearner, TaylorAwv, TaylorAwvParams};
use kernelstream::state::codec::{self, decode, decode_payload, encode, encode_as, HEADER, MAGIC};
use kernelstream::state::crc32::crc32;
use kernelstream::state::StateVersion;
use kernelstream::stream;
use serde::{Deserialize, Serialize};

/// An options struct as one release wrote it...
#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct OptionsBefore {
    lam: f64,
    weights: Vec<f64>,
    rule: Rule,
}

/// ...and as a later release reads it: a new option whose default is the behaviour
/// before it, in the middle of the struct (where a positional encoding shifts every
/// field after it).
#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct OptionsAfter {
    lam: f64,
    #[serde(default = "no_window")]
    window: Option<u64>,
    #[serde(default)]
    share: f64,
    weights: Vec<f64>,
    rule: Rule,
}

fn no_window() -> Option<u64> {
    None
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
enum Rule {
    Boa { eta: f64 },
    Vaw,
}

impl StateVersion for OptionsBefore {
    const STATE_VERSION: u32 = 3;
}
impl StateVersion for OptionsAfter {
    const STATE_VERSION: u32 = 3;
}

fn before() -> OptionsBefore {
    OptionsBefore { lam: 0.25, weights: vec![0.5, -1.5, 1e-300], rule: Rule::Boa { eta: 2.0 } }
}

#[test]
fn a_field_added_with_a_default_loads_from_a_state_written_before_it() {
    let old = encode(&before()).unwrap();
    let got: OptionsAfter = decode(&old).unwrap();
    let want = OptionsAfter {
        lam: 0.25,
        window: None,
        share: 0.0,
        weights: vec![0.5, -1.5, 1e-300],
        rule: Rule::Boa { eta: 2.0 },
    };
    assert_eq!(got, want);
    // And the other way: a release that does not know the option ignores it.
    let new = encode(&OptionsAfter { window: Some(7), share: 0.1, ..want.clone() }).unwrap();
    assert_eq!(decode::<OptionsBefore>(&new).unwrap(), before());
    // The positional encoding of before this format cannot do it: bincode reads the
    // old `weights` as the new `window` and fails (or misreads).
    let positional = bincode::serialize(&before()).unwrap();
    assert!(!matches!(bincode::deserialize::<OptionsAfter>(&positional), Ok(v) if v == want));
}

#[test]
fn a_state_of_another_version_is_refused_by_its_version() {
    let bytes = encode_as(4, &before()).unwrap();
    let err = decode::<OptionsBefore>(&bytes).unwrap_err().to_string();
    assert!(err.contains("format version 4, this build reads version 3"), "{err}");
}

fn taylor(n: usize) -> (TaylorAwv, Vec<f64>) {
    let p = TaylorAwvParams { sigma: 0.8, degree: 2, lam: 0.5, ..Default::default() };
    let mut l = TaylorAwv::new(&p).unwrap();
    let d = 3;
    let x: Vec<f64> = (0..(n + 1) * d).map(|i| ((i * 37 % 101) as f64 / 50.0) - 1.0).collect();
    let y: Vec<f64> = (0..n).map(|i| (3.0 * x[i * d]).sin()).collect();
    stream::learn_many(&mut l, &x[..n * d], n, d, &y).unwrap();
    (l, x[n * d..].to_vec())
}

#[test]
fn a_learner_round_trips_bit_for_bit() {
    let (l, x) = taylor(30);
    let bytes = encode(&l).unwrap();
    assert_eq!(bytes[..4], MAGIC);
    let back: TaylorAwv = decode(&bytes).unwrap();
    assert_eq!(back.n_seen(), 30);
    let (a, b) = (back.predict(&x).unwrap(), l.predict(&x).unwrap());
    assert_eq!(a.to_bits(), b.to_bits());
    assert_eq!(encode(&back).unwrap(), bytes);
}

#[test]
fn every_flipped_bit_and_every_truncation_is_refused() {
    let (l, _) = taylor(10);
    let bytes = encode(&l).unwrap();
    for i in 0..bytes.len() * 8 {
        let mut bad = bytes.clone();
        bad[i / 8] ^= 1 << (i % 8);
        assert!(decode::<TaylorAwv>(&bad).is_err(), "bit {i} flipped was accepted");
    }
    for n in 0..bytes.len() {
        assert!(decode::<TaylorAwv>(&bytes[..n]).is_err(), "{n} bytes of {} accepted", bytes.len());
    }
}

/// `payload` behind a header with a valid checksum (what a crafted state looks like).
fn sealed(version: u32, payload: &[u8]) -> Vec<u8> {
    let mut out = [MAGIC.as_slice(), &version.to_le_bytes(), &[0; 4], payload].concat();
    let sum = crc32(&[&out[..8], &out[HEADER..]]);
    out[8..HEADER].copy_from_slice(&sum.to_le_bytes());
    out
}

#[test]
fn trailing_bytes_and_lengths_beyond_the_input_are_refused() {
    let good = encode(&before()).unwrap();
    let mut longer = good[HEADER..].to_vec();
    longer.push(0);
    let err = decode::<OptionsBefore>(&sealed(3, &longer)).unwrap_err().to_string();
    assert!(err.contains("1 bytes after the end"), "{err}");
    // An array, a map, a byte string and a text string claiming 2^32 - 1 items in a few
    // bytes: refused when the input ends, after allocating at most serde's cautious hint.
    for head in [0xDDu8, 0xDF, 0xC6, 0xDB] {
        let payload = [&[head][..], &[0xFF; 4], &[0x00; 16]].concat();
        assert!(decode_payload::<Vec<f64>>(&payload).is_err());
        assert!(decode_payload::<String>(&payload).is_err());
        assert!(decode::<TaylorAwv>(&sealed(TaylorAwv::STATE_VERSION, &payload)).is_err());
    }
    // Nesting deeper than the recursion limit is refused, not a stack overflow.
    let deep = vec![0x91u8; 100_000];
    assert!(decode_payload::<serde_json_free::Any>(&deep).is_err());
}

/// A value of any shape (what `deserialize_any` builds), without another dependency.
mod serde_json_free {
    #[derive(Debug)]
    pub struct Any;
    impl<'de> serde::Deserialize<'de> for Any {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            serde::de::IgnoredAny::deserialize(d).map(|_| Any)
        }
    }
}

#[test]
fn positional_states_of_the_snapshots_are_refused_by_name() {
    let (l, _) = taylor(5);
    let positional = bincode::serialize(&(TaylorAwv::STATE_VERSION, &l)).unwrap();
    let err = decode::<TaylorAwv>(&positional).unwrap_err().to_string();
    assert!(err.contains("positional format (format version 5)"), "{err}");
    assert!(err.contains("before 0.1.0"), "{err}");
    let err = decode::<TaylorAwv>(b"\xff\xff\xff\xffjunk").unwrap_err().to_string();
    assert!(err.contains("without the header"), "{err}");
    assert!(codec::version_of(&encode(&l).unwrap()).unwrap() == TaylorAwv::STATE_VERSION);
}
