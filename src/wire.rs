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

use schemars::Schema;

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
