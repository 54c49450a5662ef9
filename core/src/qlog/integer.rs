//! QUIC integers as the qlog profile interprets them: exact nonnegative
//! JSON integer values through 2^62 − 1, read from the original lexeme so
//! `4611686018427387903` and `1e3` are exact and `1.5`, `-1` and
//! `4611686018427387904` are refused.

use serde_json::Value;

/// The largest QUIC variable-length integer, 2^62 − 1.
pub const QUIC_INT_MAX: u64 = (1 << 62) - 1;

/// Why a value is not a QUIC integer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntProblem {
    /// Not a JSON number (a string, boolean, array or object).
    NotANumber,
    /// A number below zero.
    Negative,
    /// A number with a nonzero fraction.
    NotAnInteger,
    /// An integer above 2^62 − 1.
    OutOfRange,
}

impl IntProblem {
    /// The `reason` detail of the error.
    pub fn reason(self) -> &'static str {
        match self {
            IntProblem::NotANumber => "not-a-number",
            IntProblem::Negative => "negative",
            IntProblem::NotAnInteger => "not-an-integer",
            IntProblem::OutOfRange => "above-2^62-1",
        }
    }
}

/// Reads a member as a QUIC integer. `lexeme` is the number's original
/// spelling when the reader kept one (unsafe numbers are `null` in the
/// value and only there). `Ok(None)` means absent or `null`: unknown.
pub fn read(value: Option<&Value>, lexeme: Option<&str>) -> Result<Option<u64>, IntProblem> {
    if let Some(lexeme) = lexeme {
        return exact(lexeme).map(Some);
    }
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => {
            if let Some(u) = n.as_u64() {
                return if u <= QUIC_INT_MAX {
                    Ok(Some(u))
                } else {
                    Err(IntProblem::OutOfRange)
                };
            }
            exact(&n.to_string()).map(Some)
        }
        Some(_) => Err(IntProblem::NotANumber),
    }
}

/// The exact value of a JSON number lexeme, when it is an integer in
/// `0..=2^62 − 1` (exponent and fraction spellings included: `1e3`,
/// `1.5e1`, `100.0`; `-0` is zero).
pub fn exact(lexeme: &str) -> Result<u64, IntProblem> {
    let (negative, body) = match lexeme.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, lexeme),
    };
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(at) => (&body[..at], &body[at + 1..]),
        None => (body, ""),
    };
    let (int_part, frac_part) = match mantissa.find('.') {
        Some(at) => (&mantissa[..at], &mantissa[at + 1..]),
        None => (mantissa, ""),
    };
    let digits_ok = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if int_part.is_empty() || !digits_ok(int_part) || !digits_ok(frac_part) {
        return Err(IntProblem::NotANumber);
    }
    if mantissa.contains('.') && frac_part.is_empty() {
        return Err(IntProblem::NotANumber);
    }
    // Exponent, saturated: anything past ±10^6 decides the answer alone.
    let mut exp: i64 = 0;
    if !exponent.is_empty() || body.contains(['e', 'E']) {
        let (sign, digits) = match exponent.as_bytes().first() {
            Some(b'-') => (-1, &exponent[1..]),
            Some(b'+') => (1, &exponent[1..]),
            _ => (1, exponent),
        };
        if digits.is_empty() || !digits_ok(digits) {
            return Err(IntProblem::NotANumber);
        }
        for b in digits.bytes() {
            exp = (exp * 10 + i64::from(b - b'0')).min(1_000_000);
        }
        exp *= sign;
    }
    // All significant digits, then the power of ten they are scaled by.
    let all: String = format!("{int_part}{frac_part}");
    let trimmed_lead = all.trim_start_matches('0');
    if trimmed_lead.is_empty() {
        return Ok(0);
    }
    if negative {
        return Err(IntProblem::Negative);
    }
    let significant = trimmed_lead.trim_end_matches('0');
    let trailing_zeros = (trimmed_lead.len() - significant.len()) as i64;
    let scale = exp - frac_part.len() as i64 + trailing_zeros;
    if scale < 0 {
        return Err(IntProblem::NotAnInteger);
    }
    if significant.len() as i64 + scale > 19 {
        return Err(IntProblem::OutOfRange);
    }
    let mut value: u128 = 0;
    for b in significant.bytes() {
        value = value * 10 + u128::from(b - b'0');
    }
    for _ in 0..scale {
        value *= 10;
    }
    if value > u128::from(QUIC_INT_MAX) {
        return Err(IntProblem::OutOfRange);
    }
    Ok(value as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn exact_integers_through_two_to_the_62_minus_one() {
        assert_eq!(exact("4611686018427387903"), Ok(QUIC_INT_MAX));
        assert_eq!(exact("1e3"), Ok(1000));
        assert_eq!(exact("1E+3"), Ok(1000));
        assert_eq!(exact("1.5e1"), Ok(15));
        assert_eq!(exact("100.0"), Ok(100));
        assert_eq!(exact("12000e-3"), Ok(12));
        assert_eq!(exact("0"), Ok(0));
        assert_eq!(exact("-0"), Ok(0));
        assert_eq!(exact("0.0e5"), Ok(0));
        assert_eq!(exact("4.611686018427387903e18"), Ok(QUIC_INT_MAX));
    }

    #[test]
    fn refusals_name_their_reason() {
        assert_eq!(exact("4611686018427387904"), Err(IntProblem::OutOfRange));
        assert_eq!(exact("1e19"), Err(IntProblem::OutOfRange));
        assert_eq!(exact("1e999999999999"), Err(IntProblem::OutOfRange));
        assert_eq!(exact("-1"), Err(IntProblem::Negative));
        assert_eq!(exact("1.5"), Err(IntProblem::NotAnInteger));
        assert_eq!(exact("1e-1"), Err(IntProblem::NotAnInteger));
        assert_eq!(exact("1e-999999999"), Err(IntProblem::NotAnInteger));
        assert_eq!(exact("x"), Err(IntProblem::NotANumber));
    }

    #[test]
    fn values_without_a_lexeme_and_absent_members() {
        assert_eq!(read(Some(&json!(5)), None), Ok(Some(5)));
        assert_eq!(read(Some(&json!(-1)), None), Err(IntProblem::Negative));
        assert_eq!(read(Some(&json!(1.5)), None), Err(IntProblem::NotAnInteger));
        assert_eq!(read(Some(&json!("5")), None), Err(IntProblem::NotANumber));
        assert_eq!(read(None, None), Ok(None));
        assert_eq!(read(Some(&Value::Null), None), Ok(None));
        assert_eq!(
            read(Some(&Value::Null), Some("4611686018427387903")),
            Ok(Some(QUIC_INT_MAX))
        );
        assert_eq!(
            read(Some(&json!(u64::MAX)), None),
            Err(IntProblem::OutOfRange)
        );
    }
}
