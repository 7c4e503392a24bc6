//! How random a value looks: Shannon entropy and the classes of characters it mixes.

/// Bits per character of `value`'s bytes (0 for the empty string).
pub fn shannon(value: &str) -> f64 {
    let bytes = value.as_bytes();
    if bytes.is_empty() {
        return 0.0;
    }
    let mut counts = [0u32; 256];
    for &b in bytes {
        counts[usize::from(b)] += 1;
    }
    let len = bytes.len() as f64;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = f64::from(c) / len;
            -p * p.log2()
        })
        .sum()
}

/// How many of lowercase, uppercase, digits and other characters `value` mixes.
pub fn classes(value: &str) -> u32 {
    let has = |f: fn(&u8) -> bool| u32::from(value.as_bytes().iter().any(f));
    has(u8::is_ascii_lowercase)
        + has(u8::is_ascii_uppercase)
        + has(u8::is_ascii_digit)
        + has(|b| !b.is_ascii_alphanumeric())
}

/// Random enough to be a generated secret or a real password: 3 bits per character (all eight
/// characters of an 8-character value distinct), or 2.5 bits when it mixes both cases with digits
/// or symbols, as passwords are made to (`Passw0rd!` is 2.95 bits). `required` (2.75) and
/// `us-east-1` (2.73) are not random.
pub fn random_enough(value: &str) -> bool {
    let bits = shannon(value);
    let bytes = value.as_bytes();
    let mixed = bytes.iter().any(u8::is_ascii_lowercase)
        && bytes.iter().any(u8::is_ascii_uppercase)
        && classes(value) >= 3;
    bits >= 3.0 || (bits >= 2.5 && mixed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entropy_in_bits_per_character() {
        assert_eq!(shannon(""), 0.0);
        assert_eq!(shannon("aaaa"), 0.0);
        assert!((shannon("abcd") - 2.0).abs() < 1e-9);
        assert!((shannon("abcdefgh") - 3.0).abs() < 1e-9);
        assert!((shannon("aabb") - 1.0).abs() < 1e-9);
    }

    #[test]
    fn classes_counted_once_each() {
        assert_eq!(classes("abc"), 1);
        assert_eq!(classes("aB3"), 3);
        assert_eq!(classes("aB3!"), 4);
        assert_eq!(classes("1234"), 1);
    }

    #[test]
    fn random_values_pass_words_do_not() {
        assert!(random_enough("k3J9xQ2m"));
        assert!(random_enough("Passw0rd!"));
        assert!(random_enough("3f9a0c1b7e"));
        assert!(!random_enough("required"));
        assert!(!random_enough("us-east-1"));
        assert!(!random_enough("aaaaaaaab1"));
    }
}
