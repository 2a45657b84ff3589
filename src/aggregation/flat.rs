//! A rule's own state written among the fields of the struct that holds it, as one flat
//! struct (serde's `flatten` without its limits): [`Regret`](super::Regret) and
//! [`ExpWeights`](super::ExpWeights) keep the fields every rule of their family has and
//! the rule's own state `S` (a derived serde struct); their states are the one flat
//! struct of state format 4 (`gradient`, `share`, BOA's fields, `n_seen`, ...), by
//! field name (the state codec) and by position (a positional format such as bincode)
//! alike. serde's `flatten` writes a map of unknown length, which positional formats
//! refuse.
//!
//! A holder says what it holds ([`Holder`]); [`serialize`] and [`deserialize`] do the
//! rest. Writing: `field_count` counts the rule's fields, `write_fields` writes them into
//! the holder's struct. Reading: by position, `SeqPart` gives the rule the next fields
//! of the holder's sequence; by name, `MapPart` gives it the holder's map with the
//! holder's own fields taken out.

use serde::de::{self, DeserializeSeed, IntoDeserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{self, Impossible, Serialize, SerializeStruct, Serializer};
use serde::Deserialize;
use std::fmt;

/// Where the holder's own fields are read from: its map (by name) or its sequence (by
/// position).
pub(crate) trait Source<'de> {
    type Error: de::Error;
    fn value<T: Deserialize<'de>>(&mut self) -> Result<T, Self::Error>;
}

struct MapValues<'a, A>(&'a mut A);

impl<'de, A: MapAccess<'de>> Source<'de> for MapValues<'_, A> {
    type Error = A::Error;
    fn value<T: Deserialize<'de>>(&mut self) -> Result<T, A::Error> {
        self.0.next_value()
    }
}

struct SeqValues<'a, A>(&'a mut A);

impl<'de, A: SeqAccess<'de>> Source<'de> for SeqValues<'_, A> {
    type Error = A::Error;
    fn value<T: Deserialize<'de>>(&mut self) -> Result<T, A::Error> {
        self.0.next_element()?.ok_or_else(|| de::Error::custom("a rule's state ends early"))
    }
}

/// A struct holding its own fields and a rule's state (a derived serde struct), stored
/// as one flat struct: the first [`Holder::BEFORE`] of its own fields ([`Holder::OWN`]),
/// the rule's, then the rest of its own.
pub(crate) trait Holder: Sized {
    type Rule: Serialize + for<'de> Deserialize<'de>;
    /// Its own fields as they are read (each one until it is found).
    type Read: Default;
    /// The struct's name in the state.
    const NAME: &'static str;
    /// Its own fields' names, in the state's order.
    const OWN: &'static [&'static str];
    /// How many of them come before the rule's.
    const BEFORE: usize;
    /// Every field of the state, in order (a positional format reads that many).
    const FIELDS: &'static [&'static str];
    fn rule(&self) -> &Self::Rule;
    /// Writes its own field `key` (one of [`Holder::OWN`]).
    fn write<M: SerializeStruct>(&self, key: &'static str, out: &mut M) -> Result<(), M::Error>;
    /// Reads its own field `key` from `src` (false: `key` is not one of its own).
    fn read<'de, R: Source<'de>>(
        found: &mut Self::Read,
        key: &str,
        src: &mut R,
    ) -> Result<bool, R::Error>;
    /// The holder from its own fields and its rule (`Err` for a missing field).
    fn assemble<E: de::Error>(found: Self::Read, rule: Self::Rule) -> Result<Self, E>;
}

/// `Serialize` and `Deserialize` of the generic holder `$t<S>` (`S: $bound`) through
/// [`serialize`] and [`deserialize`] (the orphan rule allows no blanket impl of serde's
/// traits over every [`Holder`]).
macro_rules! holder_serde {
    ($t:ident, $bound:path) => {
        impl<S: $bound> serde::Serialize for $t<S> {
            fn serialize<Z: serde::Serializer>(&self, z: Z) -> Result<Z::Ok, Z::Error> {
                super::flat::serialize(self, z)
            }
        }
        impl<'de, S: $bound> serde::Deserialize<'de> for $t<S> {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                super::flat::deserialize(d)
            }
        }
    };
}
pub(crate) use holder_serde;

/// Writes `holder` as its flat struct.
pub(crate) fn serialize<H: Holder, Z: Serializer>(holder: &H, z: Z) -> Result<Z::Ok, Z::Error> {
    let rule = holder.rule();
    let mut out = z.serialize_struct(H::NAME, H::OWN.len() + field_count(rule)?)?;
    for key in &H::OWN[..H::BEFORE] {
        holder.write(key, &mut out)?;
    }
    write_fields(rule, &mut out)?;
    for key in &H::OWN[H::BEFORE..] {
        holder.write(key, &mut out)?;
    }
    out.end()
}

