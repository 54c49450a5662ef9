//! Generated values for served writes: random UUIDs and tokens, the system clock.

use rea_engine::Generator;

/// The server's generator: v4 UUIDs, the wall clock, random tokens.
#[derive(Debug, Default)]
pub struct SystemGenerator;

impl Generator for SystemGenerator {
    fn uuid(&mut self) -> String {
        uuid::Uuid::new_v4().to_string()
    }

    fn now_ms(&mut self) -> i64 {
        chrono::Utc::now().timestamp_millis()
    }

    fn token(&mut self, alphabet: &str, len: usize) -> String {
        let chars: Vec<char> = alphabet.chars().collect();
        if chars.is_empty() {
            return String::new();
        }
        let mut out = String::with_capacity(len);
        let mut pool: Vec<u8> = Vec::new();
        while out.chars().count() < len {
            if pool.is_empty() {
                pool.extend_from_slice(uuid::Uuid::new_v4().as_bytes());
            }
            let byte = pool.pop().unwrap_or(0) as usize;
            // Rejection sampling keeps the draw uniform over the alphabet.
            let limit = 256 - 256 % chars.len();
            if byte < limit {
                out.push(chars[byte % chars.len()]);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_draws_only_from_the_alphabet_and_has_the_length() {
        let mut g = SystemGenerator;
        let t = g.token("abc", 40);
        assert_eq!(t.chars().count(), 40);
        assert!(t.chars().all(|c| "abc".contains(c)));
        assert_eq!(g.token("", 5), "");
        assert_ne!(g.uuid(), g.uuid());
    }
}
