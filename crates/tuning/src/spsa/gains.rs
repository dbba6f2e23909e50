//! SPSA's gain sequences and OpenBench's parameter lines.
//!
//! Iteration k (0-based) perturbs by c_k = c / (k+1)^γ and steps by a_k = a / (A+k+1)^α, as in
//! Spall's SPSA. Like OpenBench and fishtest, the user gives each parameter's perturbation at
//! the last iteration, c_end, and its "relative apply factor" there, r_end = a_end / c_end²;
//! with I iterations, c = c_end·I^γ and a = r_end·c_end²·(A+I)^α, so the last iteration has
//! exactly c_end and r_end. An integer parameter's perturbation never falls below 0.5 (as in
//! OpenBench), so θ+c and θ−c do not round to the same value.

use crate::search::ParamKind;

/// The schedule shared by all parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GainSchedule {
    /// Iterations planned (I).
    pub iterations: u64,
    /// A as a share of the iterations (OpenBench's A-ratio, default 0.1).
    pub a_ratio: f64,
    /// The step's decay exponent α (default 0.602).
    pub alpha: f64,
    /// The perturbation's decay exponent γ (default 0.101).
    pub gamma: f64,
}

impl GainSchedule {
    /// The usual exponents and A = iterations / 10.
    pub fn new(iterations: u64) -> GainSchedule {
        GainSchedule {
            iterations,
            a_ratio: 0.1,
            alpha: 0.602,
            gamma: 0.101,
        }
    }

    /// Spall's stability constant A.
    pub(crate) fn big_a(&self) -> f64 {
        self.a_ratio * self.iterations as f64
    }
}

/// One parameter's gain constants a and c.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gains {
    /// The perturbation constant c (c_0, before decay).
    pub c: f64,
    /// The step constant a.
    pub a: f64,
    /// The floor of the perturbation: 0.5 for integers, 0 for reals.
    pub(crate) c_floor: f64,
}

impl Gains {
    /// The constants that give `c_end` and `r_end` at the last iteration of `schedule`.
    pub(crate) fn from_ends(
        c_end: f64,
        r_end: f64,
        kind: ParamKind,
        schedule: &GainSchedule,
    ) -> Gains {
        let n = schedule.iterations.max(1) as f64;
        Gains {
            c: c_end * n.powf(schedule.gamma),
            a: r_end * c_end * c_end * (schedule.big_a() + n).powf(schedule.alpha),
            c_floor: match kind {
                ParamKind::Int => 0.5,
                ParamKind::Float => 0.0,
            },
        }
    }

    /// The perturbation c_k of iteration `k` (0-based).
    pub(crate) fn c_k(&self, k: u64, schedule: &GainSchedule) -> f64 {
        (self.c / ((k + 1) as f64).powf(schedule.gamma)).max(self.c_floor)
    }

    /// The step gain a_k of iteration `k` (0-based).
    pub(crate) fn a_k(&self, k: u64, schedule: &GainSchedule) -> f64 {
        self.a / (schedule.big_a() + (k + 1) as f64).powf(schedule.alpha)
    }

    /// The relative apply factor r_k = a_k / c_k².
    pub fn r_k(&self, k: u64, schedule: &GainSchedule) -> f64 {
        let c = self.c_k(k, schedule);
        self.a_k(k, schedule) / (c * c)
    }
}

/// One parameter as OpenBench (`name, int|float, value, min, max, c_end, r_end`) or fishtest
/// and Stockfish's `TUNE` (`name, value, min, max, c_end, r_end`, integers) write it.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamLine {
    /// The parameter's (or UCI option's) name.
    pub name: String,
    /// Integer or real (OpenBench: real only when the field is exactly `float`).
    pub kind: ParamKind,
    /// The starting value.
    pub value: f64,
    /// The smallest value tuned.
    pub min: f64,
    /// The largest value tuned.
    pub max: f64,
    /// The perturbation at the last iteration.
    pub c_end: f64,
    /// The relative apply factor at the last iteration.
    pub r_end: f64,
}

/// Parses one OpenBench (7 fields) or fishtest (6 fields) line; the error says what is wrong.
pub fn parse_param_line(line: &str) -> Result<ParamLine, String> {
    let fields: Vec<&str> = line.split(',').map(str::trim).collect();
    let (name, kind, numbers) = match fields.len() {
        7 => {
            let kind = if fields[1] == "float" {
                ParamKind::Float
            } else {
                ParamKind::Int
            };
            (fields[0], kind, &fields[2..])
        }
        6 => (fields[0], ParamKind::Int, &fields[1..]),
        n => {
            return Err(format!(
                "{n} fields; expected `name, int|float, value, min, max, c_end, r_end` \
                 (OpenBench) or `name, value, min, max, c_end, r_end` (fishtest)"
            ))
        }
    };
    if name.is_empty() {
        return Err("the name is empty".to_string());
    }
    let labels = ["value", "min", "max", "c_end", "r_end"];
    let mut values = [0.0; 5];
    for ((slot, text), label) in values.iter_mut().zip(numbers).zip(labels) {
        *slot = text
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| format!("{label} `{text}` is not a number"))?;
    }
    let [value, min, max, c_end, r_end] = values;
    check_param(min, max, value, c_end, r_end)?;
    Ok(ParamLine {
        name: name.to_string(),
        kind,
        value,
        min,
        max,
        c_end,
        r_end,
    })
}