/// Reads a holder written by [`serialize`] (or by the flat struct it stands for).
pub(crate) fn deserialize<'de, H: Holder, D: de::Deserializer<'de>>(d: D) -> Result<H, D::Error> {
    d.deserialize_struct(H::NAME, H::FIELDS, HolderVisitor::<H>(std::marker::PhantomData))
}

struct HolderVisitor<H>(std::marker::PhantomData<H>);

impl<'de, H: Holder> Visitor<'de> for HolderVisitor<H> {
    type Value = H;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the state of {}", H::NAME)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<H, A::Error> {
        let mut found = H::Read::default();
        for key in &H::OWN[..H::BEFORE] {
            H::read(&mut found, key, &mut SeqValues(&mut seq))?;
        }
        let rule = H::Rule::deserialize(SeqPart(&mut seq))?;
        for key in &H::OWN[H::BEFORE..] {
            H::read(&mut found, key, &mut SeqValues(&mut seq))?;
        }
        H::assemble(found, rule)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<H, A::Error> {
        let mut found = H::Read::default();
        let rule = H::Rule::deserialize(MapPart::<A, H> { map: &mut map, found: &mut found })?;
        H::assemble(found, rule)
    }
}

/// The number of fields `value` (a derived serde struct) writes.
fn field_count<T: Serialize, E: ser::Error>(value: &T) -> Result<usize, E> {
    match value.serialize(Fields(Count)) {
        Err(Probe::Count(n)) => Ok(n),
        _ => Err(E::custom("a rule's state must be a struct")),
    }
}

/// Writes the fields of `value` (a derived serde struct) into `out`.
fn write_fields<T: Serialize, M: SerializeStruct>(value: &T, out: &mut M) -> Result<(), M::Error> {
    value.serialize(Fields(Into(out)))
}

/// What [`Fields`] does with the struct it is given: count its fields or forward them.
trait Sink {
    type Error: ser::Error;
    type Struct: SerializeStruct<Ok = (), Error = Self::Error>;
    fn start(self, len: usize) -> Result<Self::Struct, Self::Error>;
}

struct Count;

/// The probe's answer, carried as its error (the probe stops at the struct's header).
#[derive(Debug)]
enum Probe {
    Count(usize),
    Other(String),
}

impl fmt::Display for Probe {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Probe::Count(n) => write!(f, "{n} fields"),
            Probe::Other(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for Probe {}

impl ser::Error for Probe {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Probe::Other(msg.to_string())
    }
}

impl Sink for Count {
    type Error = Probe;
    type Struct = Impossible<(), Probe>;
    fn start(self, len: usize) -> Result<Self::Struct, Probe> {
        Err(Probe::Count(len))
    }
}

struct Into<'a, M>(&'a mut M);

impl<'a, M: SerializeStruct> Sink for Into<'a, M> {
    type Error = M::Error;
    type Struct = Self;
    fn start(self, _len: usize) -> Result<Self, M::Error> {
        Ok(self)
    }
}

impl<M: SerializeStruct> SerializeStruct for Into<'_, M> {
    type Ok = ();
    type Error = M::Error;
    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), M::Error> {
        self.0.serialize_field(key, value)
    }
    fn skip_field(&mut self, key: &'static str) -> Result<(), M::Error> {
        self.0.skip_field(key)
    }
    fn end(self) -> Result<(), M::Error> {
        Ok(())
    }
}

/// A serializer that takes a struct only, handing its header and fields to the sink.
struct Fields<K>(K);

fn not_a_struct<E: ser::Error>() -> E {
    E::custom("a rule's state must be a struct")
}

macro_rules! refuse {
    ($($name:ident($($t:ty),*);)*) => {$(
        fn $name(self, $(_: $t),*) -> Result<(), K::Error> {
            Err(not_a_struct())
        }
    )*};
}

impl<K: Sink> Serializer for Fields<K> {
    type Ok = ();
    type Error = K::Error;
    type SerializeSeq = Impossible<(), K::Error>;
    type SerializeTuple = Impossible<(), K::Error>;
    type SerializeTupleStruct = Impossible<(), K::Error>;
    type SerializeTupleVariant = Impossible<(), K::Error>;
    type SerializeMap = Impossible<(), K::Error>;
    type SerializeStruct = K::Struct;
    type SerializeStructVariant = Impossible<(), K::Error>;

    fn serialize_struct(self, _name: &'static str, len: usize) -> Result<K::Struct, K::Error> {
        self.0.start(len)
    }

