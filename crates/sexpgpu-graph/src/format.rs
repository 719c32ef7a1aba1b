//! Number formatting the way Clojure prints doubles (`1.0`, `0.25`, `1.0E-5`,
//! `##Inf`), shared by the IR printer and `to-vec`; never prints shapes.

/// Formats an `f32` with the shortest digits that read back to the same `f32`.
pub fn format_f32(x: f32) -> String {
    clojure_style(
        x.is_nan(),
        x.is_infinite(),
        x.is_sign_negative(),
        f64::from(x.abs()),
        || format!("{:e}", x.abs()),
    )
}

/// Formats an `f64` with the shortest digits that read back to the same `f64`.
pub fn format_f64(x: f64) -> String {
    clojure_style(
        x.is_nan(),
        x.is_infinite(),
        x.is_sign_negative(),
        x.abs(),
        || format!("{:e}", x.abs()),
    )
}

/// Java's `Double.toString` layout: plain decimals for 1e-3 <= |x| < 1e7,
/// otherwise `d.dddE±n`; always at least one digit after the point.
/// `scientific` yields Rust's shortest round-trip digits as `d.ddde±n`.
fn clojure_style(
    nan: bool,
    infinite: bool,
    negative: bool,
    magnitude: f64,
    scientific: impl Fn() -> String,
) -> String {
    if nan {
        return "##NaN".to_string();
    }
    if infinite {
        return if negative { "##-Inf" } else { "##Inf" }.to_string();
    }
    let sign = if negative { "-" } else { "" };
    let sci = scientific();
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    if magnitude == 0.0 {
        return format!("{sign}0.0");
    }
    if (1e-3..1e7).contains(&magnitude) {
        let point = exponent + 1; // digits before the decimal point
        let text = if point <= 0 {
            format!("0.{}{}", "0".repeat((-point) as usize), digits)
        } else if point as usize >= digits.len() {
            format!("{}{}.0", digits, "0".repeat(point as usize - digits.len()))
        } else {
            format!(
                "{}.{}",
                &digits[..point as usize],
                &digits[point as usize..]
            )
        };
        format!("{sign}{text}")
    } else {
        let (first, rest) = digits.split_at(1);
        let rest = if rest.is_empty() { "0" } else { rest };
        format!("{sign}{first}.{rest}E{exponent}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::expect;

    fn check(values: &[f64], expect: expect_test::Expect) {
        let text: Vec<String> = values.iter().map(|&x| format_f64(x)).collect();
        expect.assert_eq(&text.join(" "));
    }

    #[test]
    fn plain_decimals() {
        check(
            &[1.0, -2.5, 0.1, 1234567.0, 0.001, 100.0, 0.0, -0.0],
            expect!["1.0 -2.5 0.1 1234567.0 0.001 100.0 0.0 -0.0"],
        );
    }

    #[test]
    fn scientific_outside_java_range() {
        check(
            &[1e-5, 1.5e7, 1e20, -2.5e-4],
            expect!["1.0E-5 1.5E7 1.0E20 -2.5E-4"],
        );
    }

    #[test]
    fn non_finite() {
        check(
            &[f64::NAN, f64::INFINITY, f64::NEG_INFINITY],
            expect!["##NaN ##Inf ##-Inf"],
        );
    }

    #[test]
    fn f32_uses_shortest_f32_digits() {
        expect!["1.1 0.3 3.4028235E38"]
            .assert_eq(&[1.1f32, 0.3, f32::MAX].map(format_f32).join(" "));
    }
}
