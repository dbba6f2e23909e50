//! How fastchess reads an engine's option declarations and the values configured for them
//! (`engine/option/` of fastchess): a spin is an `int` spin when its default, min and max all
//! read as C++ `int`s, else a `double` spin when they all read as `double`s, else fastchess
//! cannot build it and stops its run; a configured value goes through C++'s `std::stoi` or
//! `std::stod`, whose failure is fastchess's `Failed to set option ...: stoi`.

use super::uci::{DeclaredOption, RefusedOption};

/// The white space C's `isspace` skips before a number (the "C" locale).
const C_SPACE: [char; 6] = [' ', '\t', '\n', '\r', '\x0b', '\x0c'];

/// A spin as fastchess builds it from the declaration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum FastchessSpin {
    /// Default, min and max are all C++ `int`s: values are read with `std::stoi`.
    Int {
        /// The declared lower bound.
        min: i32,
        /// The declared upper bound.
        max: i32,
    },
    /// Otherwise, all three are `double`s: values are read with `std::stod`.
    Float {
        /// The declared lower bound.
        min: f64,
        /// The declared upper bound.
        max: f64,
    },
}

/// A spin declaration fastchess cannot build: its default, min and max as written (each its
/// first word, empty when absent) and fastchess's exception text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadSpin {
    /// The declared default.
    pub default: String,
    /// The declared lower bound.
    pub min: String,
    /// The declared upper bound.
    pub max: String,
    /// What fastchess throws, e.g. `Min value cannot be greater than max value.`
    pub what: &'static str,
}

/// C++'s `std::stoi` on `text`: leading white space, a sign and at least one digit, the rest
/// ignored; None where it throws (no digits, or beyond a 32-bit int).
pub fn stoi(text: &str) -> Option<i32> {
    let t = text.trim_start_matches(C_SPACE);
    let (negative, rest) = split_sign(t);
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let sign = if negative { "-" } else { "" };
    format!("{sign}{}", &rest[..digits]).parse().ok()
}

/// C++'s `std::stod` on `text` (glibc's `strtod`): leading white space, a sign, then the
/// longest decimal number (`1.5`, `.5`, `2.`, `1e3`), hexadecimal number (`0x1.8p1`),
/// `inf`, `infinity` or `nan`, the rest ignored; None where it throws (nothing read, or a
/// result out of range: an overflow, or an underflow to zero or a subnormal).
pub fn stod(text: &str) -> Option<f64> {
    let t = text.trim_start_matches(C_SPACE);
    let (negative, rest) = split_sign(t);
    let lower = rest
        .get(..8.min(rest.len()))
        .unwrap_or("")
        .to_ascii_lowercase();
    let magnitude = if lower.starts_with("inf") {
        f64::INFINITY
    } else if lower.starts_with("nan") {
        f64::NAN
    } else if lower.starts_with("0x") && hex_mantissa(&rest[2..]).1 > 0 {
        hex_float(&rest[2..])?
    } else {
        decimal_float(rest)?
    };
    Some(if negative { -magnitude } else { magnitude })
}

/// The sign of a number's text (`-` or `+`) and the rest.
fn split_sign(t: &str) -> (bool, &str) {
    match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    }
}

/// The length in bytes of the hexadecimal mantissa `t` starts with (digits and at most one
/// point), and how many digits it holds.
fn hex_mantissa(t: &str) -> (usize, usize) {
    let (mut len, mut digits, mut point) = (0, 0, false);
    for b in t.bytes() {
        match b {
            b'.' if !point => point = true,
            b if b.is_ascii_hexdigit() => digits += 1,
            _ => break,
        }
        len += 1;
    }
    (len, digits)
}

