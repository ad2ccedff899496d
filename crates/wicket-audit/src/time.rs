//! UTC time stamps without a time-zone database: the line's `time`, the file name's stamp, and
//! the bounds `wicket audit show` filters on.
//!
//! Every stamp is UTC with a fixed width, so stamps compare correctly as plain strings.

use std::time::{SystemTime, UNIX_EPOCH};

/// Milliseconds since the Unix epoch, now (0 if the clock is before 1970).
pub fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX)).unwrap_or(0)
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ`, the line's `time`.
pub fn format_utc(ms: u64) -> String {
    let (y, mo, d, h, mi, s) = parts(ms);
    let Ok(year @ 0..=9999) = u64::try_from(y) else {
        return format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{:03}Z", ms % 1000);
    };
    // Digits into a fixed template rather than through `format!`: every line takes one.
    let mut b = *b"0000-00-00T00:00:00.000Z";
    for (at, width, v) in [(0, 4, year), (5, 2, mo.into()), (8, 2, d.into()), (11, 2, h), (14, 2, mi), (17, 2, s)] {
        digits(&mut b[at..at + width], v);
    }
    digits(&mut b[20..23], ms % 1000);
    String::from_utf8_lossy(&b).into_owned()
}

/// Write `v`'s last `dst.len()` decimal digits into `dst`, zero-padded.
fn digits(dst: &mut [u8], mut v: u64) {
    for d in dst.iter_mut().rev() {
        *d = b'0' + (v % 10) as u8;
        v /= 10;
    }
}

/// `YYYYMMDDTHHMMSSZ`, the stamp at the start of a log file's name.
pub(crate) fn file_stamp(ms: u64) -> String {
    let (y, mo, d, h, mi, s) = parts(ms);
    format!("{y:04}{mo:02}{d:02}T{h:02}{mi:02}{s:02}Z")
}

fn parts(ms: u64) -> (i64, u32, u32, u64, u64, u64) {
    let secs = ms / 1000;
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(days);
    (y, m, d, rem / 3600, rem % 3600 / 60, rem % 60)
}

/// Parse a UTC time as people type it: `2026-05-01`, `2026-05-01T10:30`, `2026-05-01T10:30:00Z`,
/// `2026-05-01 10:30:00.250Z` (a trailing `Z` is optional; no other offsets), into ms since the
/// epoch.
pub fn parse_utc(s: &str) -> Option<u64> {
    let s = s.trim();
    let s = s.strip_suffix('Z').or_else(|| s.strip_suffix('z')).unwrap_or(s);
    let (date, clock) = match s.find(['T', 't', ' ']) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let mut dp = date.split('-');
    let y: i64 = num(dp.next()?, 4)?;
    let m: u32 = num(dp.next()?, 2)?;
    let d: u32 = num(dp.next()?, 2)?;
    if dp.next().is_some() || !(1..=12).contains(&m) || d == 0 || d > days_in_month(y, m) {
        return None;
    }
    let (mut h, mut mi, mut sec, mut milli) = (0u64, 0u64, 0u64, 0u64);
    if let Some(clock) = clock {
        let (hms, frac) = match clock.split_once('.') {
            Some((a, b)) => (a, Some(b)),
            None => (clock, None),
        };
        let mut cp = hms.split(':');
        h = num(cp.next()?, 2)?;
        mi = num(cp.next()?, 2)?;
        if let Some(x) = cp.next() {
            sec = num(x, 2)?;
        }
        if cp.next().is_some() || h > 23 || mi > 59 || sec > 60 {
            return None;
        }
        if let Some(f) = frac {
            if f.is_empty() || f.len() > 3 || !f.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            milli = f.parse::<u64>().ok()? * 10u64.pow(3 - u32::try_from(f.len()).ok()?);
        }
    }
    let days = u64::try_from(days_from_civil(y, m, d)).ok()?;
    Some(((days * 86_400 + h * 3600 + mi * 60 + sec) * 1000) + milli)
}

fn num<T: std::str::FromStr>(s: &str, width: usize) -> Option<T> {
    if s.len() != width || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 to (year, month, day), proleptic Gregorian (H. Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m as u32, d as u32)
}

/// (year, month, day) to days since 1970-01-01.
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let m = i64::from(m);
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn the_template_writes_what_format_wrote() {
        let by_format = |ms: u64| {
            let (y, mo, d, h, mi, s) = parts(ms);
            format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{:03}Z", ms % 1000)
        };
        // Every field's edges: the epoch, leap days, month and year ends, and far years.
        let mut ms: Vec<u64> = vec![0, 1, 999, 1000, 59_999, 86_399_999, 951_782_400_123, 253_402_300_799_999];
        ms.extend((0..2000u64).map(|i| i * 7_919_999_983 + i % 1000));
        ms.push(253_402_300_800_000); // year 10000: past the template
        for m in ms {
            assert_eq!(format_utc(m), by_format(m), "{m}");
        }
    }

    #[test]
    fn formats_and_parses_round_trip() {
        assert_eq!(format_utc(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(format_utc(951_782_400_123), "2000-02-29T00:00:00.123Z");
        assert_eq!(file_stamp(1_767_323_045_000), "20260102T030405Z");
        for ms in [0, 951_782_400_123, 1_767_323_045_678, 4_102_444_799_999] {
            assert_eq!(parse_utc(&format_utc(ms)), Some(ms));
        }
        assert_eq!(parse_utc("2026-01-02"), Some(1_767_312_000_000));
        assert_eq!(parse_utc("2026-01-02T03:04"), Some(1_767_323_040_000));
        assert_eq!(parse_utc("2026-01-02 03:04:05.6"), Some(1_767_323_045_600));
        for bad in ["2026-13-01", "2026-02-30", "26-01-01", "2026-01-01T25:00", "2026-01-01+01:00", "yesterday"] {
            assert_eq!(parse_utc(bad), None, "{bad}");
        }
    }
}
