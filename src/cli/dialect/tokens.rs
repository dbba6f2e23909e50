//! The line cut into option groups (`-draw movenumber=34 movecount=8`), and the readers of the
//! values those groups hold, with their usage errors.

use crate::cli::UsageError;

/// One option and the tokens after it, up to the next option.
pub(super) struct Group {
    pub(super) option: String,
    pub(super) params: Vec<String>,
}

/// An option starts with `-` and is not a negative number (`-concurrency -2` is allowed).
pub(super) fn is_option(token: &str) -> bool {
    let mut chars = token.chars();
    chars.next() == Some('-')
        && chars
            .next()
            .is_some_and(|c| !c.is_ascii_digit() && c != '.')
}

pub(super) fn groups(args: &[String]) -> Result<Vec<Group>, UsageError> {
    let mut groups: Vec<Group> = Vec::new();
    for token in args {
        if is_option(token) {
            groups.push(Group {
                option: token.clone(),
                params: Vec::new(),
            });
        } else {
            match groups.last_mut() {
                Some(g) => g.params.push(token.clone()),
                None => {
                    return Err(UsageError(format!(
                        "expected an option such as -engine, found `{token}`"
                    )))
                }
            }
        }
    }
    Ok(groups)
}

pub(super) fn usage_error(text: impl Into<String>) -> UsageError {
    UsageError(text.into())
}

impl Group {
    /// The single value of `-rounds 10`.
    pub(super) fn one(&self) -> Result<&str, UsageError> {
        match self.params.as_slice() {
            [value] => Ok(value),
            [] => Err(usage_error(format!("{} needs a value", self.option))),
            more => Err(usage_error(format!(
                "{} takes one value, found {}: {}",
                self.option,
                more.len(),
                more.join(" ")
            ))),
        }
    }

    /// A flag such as `-recover` takes no value.
    pub(super) fn none(&self) -> Result<(), UsageError> {
        match self.params.first() {
            None => Ok(()),
            Some(v) => Err(usage_error(format!(
                "{} takes no value, found `{v}`",
                self.option
            ))),
        }
    }

    /// The `key=value` pairs of `-draw movenumber=34 movecount=8`, split at the first `=`.
    pub(super) fn pairs(&self) -> Result<Vec<(String, String)>, UsageError> {
        self.params.iter().map(|p| pair(&self.option, p)).collect()
    }

    pub(super) fn number<T: std::str::FromStr>(&self, what: &str) -> Result<T, UsageError> {
        let text = self.one()?;
        text.parse()
            .map_err(|_| usage_error(format!("{} {text}: expected {what}", self.option)))
    }
}

pub(super) fn pair(option: &str, token: &str) -> Result<(String, String), UsageError> {
    match token.split_once('=') {
        Some((k, v)) if !k.is_empty() && !v.is_empty() => Ok((k.to_string(), v.to_string())),
        Some(_) => Err(usage_error(format!(
            "{option} {token}: a key and a non-empty value are needed (key=value)"
        ))),
        None => Err(usage_error(format!("{option} {token}: expected key=value"))),
    }
}

pub(super) fn bad(option: &str, key: &str, value: &str, expected: &str) -> UsageError {
    usage_error(format!("{option} {key}={value}: expected {expected}"))
}

pub(super) fn boolean(option: &str, key: &str, value: &str) -> Result<bool, UsageError> {
    match value {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(bad(option, key, value, "true or false")),
    }
}

pub(super) fn positive(g: &Group) -> Result<u64, UsageError> {
    let n: u64 = g.number("a positive integer")?;
    if n == 0 {
        return Err(usage_error(format!("{} 0: expected at least 1", g.option)));
    }
    Ok(n)
}

/// fastchess joins the tokens of `-event`/`-site` with nothing between them; one argument (as
/// the workers pass) is kept as it is.
pub(super) fn free_text(g: &Group) -> Result<String, UsageError> {
    let text = g.params.concat();
    if text.is_empty() {
        return Err(usage_error(format!("{} needs a value", g.option)));
    }
    if text.chars().any(char::is_control) {
        return Err(usage_error(format!(
            "{} {text:?}: control characters are not allowed",
            g.option
        )));
    }
    Ok(text)
}

pub(super) fn bounded(
    option: &str,
    key: &str,
    value: &str,
    min: i64,
    max: i64,
) -> Result<i64, UsageError> {
    value
        .parse::<i64>()
        .ok()
        .filter(|n| (min..=max).contains(n))
        .ok_or_else(|| {
            bad(
                option,
                key,
                value,
                &format!("an integer from {min} to {max}"),
            )
        })
}
