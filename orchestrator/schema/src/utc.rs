//! Dates as text, in UTC: provenance headers (`2026-11-27T05:12:33Z`) and the default names of
//! run folders (`runs/3vs1-2026-11-27T05-12-33`). One calendar conversion for every program.

use std::time::{SystemTime, UNIX_EPOCH};

/// Seconds since the Unix epoch now.
fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The current UTC time as `YYYY-MM-DDTHH:MM:SSZ`, for provenance headers.
#[must_use]
pub fn utc_now() -> String {
    utc_text(now_secs())
}

/// The current UTC time as `YYYY-MM-DDTHH-MM-SS`: sortable, readable, and a valid file name
/// everywhere (no `:`).
#[must_use]
pub fn utc_now_for_names() -> String {
    for_names(now_secs())
}

fn for_names(secs: u64) -> String {
    utc_text(secs).trim_end_matches('Z').replace(':', "-")
}

/// Seconds since the Unix epoch as `YYYY-MM-DDTHH:MM:SSZ` (proleptic Gregorian calendar,
/// Howard Hinnant's days-to-civil algorithm).
#[must_use]
pub fn utc_text(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn utc_text_matches_known_dates() {
        assert_eq!(super::utc_text(0), "1970-01-01T00:00:00Z");
        // 2000-02-29 (a leap day of a century leap year) 12:34:56.
        assert_eq!(super::utc_text(951_827_696), "2000-02-29T12:34:56Z");
        assert_eq!(super::utc_text(1_798_761_599), "2026-12-31T23:59:59Z");
        assert_eq!(super::for_names(1_798_761_599), "2026-12-31T23-59-59");
    }
}
