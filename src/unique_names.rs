//! JSON text whose objects name each member once (RFC 8259, section 4: names
//! SHOULD be unique; parsers disagree on which one wins, so a reply or an answer
//! that names a member twice has no one meaning). Read by the reference server's
//! line filter (`server/lines.rs`: such a reply is malformed) and by the CLI's
//! `--answer` check (`case.rs`: such an answer is refused).

use std::collections::HashSet;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

/// Deserializes any JSON value and fails on the first object that names a
/// member twice, at any depth: `serde_json::from_str::<UniqueNames>(text)` is
/// `Err` with `the member "units" twice in one object` (then serde_json's line
/// and column) for `{"units":3,"units":3}`, and with serde_json's own error for
/// text that is no JSON it reads.
pub struct UniqueNames;

impl<'de> Deserialize<'de> for UniqueNames {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(UniqueNamesVisitor)
    }
}

struct UniqueNamesVisitor;

impl<'de> Visitor<'de> for UniqueNamesVisitor {
    type Value = UniqueNames;

    fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
        formatter.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<UniqueNames, E> {
        Ok(UniqueNames)
    }
    fn visit_i64<E>(self, _: i64) -> Result<UniqueNames, E> {
        Ok(UniqueNames)
    }
    fn visit_u64<E>(self, _: u64) -> Result<UniqueNames, E> {
        Ok(UniqueNames)
    }
    fn visit_f64<E>(self, _: f64) -> Result<UniqueNames, E> {
        Ok(UniqueNames)
    }
    fn visit_str<E>(self, _: &str) -> Result<UniqueNames, E> {
        Ok(UniqueNames)
    }
    fn visit_unit<E>(self) -> Result<UniqueNames, E> {
        Ok(UniqueNames)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<UniqueNames, A::Error> {
        while items.next_element::<UniqueNames>()?.is_some() {}
        Ok(UniqueNames)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut members: A) -> Result<UniqueNames, A::Error> {
        let mut seen = HashSet::new();
        while let Some(name) = members.next_key::<String>()? {
            if !seen.insert(name.clone()) {
                return Err(serde::de::Error::custom(format!(
                    "the member {} twice in one object",
                    Value::String(name)
                )));
            }
            members.next_value::<UniqueNames>()?;
        }
        Ok(UniqueNames)
    }
}
