//! How the model's JSON carries sentences the model does not hold.
//!
//! The model holds numbers and enums only. A type whose JSON also carries its answer in
//! words is marked `#[serde(remote = "Self")]`, which turns its derived serialisation into
//! an inherent function; `crate::report::words` then implements `Serialize` for it as those
//! numbers with its words beside them, built from them as the wire is written (the
//! `on_the_wire!` macro there). Its schema names those words through [`words`], so that
//! `layoutrand generate schemas` still lists every field the wire has. The words need the
//! context they are said in (the thresholds a verdict was reached at, whether the metric
//! is a time): the type holds it as numbers and enums, not on the wire.

use std::cell::Cell;

use schemars::Schema;

thread_local! {
    /// Whether the serialisation under way writes a stored file ([`data_only`]): the
    /// model's data without the words the wire adds.
    static DATA_ONLY: Cell<bool> = const { Cell::new(false) };
}

/// Runs `write` (a serialisation) with the words left off every type the wire words: what a
/// stored file holds, so that no file keeps a sentence and an answer read back is worded
/// again as the current version says it. serde passes no context down a serialisation, so
/// the choice is this thread's while `write` runs (restored after, also on a panic).
pub(crate) fn data_only<T>(write: impl FnOnce() -> T) -> T {
    /// Puts the flag back as it was when dropped.
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            DATA_ONLY.set(self.0);
        }
    }
    let _restore = Restore(DATA_ONLY.replace(true));
    write()
}

/// Whether the words belong in the serialisation under way (not within [`data_only`]).
pub(crate) fn with_words() -> bool {
    !DATA_ONLY.get()
}

/// What a word field of the wire holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    /// One sentence, always there.
    Sentence,
    /// A sentence, or null when there is nothing to say.
    Optional,
    /// A list of sentences.
    List,
}

/// A schema transform (`#[schemars(transform = words(…))]`) adding the word field `name`
/// of `shape` to an object's schema, with `description`, as required: the wire always
/// writes it (null when an optional one has nothing to say).
pub(crate) fn words(
    name: &'static str,
    shape: Shape,
    description: &'static str,
) -> impl Fn(&mut Schema) {
    move |schema: &mut Schema| {
        let property = match shape {
            Shape::Sentence => serde_json::json!({"description": description, "type": "string"}),
            Shape::Optional => {
                serde_json::json!({"description": description, "type": ["string", "null"]})
            }
            Shape::List => serde_json::json!({
                "description": description,
                "type": "array",
                "items": {"type": "string"}
            }),
        };
        let object = schema.ensure_object();
        if let Some(properties) = (object.entry("properties"))
            .or_insert_with(|| serde_json::json!({}))
            .as_object_mut()
        {
            properties.insert(name.to_string(), property);
        }
        if let Some(required) = (object.entry("required"))
            .or_insert_with(|| serde_json::json!([]))
            .as_array_mut()
        {
            required.push(name.into());
        }
    }
}

/// `schema` without the word field `name` that [`words`] added: the schema of a file that
/// stores the type's data only.
pub(crate) fn without_words(schema: &mut Schema, name: &str) {
    let object = schema.ensure_object();
    if let Some(properties) = object.get_mut("properties").and_then(|p| p.as_object_mut()) {
        properties.remove(name);
    }
    if let Some(required) = object.get_mut("required").and_then(|r| r.as_array_mut()) {
        required.retain(|r| r != name);
    }
}

/// Implements `Deserialize` for a model type marked `#[serde(remote = "Self")]`, whose
/// derived reading `remote` turned into an inherent function: the type is read as a stored
/// file writes it ([`data_only`]), words being a view that is never read back.
macro_rules! read_as_written {
    ($model:ty) => {
        impl<'de> serde::Deserialize<'de> for $model {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                <$model>::deserialize(deserializer)
            }
        }
    };
}
pub(crate) use read_as_written;
