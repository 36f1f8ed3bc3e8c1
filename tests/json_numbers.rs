//! The one rule for numbers in JSON output (`qrenyi::io::json_number`).

use qrenyi::io::json_number;

/// `json_number_rule`: finite values are numbers with the shortest round-trip digits and −0 → 0;
/// ±∞ → "inf"/"-inf"; NaN → "nan".
#[test]
fn json_number_rule() {
    assert_eq!(json_number(-0.0).to_string(), "0.0");
    assert_eq!(json_number(0.1 + 0.2).to_string(), "0.30000000000000004");
    assert_eq!(json_number(1e-7).to_string(), "1e-7");
    assert_eq!(json_number(f64::INFINITY), serde_json::json!("inf"));
    assert_eq!(json_number(f64::NEG_INFINITY), serde_json::json!("-inf"));
    assert_eq!(json_number(f64::NAN), serde_json::json!("nan"));
    for x in [1.022115832931, 0.000101, 6.02e23, -3.5] {
        let text = json_number(x).to_string();
        assert_eq!(text.parse::<f64>().unwrap(), x, "{text}");
    }
}
