//! Structure-aware fuzzing of the readers of an experiment directory's files (issue 54):
//! a valid document with one of its values replaced by a hostile one, which reaches the code
//! behind the parser far more often than arbitrary bytes, which a JSON parser refuses at
//! once. Test-only.

use proptest::prelude::*;
use serde_json::Value;

/// How many values (leaves and containers alike, the root aside) `doc` holds.
pub(crate) fn value_count(doc: &Value) -> usize {
    match doc {
        Value::Array(items) => items.iter().map(|v| 1 + value_count(v)).sum(),
        Value::Object(fields) => fields.values().map(|v| 1 + value_count(v)).sum(),
        _ => 0,
    }
}

/// `doc` with its `index`-th value (depth first, in [`value_count`]'s order, modulo their
/// count) changed as `mutation` says; `doc` itself when it holds none.
pub(crate) fn with_value_mutated(doc: &Value, index: usize, mutation: &Mutation) -> Value {
    let count = value_count(doc);
    let mut doc = doc.clone();
    if count > 0 {
        let mut left = index % count;
        mutate(&mut doc, &mut left, mutation);
    }
    doc
}

/// Walks `doc` depth first, counting `left` down; mutates the value it reaches 0 at.
fn mutate(doc: &mut Value, left: &mut usize, mutation: &Mutation) -> bool {
    let children: Vec<&mut Value> = match doc {
        Value::Array(items) => items.iter_mut().collect(),
        Value::Object(fields) => fields.values_mut().collect(),
        _ => return false,
    };
    for child in children {
        if *left == 0 {
            *child = mutated(child, mutation);
            return true;
        }
        *left -= 1;
        if mutate(child, left, mutation) {
            return true;
        }
    }
    false
}

/// What becomes of the value a fuzz case replaces.
#[derive(Debug, Clone)]
pub(crate) enum Mutation {
    /// A value of the same JSON type, chosen by the number: an extreme number, a hostile
    /// string, an array emptied, cut to one item or with its first item repeated, an object
    /// without one of its fields, a boolean flipped.
    SameType(u32),
    /// Any value.
    Replaced(Value),
}

/// Mutations: mostly of the same type, which gets past the parser to the code behind it.
pub(crate) fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        3 => any::<u32>().prop_map(Mutation::SameType),
        1 => hostile_value().prop_map(Mutation::Replaced),
    ]
}

/// `original` changed as `mutation` says.
pub(crate) fn mutated(original: &Value, mutation: &Mutation) -> Value {
    let choice = match mutation {
        Mutation::Replaced(v) => return v.clone(),
        Mutation::SameType(choice) => *choice as usize,
    };
    const NUMBERS: [f64; 9] = [
        0.0,
        -1.0,
        1e308,
        -1e308,
        5e-324,
        4_294_967_296.0,
        0.5,
        1e15,
        -0.0,
    ];
    const STRINGS: [&str; 6] = [
        "",
        "../../outside",
        "/etc/passwd",
        "\u{1b}[2J\r\u{202e}",
        "a\nb",
        "x",
    ];
    match original {
        Value::Number(n) if n.is_u64() => Value::from([0, 1, u64::MAX, 4_294_967_296][choice % 4]),
        Value::Number(n) if n.is_i64() => Value::from([0, -1, i64::MIN, i64::MAX][choice % 4]),
        Value::Number(_) => Value::from(NUMBERS[choice % NUMBERS.len()]),
        Value::String(_) => Value::from(STRINGS[choice % STRINGS.len()]),
        Value::Bool(b) => Value::from(!b),
        Value::Array(items) => match (choice % 3, items.first()) {
            (0, _) | (_, None) => Value::Array(Vec::new()),
            (1, Some(first)) => Value::Array(vec![first.clone()]),
            (_, Some(first)) => Value::Array(vec![first.clone(); items.len() + 3]),
        },
        Value::Object(fields) => {
            let mut fields = fields.clone();
            if let Some(key) = fields.keys().nth(choice % fields.len().max(1)).cloned() {
                fields.remove(&key);
            }
            Value::Object(fields)
        }
        Value::Null => Value::from(NUMBERS[choice % NUMBERS.len()]),
    }
}

/// Values a hostile file might hold where a layoutrand wrote another: extremes of every
/// JSON type, control characters, paths, and arbitrary short values.
pub(crate) fn hostile_value() -> impl Strategy<Value = Value> {
    let numbers = prop_oneof![
        Just(Value::from(0)),
        Just(Value::from(-1)),
        Just(Value::from(u64::MAX)),
        Just(Value::from(i64::MIN)),
        Just(Value::from(1e308)),
        Just(Value::from(-1e308)),
        Just(Value::from(5e-324)),
        Just(Value::from(4_294_967_296u64)),
        any::<f64>().prop_filter_map("JSON has no NaN or infinity", |x| {
            serde_json::Number::from_f64(x).map(Value::Number)
        }),
        any::<i64>().prop_map(Value::from),
    ];
    let strings = prop_oneof![
        Just(Value::from("")),
        Just(Value::from("../../outside")),
        Just(Value::from("/etc/passwd")),
        Just(Value::from("\u{1b}[2J\r\u{202e}")),
        Just(Value::from("a\nb")),
        any::<String>().prop_map(Value::from),
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        numbers,
        strings,
    ];
    leaf.prop_recursive(2, 8, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::btree_map("[a-z_]{1,8}", inner, 0..3)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// The seeded configuration of every fuzz target: the same cases on every run (the project
/// allows no unseeded randomness), `cases` of them.
pub(crate) fn seeded(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        rng_seed: proptest::test_runner::RngSeed::Fixed(54),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_value_can_be_replaced_and_only_that_one() {
        let doc = serde_json::json!({"a": [1, {"b": 2}], "c": 3});
        // a, [0]=1, [1]={..}, b, c
        assert_eq!(value_count(&doc), 5);
        let x = Mutation::Replaced(Value::from("X"));
        let marked: Vec<Value> = (0..5).map(|i| with_value_mutated(&doc, i, &x)).collect();
        assert_eq!(marked[0], serde_json::json!({"a": "X", "c": 3}));
        assert_eq!(marked[1], serde_json::json!({"a": ["X", {"b": 2}], "c": 3}));
        assert_eq!(marked[3], serde_json::json!({"a": [1, {"b": "X"}], "c": 3}));
        assert_eq!(marked[4], serde_json::json!({"a": [1, {"b": 2}], "c": "X"}));
        // The index wraps: the sixth is the first again.
        assert_eq!(with_value_mutated(&doc, 5, &x), marked[0]);
    }

    #[test]
    fn a_same_type_mutation_keeps_the_type() {
        let doc =
            serde_json::json!({"n": 3, "f": 0.5, "s": "a", "b": true, "l": [1, 2], "o": {"k": 1}});
        for choice in 0..12 {
            let m = Mutation::SameType(choice);
            for (key, value) in doc.as_object().unwrap() {
                let changed = mutated(value, &m);
                let kind = |v: &Value| std::mem::discriminant(v);
                assert_eq!(kind(&changed), kind(value), "{key}: {changed}");
            }
        }
        assert_eq!(
            mutated(&Value::from(true), &Mutation::SameType(0)),
            Value::from(false)
        );
        assert_eq!(
            mutated(&serde_json::json!({"k": 1}), &Mutation::SameType(0)),
            serde_json::json!({})
        );
    }
}
