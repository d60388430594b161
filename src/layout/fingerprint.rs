//! The fingerprint of a layout: a hash of the ordered list of function identities.
//!
//! Addresses and sizes are left out on purpose: two binaries whose functions come in the
//! same order have the same fingerprint even if a function grew by a byte, and a seed whose
//! fingerprint equals the baseline's did not change the layout at all.

use super::binary::Function;

/// BLAKE3 (lowercase hex, 64 characters) of the functions' identities in the given order.
///
/// Each identity is encoded unambiguously (length-prefixed name, a tag for the presence of a
/// file, length-prefixed file), so no two different ordered lists hash the same input.
/// Equal orders give equal fingerprints; any permutation of distinct functions changes it.
pub fn fingerprint(functions: &[Function]) -> String {
    hash(functions, b"layoutrand function order v1\0", false)
}

/// BLAKE3 of the functions' identities in the given order and of their start addresses: the
/// layout identity of `build --granularity none`, where every seed keeps the baseline's
/// order (so [`fingerprint`] would call every seed the baseline) and only the padding in
/// front of functions, hence their addresses, varies. Same encoding as [`fingerprint`] with
/// each address appended (8 bytes, little-endian) and a domain tag of its own, so the two
/// never collide.
pub fn placement(functions: &[Function]) -> String {
    hash(functions, b"layoutrand function placement v1\0", true)
}

/// BLAKE3 of the data objects' identities in the given (address) order: the encoding of
/// [`fingerprint`] with a domain tag of its own.
pub fn data_order(objects: &[Function]) -> String {
    hash(objects, b"layoutrand data order v1\0", false)
}

/// The layout identity of a `build --data-order` binary: BLAKE3 of `code` (its
/// [`fingerprint`] or [`placement`]) and of its data objects' identities in address order
/// (the encoding of [`fingerprint`], a domain tag of its own), so two seeds with the same
/// code order and another data order are distinct layouts.
pub fn with_data_order(code: &str, objects: &[Function]) -> String {
    let data = data_order(objects);
    blake3::hash(format!("{code}\0{data}").as_bytes())
        .to_hex()
        .to_string()
}

fn hash(functions: &[Function], tag: &[u8], addresses: bool) -> String {
    let mut hasher = blake3::Hasher::new();
    hasher.update(tag);
    for function in functions {
        let id = &function.id;
        hasher.update(&(id.name.len() as u64).to_le_bytes());
        hasher.update(id.name.as_bytes());
        match &id.file {
            Some(file) => {
                hasher.update(&[1]);
                hasher.update(&(file.len() as u64).to_le_bytes());
                hasher.update(file.as_bytes());
            }
            None => {
                hasher.update(&[0]);
            }
        }
        if addresses {
            hasher.update(&function.address.to_le_bytes());
        }
    }
    hasher.finalize().to_hex().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::binary::FunctionId;

    fn f(name: &str, file: Option<&str>, address: u64) -> Function {
        Function {
            id: FunctionId {
                name: name.into(),
                file: file.map(Into::into),
            },
            name: name.into(),
            file: file.map(Into::into),
            address,
            size: 16,
        }
    }

    #[test]
    fn addresses_do_not_matter_order_does() {
        let a = [f("x", None, 0x1000), f("y", None, 0x1010)];
        let b = [f("x", None, 0x2000), f("y", None, 0x2040)];
        let c = [f("y", None, 0x1000), f("x", None, 0x1010)];
        assert_eq!(fingerprint(&a), fingerprint(&b));
        assert_ne!(fingerprint(&a), fingerprint(&c));
        assert_eq!(fingerprint(&a).len(), 64);
    }

    #[test]
    fn placement_sees_addresses_and_order_and_differs_from_the_order_hash() {
        let a = [f("x", None, 0x1000), f("y", None, 0x1010)];
        let b = [f("x", None, 0x1000), f("y", None, 0x1040)];
        let c = [f("y", None, 0x1000), f("x", None, 0x1010)];
        assert_eq!(placement(&a), placement(&a.clone()));
        assert_ne!(placement(&a), placement(&b));
        assert_ne!(placement(&a), placement(&c));
        assert_ne!(placement(&a), fingerprint(&a));
    }

    #[test]
    fn encoding_is_unambiguous() {
        // Concatenation tricks must not collide: "ab"+"c" vs "a"+"bc", file vs no file.
        let a = [f("ab", None, 0), f("c", None, 1)];
        let b = [f("a", None, 0), f("bc", None, 1)];
        assert_ne!(fingerprint(&a), fingerprint(&b));
        let c = [f("helper", Some("m1.c"), 0)];
        let d = [f("helper", None, 0)];
        assert_ne!(fingerprint(&c), fingerprint(&d));
    }

    #[test]
    fn empty_list_has_a_fixed_fingerprint() {
        // blake3 of the domain tag alone, computed with Python's `blake3` package:
        // blake3.blake3(b"layoutrand function order v1\0").hexdigest()
        assert_eq!(
            fingerprint(&[]),
            "b10ac66efbfacad7694ae1319e757917d1343d40dde7b145722a7e79bcf57eb7"
        );
    }

    #[test]
    fn matches_an_independent_encoding() {
        // Python, `blake3` package:
        //   h = blake3.blake3(b"layoutrand function order v1\0")
        //   for name, file in [("main", None), ("helper", "m1.c")]:
        //       h.update(struct.pack("<Q", len(name)) + name.encode())
        //       h.update(b"\0" if file is None
        //                else b"\1" + struct.pack("<Q", len(file)) + file.encode())
        //   h.hexdigest()
        let list = [f("main", None, 0x1000), f("helper", Some("m1.c"), 0x1100)];
        assert_eq!(
            fingerprint(&list),
            "f685a52d3370862f57c67cbdbe695b2bf4f2d55679b6fad53f1c8403f142358c"
        );
    }
}