/// The length of an exponent (`e-5`, `p+3`) at the start of `t`, 0 without digits.
fn exponent_len(t: &[u8], marks: &[u8]) -> usize {
    if !t.first().is_some_and(|b| marks.contains(b)) {
        return 0;
    }
    let signed = usize::from(matches!(t.get(1), Some(b'+' | b'-')));
    let digits = t[1 + signed..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    if digits == 0 {
        0
    } else {
        1 + signed + digits
    }
}

/// A finite, normal (or zero from a zero mantissa) result; None where strtod sets ERANGE.
fn in_range(value: f64, mantissa_is_zero: bool) -> Option<f64> {
    let underflow = (value == 0.0 && !mantissa_is_zero) || value.is_subnormal();
    (value.is_finite() && !underflow).then_some(value)
}

/// The decimal number at the start of `t` (no sign).
fn decimal_float(t: &str) -> Option<f64> {
    let b = t.as_bytes();
    let int = b.iter().take_while(|c| c.is_ascii_digit()).count();
    let frac = if b.get(int) == Some(&b'.') {
        1 + b[int + 1..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count()
    } else {
        0
    };
    if int + frac.saturating_sub(1) == 0 {
        return None;
    }
    let end = int + frac;
    let end = end + exponent_len(&b[end..], b"eE");
    let mantissa_is_zero = t[..int + frac].bytes().all(|c| c == b'0' || c == b'.');
    in_range(t[..end].parse().ok()?, mantissa_is_zero)
}

/// The hexadecimal number after `0x` at the start of `t` (at least one digit).
fn hex_float(t: &str) -> Option<f64> {
    let b = t.as_bytes();
    let (len, _) = hex_mantissa(t);
    let (mut value, mut scale, mut point) = (0.0_f64, 0_i32, false);
    for &c in &b[..len] {
        if c == b'.' {
            point = true;
            continue;
        }
        value = value * 16.0 + f64::from((c as char).to_digit(16)?);
        if point {
            scale -= 4;
        }
    }
    let exp_len = exponent_len(&b[len..], b"pP");
    let exponent: i32 = if exp_len > 0 {
        // Beyond any double's range either way: clamp, the result says which.
        t[len + 1..len + exp_len].parse().unwrap_or_else(|_| {
            if t.as_bytes()[len + 1] == b'-' {
                -100_000
            } else {
                100_000
            }
        })
    } else {
        0
    };
    let mantissa_is_zero = value == 0.0;
    in_range(
        value * 2f64.powi(scale.saturating_add(exponent)),
        mantissa_is_zero,
    )
}

/// Whether `token` reads whole as a C++ `int` (`stream >> int` to the end).
fn is_int_token(token: &str) -> bool {
    let (_, digits) = split_sign(token);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) && token.parse::<i32>().is_ok()
}

/// Whether `token` reads whole as a C++ `double` (`stream >> double` to the end): digits
/// with an optional point and exponent, nothing else.
fn is_float_token(token: &str) -> bool {
    let (_, rest) = split_sign(token);
    let b = rest.as_bytes();
    let int = b.iter().take_while(|c| c.is_ascii_digit()).count();
    let frac = if b.get(int) == Some(&b'.') {
        1 + b[int + 1..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count()
    } else {
        0
    };
    let end = int + frac;
    int + frac.saturating_sub(1) > 0
        && end + exponent_len(&b[end..], b"eE") == b.len()
        && decimal_float(rest).is_some()
}

/// How fastchess builds the spin declared with `default`, `min` and `max` (each a single
/// token, as fastchess reads them): the spin, or the text of the exception that stops its run.
pub(crate) fn fastchess_spin(
    default: &str,
    min: &str,
    max: &str,
) -> Result<FastchessSpin, &'static str> {
    const NOT_NUMERIC: &str = "The spin values are not numeric.";
    const MIN_ABOVE_MAX: &str = "Min value cannot be greater than max value.";
    const OUT_OF_RANGE: &str = "Value is out of the allowed range.";
    let all = [default, min, max];
    if all.iter().all(|t| is_int_token(t)) {
        let [d, lo, hi] = all.map(|t| t.parse::<i32>().unwrap_or_default());
        if lo > hi {
            return Err(MIN_ABOVE_MAX);
        }
        if !(lo..=hi).contains(&d) {
            return Err(OUT_OF_RANGE);
        }
        return Ok(FastchessSpin::Int { min: lo, max: hi });
    }
    if all.iter().all(|t| is_float_token(t)) {
        let [d, lo, hi] = all.map(|t| stod(t).unwrap_or_default());
        if lo > hi {
            return Err(MIN_ABOVE_MAX);
        }
        if !(d >= lo && d <= hi) {
            return Err(OUT_OF_RANGE);
        }
        return Ok(FastchessSpin::Float { min: lo, max: hi });
    }
    Err(NOT_NUMERIC)
}

impl DeclaredOption {
    /// fastchess's check of a configured value against this declaration: a spin's value read
    /// as `std::stoi` (an `int` spin) or `std::stod` (a `double` spin) reads it and within
    /// min..=max, a check's `true` or `false`, a combo's var exactly, a button's `true`; any
    /// string. A spin fastchess cannot build is not checked here (the start refuses it).
    pub(crate) fn fastchess_check(&self, value: &str) -> Result<(), RefusedOption> {
        let refuse = |unreadable: Option<&str>, allowed: String| RefusedOption {
            name: self.name.clone(),
            value: value.to_string(),
            unreadable: unreadable.map(String::from),
            allowed,
        };
        match self.kind.as_str() {
            "spin" => match self.fastchess_spin {
                Some(Ok(FastchessSpin::Int { min, max })) => {
                    let allowed = format!("a spin from {min} to {max}");
                    match stoi(value) {
                        None => Err(refuse(Some("stoi"), allowed)),
                        Some(v) if (min..=max).contains(&v) => Ok(()),
                        Some(_) => Err(refuse(None, allowed)),
                    }
                }
                Some(Ok(FastchessSpin::Float { min, max })) => {
                    let allowed = format!("a spin from {min} to {max}");
                    match stod(value) {
                        None => Err(refuse(Some("stod"), allowed)),
                        Some(v) if v >= min && v <= max => Ok(()),
                        Some(_) => Err(refuse(None, allowed)),
                    }
                }
                _ => Ok(()),
            },
            "check" if value != "true" && value != "false" => {
                Err(refuse(None, "a check: true or false".to_string()))
            }
            "combo" if !self.vars.iter().any(|v| v == value) => {
                Err(refuse(None, format!("a combo of {}", self.vars.join(", "))))
            }
            "button" if value != "true" => Err(refuse(None, "a button: true".to_string())),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_checked_as_fastchess_checks_them() {
        let hash =
            DeclaredOption::parse("option name Hash type spin default 16 min 1 max 64").unwrap();
        // std::stoi reads a leading number and ignores the rest (a decimal's fraction, an
        // exponent); the value sent is still the text as configured.
        for ok in [
            "1", "64", " 8", "+8", "12abc", "1.5", "63.9", "+5", " 7", "\t7", "1e3",
        ] {
            assert_eq!(hash.fastchess_check(ok), Ok(()), "{ok}");
        }
        let out = hash.fastchess_check("65").unwrap_err();
        assert_eq!(
            (out.unreadable, out.allowed.as_str()),
            (None, "a spin from 1 to 64")
        );
        assert!(
            hash.fastchess_check("0.5")
                .unwrap_err()
                .unreadable
                .is_none(),
            "reads 0"
        );
        assert!(hash
            .fastchess_check("65.0")
            .unwrap_err()
            .unreadable
            .is_none());
        for unreadable in [
            "lots",
            "",
            " ",
            "-",
            "+-5",
            ".5",
            "2147483648",
            "-2147483649",
            "99999999999",
        ] {
            let refused = hash.fastchess_check(unreadable).unwrap_err();
            assert_eq!(refused.unreadable.as_deref(), Some("stoi"), "{unreadable}");
        }
        assert!(hash.fastchess_check("-3").unwrap_err().unreadable.is_none());
        let style =
            DeclaredOption::parse("option name Style type combo default A var A var B").unwrap();
        assert!(style.fastchess_check("B").is_ok());
        assert!(style.fastchess_check("b").is_err(), "exact, as fastchess");
        let check = DeclaredOption::parse("option name Ponder type check default false").unwrap();
        assert!(check.fastchess_check("false").is_ok());
        assert!(check.fastchess_check("True").is_err());
        let button = DeclaredOption::parse("option name Clear Hash type button").unwrap();
        assert!(button.fastchess_check("true").is_ok());
        assert!(button.fastchess_check("false").is_err());
        let path = DeclaredOption::parse("option name Book type string default x").unwrap();
        assert!(path.fastchess_check("").is_ok());
        // Not all of default, min and max `int`s: a double spin, values read by std::stod.
        let float =
            DeclaredOption::parse("option name Scale type spin default 0.5 min 0 max 1.5").unwrap();
        for ok in ["0", "1.5", "0.25abc", " +1e-1", "0x1p0"] {
            assert_eq!(float.fastchess_check(ok), Ok(()), "{ok}");
        }
        for out in ["9", "-0.1", "1.5000001", "inf", "nan"] {
            let refused = float.fastchess_check(out).unwrap_err();
            assert_eq!(refused.unreadable, None, "{out}");
            assert_eq!(refused.allowed, "a spin from 0 to 1.5");
        }
        for unreadable in ["abc", "", ".", "1e999"] {
            let refused = float.fastchess_check(unreadable).unwrap_err();
            assert_eq!(refused.unreadable.as_deref(), Some("stod"), "{unreadable}");
        }
        // An int spin's bounds beyond 32 bits make it a double spin too.
        let wide =
            DeclaredOption::parse("option name Nodes type spin default 1 min 0 max 99999999999")
                .unwrap();
        assert!(wide.fastchess_check("5000000000").is_ok());
    }

    #[test]
    fn stoi_reads_as_cpp_reads() {
        let cases: &[(&str, Option<i32>)] = &[
            ("1.5", Some(1)),
            ("+5", Some(5)),
            (" 7", Some(7)),
            ("\t\n-7x", Some(-7)),
            ("1e3", Some(1)),
            ("12abc", Some(12)),
            ("0009", Some(9)),
            ("2147483647", Some(i32::MAX)),
            ("-2147483648", Some(i32::MIN)),
            ("", None),
            ("abc", None),
            ("-", None),
            ("+-5", None),
            ("- 5", None),
            (".5", None),
            ("2147483648", None),
            ("-2147483649", None),
            ("99999999999999999999", None),
        ];
        for (text, expected) in cases {
            assert_eq!(stoi(text), *expected, "{text:?}");
        }
    }

    #[test]
    fn stod_reads_as_cpp_reads() {
        let cases: &[(&str, Option<f64>)] = &[
            ("1.5", Some(1.5)),
            (" +.5x", Some(0.5)),
            ("2.", Some(2.0)),
            ("1e3", Some(1000.0)),
            ("1e", Some(1.0)),
            ("-1.5e-1", Some(-0.15)),
            ("0x1.8p1", Some(3.0)),
            ("0x10", Some(16.0)),
            ("0xg", Some(0.0)),
            ("0", Some(0.0)),
            ("0.000", Some(0.0)),
            ("", None),
            ("abc", None),
            (".", None),
            ("e5", None),
            ("1e999", None),
            ("1e-999", None),
            ("1e-310", None),
        ];
        for (text, expected) in cases {
            assert_eq!(stod(text), *expected, "{text:?}");
        }
        assert_eq!(stod("-inf"), Some(f64::NEG_INFINITY));
        assert_eq!(stod("Infinity"), Some(f64::INFINITY));
        assert!(stod("nan").is_some_and(f64::is_nan));
    }

    #[test]
    fn spins_are_built_as_fastchess_builds_them() {
        assert_eq!(
            fastchess_spin("16", "1", "64"),
            Ok(FastchessSpin::Int { min: 1, max: 64 })
        );
        assert_eq!(
            fastchess_spin("+16", "-1", "64"),
            Ok(FastchessSpin::Int { min: -1, max: 64 })
        );
        // One bound not an `int`: all three as doubles.
        assert_eq!(
            fastchess_spin("1.5", "0", "10"),
            Ok(FastchessSpin::Float {
                min: 0.0,
                max: 10.0
            })
        );
        assert_eq!(
            fastchess_spin("1", "0", "99999999999"),
            Ok(FastchessSpin::Float {
                min: 0.0,
                max: 99_999_999_999.0
            })
        );
        assert_eq!(
            fastchess_spin("1e3", "0", "1e4"),
            Ok(FastchessSpin::Float {
                min: 0.0,
                max: 10_000.0
            })
        );
        let not_numeric = Err("The spin values are not numeric.");
        for (d, lo, hi) in [
            ("", "1", "64"),
            ("16", "", "64"),
            ("x", "1", "2"),
            ("1", "0", "inf"),
        ] {
            assert_eq!(fastchess_spin(d, lo, hi), not_numeric, "{d} {lo} {hi}");
        }
        assert_eq!(
            fastchess_spin("16", "64", "1"),
            Err("Min value cannot be greater than max value.")
        );
        assert_eq!(
            fastchess_spin("100", "1", "64"),
            Err("Value is out of the allowed range.")
        );
        assert_eq!(
            fastchess_spin("0.5", "1", "1.5"),
            Err("Value is out of the allowed range.")
        );
    }
}
