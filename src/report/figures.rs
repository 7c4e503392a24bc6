//! How the report's figures read, the same in every human format: `95.7%`, `+2.1 pts`,
//! `95 min`, `22 h`, `2.0 d`; `—` for a value that is not a number.

/// What a missing or unreadable value shows.
pub const NONE: &str = "—";

/// A value already in percent, with one decimal: `82.8%` (never `-0.0%`).
pub fn percent(value: f64) -> String {
    if value.is_finite() {
        format!("{:.1}%", value + 0.0)
    } else {
        NONE.to_owned()
    }
}

/// A fraction as a percentage: `0.957` is `95.7%`.
pub fn fraction(rate: f64) -> String {
    percent(rate * 100.0)
}

/// A difference of two fractions in percentage points: `+2.1 pts`, `−6.4 pts`, `0.0 pts`.
pub fn points(delta: f64) -> String {
    if !delta.is_finite() {
        return NONE.to_owned();
    }
    let shown = format!("{:.1}", (delta * 100.0).abs());
    if shown == "0.0" {
        "0.0 pts".to_owned()
    } else if delta > 0.0 {
        format!("+{shown} pts")
    } else {
        format!("\u{2212}{shown} pts")
    }
}

/// A duration in minutes: `4.2 min` under ten, `95 min` under two hours, `22 h` under two
/// days, then `2.0 d`.
pub fn minutes(value: f64) -> String {
    if !value.is_finite() || value < 0.0 {
        NONE.to_owned()
    } else if value < 10.0 && value.fract() != 0.0 {
        format!("{value:.1} min")
    } else if value < 120.0 {
        format!("{value:.0} min")
    } else if value < 48.0 * 60.0 {
        format!("{:.0} h", value / 60.0)
    } else {
        format!("{:.1} d", value / 1440.0)
    }
}

#[cfg(test)]
mod tests {
    use super::{fraction, minutes, percent, points};

    #[test]
    fn figures_read_the_same_everywhere() {
        assert_eq!(fraction(0.957), "95.7%");
        assert_eq!(percent(-0.0), "0.0%");
        assert_eq!(percent(f64::NAN), "—");
        assert_eq!(points(0.021), "+2.1 pts");
        assert_eq!(points(-0.064), "\u{2212}6.4 pts");
        assert_eq!(points(0.0004), "0.0 pts");
        assert_eq!(minutes(4.2), "4.2 min");
        assert_eq!(minutes(0.0), "0 min");
        assert_eq!(minutes(95.0), "95 min");
        assert_eq!(minutes(1320.0), "22 h");
        assert_eq!(minutes(2880.0), "2.0 d");
        assert_eq!(minutes(f64::NAN), "—");
    }
}