    refuse! {
        serialize_bool(bool); serialize_i8(i8); serialize_i16(i16); serialize_i32(i32);
        serialize_i64(i64); serialize_u8(u8); serialize_u16(u16); serialize_u32(u32);
        serialize_u64(u64); serialize_f32(f32); serialize_f64(f64); serialize_char(char);
        serialize_str(&str); serialize_bytes(&[u8]); serialize_none(); serialize_unit();
        serialize_unit_struct(&'static str);
        serialize_unit_variant(&'static str, u32, &'static str);
    }
    fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<(), K::Error> {
        Err(not_a_struct())
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: &T,
    ) -> Result<(), K::Error> {
        Err(not_a_struct())
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), K::Error> {
        Err(not_a_struct())
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, K::Error> {
        Err(not_a_struct())
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, K::Error> {
        Err(not_a_struct())
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, K::Error> {
        Err(not_a_struct())
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, K::Error> {
        Err(not_a_struct())
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, K::Error> {
        Err(not_a_struct())
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, K::Error> {
        Err(not_a_struct())
    }
}

/// The holder's sequence as the deserializer of `S`: `S` reads its fields' count of the
/// next elements.
struct SeqPart<'a, A>(&'a mut A);

impl<'de, A: SeqAccess<'de>> de::Deserializer<'de> for SeqPart<'_, A> {
    type Error = A::Error;
    fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, A::Error> {
        Err(de::Error::custom("a rule's state is read as a struct"))
    }
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        visitor.visit_seq(Limited { seq: self.0, left: fields.len() })
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
        ignored_any
    }
}

struct Limited<'a, A> {
    seq: &'a mut A,
    left: usize,
}

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for Limited<'_, A> {
    type Error = A::Error;
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, A::Error> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        self.seq.next_element_seed(seed)
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.left)
    }
}

/// The holder's map as the deserializer of its rule: the holder's own fields are read
/// into `found`, the others go to the rule.
struct MapPart<'a, A, H: Holder> {
    map: &'a mut A,
    found: &'a mut H::Read,
}

impl<'de, A: MapAccess<'de>, H: Holder> de::Deserializer<'de> for MapPart<'_, A, H> {
    type Error = A::Error;
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, A::Error> {
        visitor.visit_map(self)
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
}

impl<'de, A: MapAccess<'de>, H: Holder> MapAccess<'de> for MapPart<'_, A, H> {
    type Error = A::Error;
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        while let Some(key) = self.map.next_key::<String>()? {
            if !H::read(self.found, &key, &mut MapValues(self.map))? {
                return seed.deserialize(key.into_deserializer()).map(Some);
            }
        }
        Ok(None)
    }
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        self.map.next_value_seed(seed)
    }
}

#[cfg(test)]
mod tests {
    use crate::aggregation::{Boa, Ewa, MlPoly};
    use crate::state::codec;
    use serde::{de::DeserializeOwned, Serialize};

    /// `old`, a state written as the flat struct of format 4, reads as a `T` that writes
    /// the same bytes back, by field name (the codec) and by position (bincode).
    fn reads_and_writes_back<T: Serialize + DeserializeOwned, U: Serialize>(old: &U) {
        let named = codec::encode_as(4, old).unwrap();
        let value: T = codec::decode_payload(&named[codec::HEADER..]).unwrap();
        assert_eq!(codec::encode_as(4, &value).unwrap(), named);
        let positional = bincode::serialize(old).unwrap();
        let value: T = bincode::deserialize(&positional).unwrap();
        assert_eq!(bincode::serialize(&value).unwrap(), positional);
    }

    #[derive(Serialize)]
    struct BoaV4 {
        gradient: bool,
        share: f64,
        rreg: Vec<f64>,
        eta: Vec<f64>,
        v: Vec<f64>,
        b: Vec<f64>,
        n_seen: u64,
    }

    #[derive(Serialize)]
    struct MlPolyV4 {
        gradient: bool,
        share: f64,
        regret: Vec<f64>,
        eta: Vec<f64>,
        b: f64,
        n_seen: u64,
    }

    #[derive(Serialize)]
    struct EwaV4 {
        eta: f64,
        share: f64,
        logw: Vec<f64>,
        n_seen: u64,
    }

    #[test]
    fn the_states_are_the_flat_structs_of_format_4() {
        let (a, b) = (vec![0.5, -1.0], vec![0.25, 2.0]);
        let boa = BoaV4 {
            gradient: false,
            share: 0.125,
            rreg: a.clone(),
            eta: b.clone(),
            v: vec![1.0, 3.0],
            b: vec![0.5, 4.0],
            n_seen: 7,
        };
        reads_and_writes_back::<Boa, _>(&boa);
        let mlpoly =
            MlPolyV4 { gradient: true, share: 0.0, regret: a.clone(), eta: b, b: 0.75, n_seen: 3 };
        reads_and_writes_back::<MlPoly, _>(&mlpoly);
        reads_and_writes_back::<Ewa, _>(&EwaV4 { eta: 0.5, share: 0.25, logw: a, n_seen: 9 });
    }

    #[test]
    fn a_state_without_fixed_share_reads_as_the_plain_rule() {
        #[derive(Serialize)]
        struct EwaV3 {
            eta: f64,
            logw: Vec<f64>,
            n_seen: u64,
        }
        let old = codec::encode_as(4, &EwaV3 { eta: 0.5, logw: vec![0.0, -1.0], n_seen: 2 });
        let ewa: Ewa = codec::decode_payload(&old.unwrap()[codec::HEADER..]).unwrap();
        assert_eq!((ewa.share(), ewa.eta()), (0.0, 0.5));
    }
}