/// The largest `c_end` and `r_end` (and the reciprocal of the smallest `c_end`): with spsa's
/// bounds on A, α and γ the gains and every step stay finite; beyond them a step came out
/// NaN (inf / inf) and was tuned on.
pub(crate) const MAX_GAIN_END: f64 = 1e50;

/// The consistency every parameter needs: min <= value <= max, c_end from 1e-50 to 1e50, r_end
/// from 0 to 1e50.
pub(crate) fn check_param(
    min: f64,
    max: f64,
    value: f64,
    c_end: f64,
    r_end: f64,
) -> Result<(), String> {
    if min > max {
        return Err(format!("min {min} is above max {max}"));
    }
    if value < min || value > max {
        return Err(format!("the value {value} is outside [{min}, {max}]"));
    }
    if c_end.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
        return Err(format!("c_end {c_end} must be above 0"));
    }
    if r_end.partial_cmp(&0.0).is_none() || r_end < 0.0 {
        return Err(format!("r_end {r_end} must be at least 0"));
    }
    if !(1.0 / MAX_GAIN_END..=MAX_GAIN_END).contains(&c_end) {
        return Err(format!("c_end {c_end} is outside 1e-50..1e50"));
    }
    if r_end > MAX_GAIN_END {
        return Err(format!("r_end {r_end} is above 1e50"));
    }
    Ok(())
}

/// The OpenBench line of a parameter (what `sparring uci --tunable` prints).
pub fn format_param_line(line: &ParamLine) -> String {
    format!(
        "{}, {}, {}, {}, {}, {}, {}",
        line.name,
        line.kind.name(),
        line.value,
        line.min,
        line.max,
        line.c_end,
        line.r_end
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gains_reach_c_end_and_r_end_at_the_last_iteration() {
        let schedule = GainSchedule::new(1000);
        let gains = Gains::from_ends(2.0, 0.002, ParamKind::Float, &schedule);
        let last = schedule.iterations - 1;
        assert!((gains.c_k(last, &schedule) - 2.0).abs() < 1e-12);
        assert!((gains.r_k(last, &schedule) - 0.002).abs() < 1e-15);
        // Decreasing, from c at the first iteration.
        assert!((gains.c_k(0, &schedule) - gains.c).abs() < 1e-12);
        assert!(gains.c_k(10, &schedule) < gains.c_k(9, &schedule));
        assert!(gains.a_k(10, &schedule) < gains.a_k(9, &schedule));
        // a_k = a / (A + k + 1)^alpha with A = 100.
        let expected = gains.a / (100.0f64 + 6.0).powf(0.602);
        assert!((gains.a_k(5, &schedule) - expected).abs() < 1e-12);
    }

    #[test]
    fn integer_perturbations_stay_at_least_one_half() {
        let schedule = GainSchedule::new(100);
        let gains = Gains::from_ends(0.1, 0.002, ParamKind::Int, &schedule);
        assert_eq!(gains.c_k(99, &schedule), 0.5);
        let real = Gains::from_ends(0.1, 0.002, ParamKind::Float, &schedule);
        assert!((real.c_k(99, &schedule) - 0.1).abs() < 1e-12);
    }

    #[test]
    fn openbench_and_fishtest_lines_parse() {
        let line = parse_param_line("LmrBase, float, 0.75, 0.25, 1.5, 0.065, 0.002").unwrap();
        assert_eq!(line.kind, ParamKind::Float);
        assert_eq!(
            (line.value, line.min, line.max, line.c_end, line.r_end),
            (0.75, 0.25, 1.5, 0.065, 0.002)
        );
        let line = parse_param_line(" RfpMargin,int,80,20,200,9,0.002 ").unwrap();
        assert_eq!(
            (line.name.as_str(), line.kind),
            ("RfpMargin", ParamKind::Int)
        );
        // OpenBench treats any other type word as int.
        assert_eq!(
            parse_param_line("X, spin, 1, 0, 2, 1, 0").unwrap().kind,
            ParamKind::Int
        );
        let fishtest = parse_param_line("NullMoveBase,3,1,6,0.5,0.0020").unwrap();
        assert_eq!(
            (fishtest.kind, fishtest.value, fishtest.r_end),
            (ParamKind::Int, 3.0, 0.002)
        );
        assert_eq!(
            format_param_line(&fishtest),
            "NullMoveBase, int, 3, 1, 6, 0.5, 0.002"
        );
        for (bad, says) in [
            ("X, int, 1, 0, 2", "5 fields"),
            ("X, int, one, 0, 2, 1, 0", "value `one`"),
            ("X, int, 5, 0, 2, 1, 0", "outside [0, 2]"),
            ("X, int, 1, 3, 2, 1, 0", "above max"),
            ("X, int, 1, 0, 2, 0, 0", "c_end 0"),
            ("X, int, 1, 0, 2, 1, -1", "r_end -1"),
            (", int, 1, 0, 2, 1, 0", "name is empty"),
            ("X, int, inf, 0, 2, 1, 0", "not a number"),
        ] {
            let err = parse_param_line(bad).unwrap_err();
            assert!(err.contains(says), "{bad}: {err}");
        }
    }
}
