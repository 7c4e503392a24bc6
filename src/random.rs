//! Randomness from the kernel: tokens a suite cannot guess, jitter for retries.

use std::io::Read;

/// `bytes` random bytes as lowercase hex; `None` without a source of randomness.
pub fn hex(bytes: usize) -> Option<String> {
    let mut buf = vec![0u8; bytes];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut buf))
        .ok()?;
    Some(buf.iter().map(|b| format!("{b:02x}")).collect())
}

/// A number in `[0, 1)`, for jitter. Falls back to the clock's nanoseconds without
/// `/dev/urandom`: jitter needs spread, not secrecy.
pub fn unit() -> f64 {
    let mut buf = [0u8; 8];
    let value = match std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut buf)) {
        Ok(()) => u64::from_le_bytes(buf),
        Err(_) => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| {
                u64::from(d.subsec_nanos()).wrapping_mul(0x9e37_79b9_7f4a_7c15)
            }),
    };
    // 53 bits fill an f64's mantissa exactly.
    (value >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    #[test]
    fn hex_tokens_differ_and_have_the_asked_length() {
        let (a, b) = (
            super::hex(16).expect("urandom"),
            super::hex(16).expect("urandom"),
        );
        assert_eq!(a.len(), 32);
        assert_ne!(a, b);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
    }

    #[test]
    fn unit_is_in_range() {
        for _ in 0..1000 {
            let x = super::unit();
            assert!((0.0..1.0).contains(&x), "{x}");
        }
    }
}
