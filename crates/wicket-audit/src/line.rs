//! Line formats v1 and v2: the canonical encoding of one audit line, and its strict decoder.
//!
//! v2 is v1 with a `pid` member after `session`, and a `seq` that counts the lines of the
//! project's whole chain (across files) instead of one file's. The writer writes v2; the
//! decoder reads both, so logs written before the chain spanned files still verify.
//!
//! The hard question: can any reader re-hash a line and get the writer's hash? Only if a line
//! has exactly one byte form. So the encoding is fixed (field order, no spaces, minimal string
//! escapes, `null` for absent values) and the decoder accepts that form and nothing else: a
//! line that is valid JSON but not canonical is reported, never silently re-encoded.
//!
//! The hash of a line is SHA-256 over the line's bytes without its `hash` member: everything
//! up to and including the `prev` value, then `}`.

use std::borrow::Cow;
use std::fmt;

use serde::Serialize;

/// The format version this crate writes (it reads 1 and 2).
pub const VERSION: u32 = 2;

/// `prev` of the first line of a file: 64 zeros.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// How much attention an event deserves, lowest first.
///
/// The mapping from decision kinds is [`Risk::of_kind`]; `docs/audit.md` gives the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Risk {
    /// Nothing outside a read or the OS sandbox happened.
    Low,
    /// A change that a rule, a session answer, the mode or a person allowed, or a question.
    Medium,
    /// A refused call, or an error.
    High,
    /// An attempt on a secret, a protected path or the team policy.
    Critical,
}

impl Risk {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Risk::Low => "low",
            Risk::Medium => "medium",
            Risk::High => "high",
            Risk::Critical => "critical",
        }
    }

    /// Parse a wire name.
    pub fn parse(s: &str) -> Option<Risk> {
        Some(match s {
            "low" => Risk::Low,
            "medium" => Risk::Medium,
            "high" => Risk::High,
            "critical" => Risk::Critical,
            _ => return None,
        })
    }

    /// The risk of a decision kind (`<decision>_<check>`, `executed`, `error`).
    ///
    /// - critical: `deny_sensitive`, `deny_protected`, `deny_policy`: someone tried a secret,
    ///   `.git`/`.wicket`, or what the team forbids; `missing_file`, `tail_mismatch`,
    ///   `missing_head`: a writer found the chain's newest file or head record deleted, cut
    ///   or rewritten;
    /// - high: every other `deny_*`, and `error`;
    /// - low: `allow_read_only`, `allow_safe_list`, `allow_sandbox`: a read, or a command
    ///   confined by the OS sandbox;
    /// - medium: everything else: other allows (a rule, a session answer, the person, the
    ///   mode), every `ask_*`, `executed`.
    pub fn of_kind(kind: &str) -> Risk {
        match kind {
            "deny_sensitive" | "deny_protected" | "deny_policy" | "missing_file" | "tail_mismatch" | "missing_head" => {
                Risk::Critical
            }
            "allow_read_only" | "allow_safe_list" | "allow_sandbox" => Risk::Low,
            "error" => Risk::High,
            k if k.starts_with("deny_") => Risk::High,
            _ => Risk::Medium,
        }
    }
}

impl fmt::Display for Risk {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The fields of a line before it is chained: what [`encode`] needs besides `seq` and `prev`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fields<'a> {
    pub id_prefix: &'a str,
    pub time: &'a str,
    pub session: &'a str,
    /// `Some` writes a v2 line with this pid; `None` a v1 line (tests and old logs).
    pub pid: Option<u32>,
    pub tool: &'a str,
    pub target: &'a str,
    pub kind: &'a str,
    pub risk: Risk,
    pub reason: &'a str,
    pub rule: Option<&'a str>,
    pub duration_ms: Option<u64>,
    pub exit_code: Option<i64>,
}

/// Encode one line into `buf` (cleared first), newline included; returns its hash in hex.
pub(crate) fn encode(buf: &mut Vec<u8>, f: &Fields<'_>, seq: u64, prev: &[u8; 64]) -> [u8; 64] {
    buf.clear();
    buf.extend_from_slice(if f.pid.is_some() { b"{\"v\":2,\"id\":\"" } else { b"{\"v\":1,\"id\":\"" });
    // The id is `<log id>-<seq>`: both parts are plain ASCII, no escaping needed.
    push_escaped(buf, f.id_prefix);
    buf.push(b'-');
    push_u64(buf, seq);
    buf.extend_from_slice(b"\",\"time\":");
    push_str(buf, f.time);
    buf.extend_from_slice(b",\"session\":");
    push_str(buf, f.session);
    if let Some(pid) = f.pid {
        buf.extend_from_slice(b",\"pid\":");
        push_u64(buf, u64::from(pid));
    }
    buf.extend_from_slice(b",\"tool\":");
    push_str(buf, f.tool);
    buf.extend_from_slice(b",\"target\":");
    push_str(buf, f.target);
    buf.extend_from_slice(b",\"kind\":");
    push_str(buf, f.kind);
    buf.extend_from_slice(b",\"risk\":\"");
    buf.extend_from_slice(f.risk.as_str().as_bytes());
    buf.extend_from_slice(b"\",\"reason\":");
    push_str(buf, f.reason);
    buf.extend_from_slice(b",\"rule\":");
    match f.rule {
        Some(r) => push_str(buf, r),
        None => buf.extend_from_slice(b"null"),
    }
    buf.extend_from_slice(b",\"duration_ms\":");
    match f.duration_ms {
        Some(d) => push_u64(buf, d),
        None => buf.extend_from_slice(b"null"),
    }
    buf.extend_from_slice(b",\"exit_code\":");
    match f.exit_code {
        Some(c) => push_i64(buf, c),
        None => buf.extend_from_slice(b"null"),
    }
    buf.extend_from_slice(b",\"seq\":");
    push_u64(buf, seq);
    buf.extend_from_slice(b",\"prev\":\"");
    buf.extend_from_slice(prev);
    buf.push(b'"');
    let hash = hash_body(buf);
    buf.extend_from_slice(b",\"hash\":\"");
    buf.extend_from_slice(&hash);
    buf.extend_from_slice(b"\"}\n");
    hash
}

/// SHA-256 of `body` (a line up to its `prev` value) followed by `}`, in lowercase hex.
pub(crate) fn hash_body(body: &[u8]) -> [u8; 64] {
    hex32(&crate::digest::sha256(&[body, b"}"]))
}

/// Lowercase hex of 32 bytes.
pub(crate) fn hex32(bytes: &[u8; 32]) -> [u8; 64] {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut out = [0u8; 64];
    for (i, b) in bytes.iter().enumerate() {
        out[2 * i] = HEX[usize::from(b >> 4)];
        out[2 * i + 1] = HEX[usize::from(b & 0xf)];
    }
    out
}

/// A JSON string in canonical form, quotes included.
pub(crate) fn push_str(buf: &mut Vec<u8>, s: &str) {
    buf.push(b'"');
    push_escaped(buf, s);
    buf.push(b'"');
}

/// The canonical escapes: `\"`, `\\`, `\b \f \n \r \t`, other bytes below 0x20 as `\u00xx`
/// (lowercase hex); everything else, non-ASCII included, as its UTF-8 bytes. This is what
/// `serde_json::to_string` and Python's `json.dumps(…, ensure_ascii=False)` produce.
fn push_escaped(buf: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if b >= 0x20 && b != b'"' && b != b'\\' {
            continue;
        }
        buf.extend_from_slice(&bytes[start..i]);
        match b {
            b'"' => buf.extend_from_slice(b"\\\""),
            b'\\' => buf.extend_from_slice(b"\\\\"),
            0x08 => buf.extend_from_slice(b"\\b"),
            0x0c => buf.extend_from_slice(b"\\f"),
            b'\n' => buf.extend_from_slice(b"\\n"),
            b'\r' => buf.extend_from_slice(b"\\r"),
            b'\t' => buf.extend_from_slice(b"\\t"),
            _ => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                buf.extend_from_slice(b"\\u00");
                buf.push(HEX[usize::from(b >> 4)]);
                buf.push(HEX[usize::from(b & 0xf)]);
            }
        }
        start = i + 1;
    }
    buf.extend_from_slice(&bytes[start..]);
}

fn push_u64(buf: &mut Vec<u8>, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    buf.extend_from_slice(&digits[i..]);
}

fn push_i64(buf: &mut Vec<u8>, n: i64) {
    if n < 0 {
        buf.push(b'-');
    }
    push_u64(buf, n.unsigned_abs());
}

/// Why a line is not a canonical v1 or v2 line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a canonical v1 or v2 line at byte {at}: {what}")]
pub struct DecodeError {
    /// Byte offset in the line.
    pub at: usize,
    /// What was expected there.
    pub what: &'static str,
}

/// A JSON string's contents as they appear in the line (escapes still in place, already
/// checked to be canonical).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawStr<'a>(&'a str);

impl<'a> RawStr<'a> {
    /// The escaped text as written.
    pub fn as_escaped(&self) -> &'a str {
        self.0
    }

    /// The string's value.
    pub fn value(&self) -> Cow<'a, str> {
        if !self.0.contains('\\') {
            return Cow::Borrowed(self.0);
        }
        let mut out = String::with_capacity(self.0.len());
        let mut chars = self.0.chars();
        while let Some(c) = chars.next() {
            if c != '\\' {
                out.push(c);
                continue;
            }
            match chars.next() {
                Some('b') => out.push('\u{8}'),
                Some('f') => out.push('\u{c}'),
                Some('n') => out.push('\n'),
                Some('r') => out.push('\r'),
                Some('t') => out.push('\t'),
                Some('u') => {
                    let hex: String = chars.by_ref().take(4).collect();
                    if let Some(c) = u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                        out.push(c);
                    }
                }
                Some(other) => out.push(other),
                None => {}
            }
        }
        Cow::Owned(out)
    }
}

/// One decoded line, borrowing from its bytes.
#[derive(Debug, Clone, Copy)]
pub struct LineRef<'a> {
    /// The format version: 1 or 2.
    pub v: u32,
    /// `<log id>-<seq>`.
    pub id: RawStr<'a>,
    /// UTC time, `YYYY-MM-DDTHH:MM:SS.mmmZ`.
    pub time: RawStr<'a>,
    /// The session that wrote the line.
    pub session: RawStr<'a>,
    /// The process that wrote the line (v2).
    pub pid: Option<u64>,
    /// The tool.
    pub tool: RawStr<'a>,
    /// The redacted target.
    pub target: RawStr<'a>,
    /// The decision kind.
    pub kind: RawStr<'a>,
    /// The risk.
    pub risk: Risk,
    /// The redacted reason.
    pub reason: RawStr<'a>,
    /// The rule, when one decided.
    pub rule: Option<RawStr<'a>>,
    /// For executions: how long the command ran.
    pub duration_ms: Option<u64>,
    /// For executions: the exit code.
    pub exit_code: Option<i64>,
    /// v1: the line's place in its file; v2: in the project's chain. From 1.
    pub seq: u64,
    /// The previous line's hash ([`GENESIS`] for the first).
    pub prev: &'a str,
    /// This line's hash.
    pub hash: &'a str,
    /// Where the `,"hash":` member starts: the hashed body is `line[..body_end]` + `}`.
    pub body_end: usize,
}

impl LineRef<'_> {
    /// The hash the line's body actually has, in hex.
    pub fn computed_hash(&self, line: &[u8]) -> [u8; 64] {
        hash_body(&line[..self.body_end])
    }

    /// An owned copy of the line.
    pub fn to_entry(&self) -> Entry {
        Entry {
            v: self.v,
            id: self.id.value().into_owned(),
            time: self.time.value().into_owned(),
            session: self.session.value().into_owned(),
            pid: self.pid,
            tool: self.tool.value().into_owned(),
            target: self.target.value().into_owned(),
            kind: self.kind.value().into_owned(),
            risk: self.risk,
            reason: self.reason.value().into_owned(),
            rule: self.rule.map(|r| r.value().into_owned()),
            duration_ms: self.duration_ms,
            exit_code: self.exit_code,
            seq: self.seq,
            prev: self.prev.to_string(),
            hash: self.hash.to_string(),
        }
    }
}

/// One audit line, owned; serialises back to its canonical form with `serde_json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Entry {
    /// Format version (1 or 2).
    pub v: u32,
    /// `<log id>-<seq>`.
    pub id: String,
    /// UTC time, `YYYY-MM-DDTHH:MM:SS.mmmZ`.
    pub time: String,
    /// The session that wrote the line.
    pub session: String,
    /// The process that wrote the line (v2 only; absent from v1 lines).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pid: Option<u64>,
    /// The tool.
    pub tool: String,
    /// The redacted target.
    pub target: String,
    /// The decision kind.
    pub kind: String,
    /// The risk.
    pub risk: Risk,
    /// The redacted reason.
    pub reason: String,
    /// The rule, when one decided.
    pub rule: Option<String>,
    /// For executions: how long the command ran.
    pub duration_ms: Option<u64>,
    /// For executions: the exit code.
    pub exit_code: Option<i64>,
    /// v1: the line's place in its file; v2: in the project's chain. From 1.
    pub seq: u64,
    /// The previous line's hash.
    pub prev: String,
    /// This line's hash.
    pub hash: String,
}

/// Decode a line (without its newline) in canonical v1 or v2 form.
pub fn decode(line: &[u8]) -> Result<LineRef<'_>, DecodeError> {
    let text = std::str::from_utf8(line).map_err(|e| DecodeError { at: e.valid_up_to(), what: "valid UTF-8" })?;
    let mut c = Cursor { s: text, i: 0 };
    let v = if c.lit("{\"v\":2,\"id\":", "").is_ok() {
        2
    } else {
        c.lit("{\"v\":1,\"id\":", "{\"v\":1,\"id\": or {\"v\":2,\"id\": (the version first)")?;
        1
    };
    let id = c.string()?;
    c.lit(",\"time\":", "the \"time\" member")?;
    let time = c.string()?;
    c.lit(",\"session\":", "the \"session\" member")?;
    let session = c.string()?;
    let pid = if v == 2 {
        c.lit(",\"pid\":", "the \"pid\" member (v2)")?;
        Some(c.uint()?)
    } else {
        None
    };
    c.lit(",\"tool\":", "the \"tool\" member")?;
    let tool = c.string()?;
    c.lit(",\"target\":", "the \"target\" member")?;
    let target = c.string()?;
    c.lit(",\"kind\":", "the \"kind\" member")?;
    let kind = c.string()?;
    c.lit(",\"risk\":", "the \"risk\" member")?;
    let at = c.i;
    let risk = Risk::parse(c.string()?.0).ok_or(DecodeError { at, what: "a risk: low, medium, high or critical" })?;
    c.lit(",\"reason\":", "the \"reason\" member")?;
    let reason = c.string()?;
    c.lit(",\"rule\":", "the \"rule\" member")?;
    let rule = if c.null() { None } else { Some(c.string()?) };
    c.lit(",\"duration_ms\":", "the \"duration_ms\" member")?;
    let duration_ms = if c.null() { None } else { Some(c.uint()?) };
    c.lit(",\"exit_code\":", "the \"exit_code\" member")?;
    let exit_code = if c.null() { None } else { Some(c.int()?) };
    c.lit(",\"seq\":", "the \"seq\" member")?;
    let seq = c.uint()?;
    c.lit(",\"prev\":", "the \"prev\" member")?;
    let prev = c.hex64()?;
    let body_end = c.i;
    c.lit(",\"hash\":", "the \"hash\" member")?;
    let hash = c.hex64()?;
    c.lit("}", "the end of the line after \"hash\"")?;
    if c.i != text.len() {
        return Err(DecodeError { at: c.i, what: "the end of the line after \"hash\"" });
    }
    Ok(LineRef {
        v,
        id,
        time,
        session,
        pid,
        tool,
        target,
        kind,
        risk,
        reason,
        rule,
        duration_ms,
        exit_code,
        seq,
        prev,
        hash,
        body_end,
    })
}

struct Cursor<'a> {
    s: &'a str,
    i: usize,
}

impl<'a> Cursor<'a> {
    fn err(&self, what: &'static str) -> DecodeError {
        DecodeError { at: self.i, what }
    }

    fn lit(&mut self, lit: &str, what: &'static str) -> Result<(), DecodeError> {
        if self.s.as_bytes()[self.i..].starts_with(lit.as_bytes()) {
            self.i += lit.len();
            Ok(())
        } else {
            Err(self.err(what))
        }
    }

    fn null(&mut self) -> bool {
        if self.s.as_bytes()[self.i..].starts_with(b"null") {
            self.i += 4;
            true
        } else {
            false
        }
    }

    /// A string in canonical form: only the escapes [`push_escaped`] writes.
    fn string(&mut self) -> Result<RawStr<'a>, DecodeError> {
        let b = self.s.as_bytes();
        if b.get(self.i) != Some(&b'"') {
            return Err(self.err("a string"));
        }
        let start = self.i + 1;
        let mut i = start;
        loop {
            let Some(&ch) = b.get(i) else {
                self.i = i;
                return Err(self.err("the end of a string"));
            };
            match ch {
                b'"' => break,
                0x00..=0x1f => {
                    self.i = i;
                    return Err(self.err("no raw control character in a string (canonical form escapes it)"));
                }
                b'\\' => {
                    let ok = match b.get(i + 1) {
                        Some(b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't') => {
                            i += 2;
                            true
                        }
                        Some(b'u') => {
                            let hex = b.get(i + 2..i + 6).unwrap_or_default();
                            let canonical = hex.len() == 4
                                && hex[0] == b'0'
                                && hex[1] == b'0'
                                && matches!(hex[2], b'0' | b'1')
                                && matches!(hex[3], b'0'..=b'9' | b'a'..=b'f')
                                && !matches!((hex[2], hex[3]), (b'0', b'8' | b'9' | b'a' | b'c' | b'd'));
                            i += 6;
                            canonical
                        }
                        _ => false,
                    };
                    if !ok {
                        self.i = i;
                        return Err(
                            self.err("a canonical escape (\\\" \\\\ \\b \\f \\n \\r \\t or \\u00xx below 0x20)")
                        );
                    }
                }
                _ => i += 1,
            }
        }
        self.i = i + 1;
        Ok(RawStr(&self.s[start..i]))
    }

    fn uint(&mut self) -> Result<u64, DecodeError> {
        let b = self.s.as_bytes();
        let start = self.i;
        let mut i = start;
        let mut n: u64 = 0;
        while let Some(&d) = b.get(i).filter(|d| d.is_ascii_digit()) {
            n = n
                .checked_mul(10)
                .and_then(|n| n.checked_add(u64::from(d - b'0')))
                .ok_or(DecodeError { at: start, what: "a number that fits 64 bits" })?;
            i += 1;
        }
        if i == start || (b[start] == b'0' && i > start + 1) {
            return Err(self.err("a number without leading zeros"));
        }
        self.i = i;
        Ok(n)
    }

    fn int(&mut self) -> Result<i64, DecodeError> {
        let negative = self.s.as_bytes().get(self.i) == Some(&b'-');
        if negative {
            self.i += 1;
        }
        let at = self.i;
        let n = self.uint()?;
        let out = if negative {
            if n == 0 {
                return Err(DecodeError { at, what: "no -0" });
            }
            0i64.checked_sub_unsigned(n)
        } else {
            i64::try_from(n).ok()
        };
        out.ok_or(DecodeError { at, what: "an exit code that fits 64 bits" })
    }

    fn hex64(&mut self) -> Result<&'a str, DecodeError> {
        let b = self.s.as_bytes();
        let ok = b.get(self.i) == Some(&b'"')
            && b.get(self.i + 65) == Some(&b'"')
            && b[self.i + 1..self.i + 65].iter().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f'));
        if !ok {
            return Err(self.err("64 lowercase hex digits in quotes"));
        }
        let out = &self.s[self.i + 1..self.i + 65];
        self.i += 66;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn fields<'a>(target: &'a str, rule: Option<&'a str>) -> Fields<'a> {
        Fields {
            id_prefix: "0123456789abcdef",
            time: "2026-01-02T03:04:05.678Z",
            session: "s1",
            pid: None,
            tool: "bash",
            target,
            kind: "allow_sandbox",
            risk: Risk::Low,
            reason: "runs in the OS sandbox",
            rule,
            duration_ms: None,
            exit_code: Some(-9),
        }
    }

    #[test]
    fn encoding_is_what_serde_json_writes_for_the_same_entry() {
        let mut buf = Vec::new();
        let target = "echo \"hi\" \\ \u{1}\u{8}\t\n\r\u{c}\u{1f}\u{7f} é 世界 \u{2028}";
        let hash = encode(&mut buf, &fields(target, Some("bash(echo *)")), 7, GENESIS.as_bytes().try_into().unwrap());
        let line = &buf[..buf.len() - 1];
        let decoded = decode(line).unwrap();
        let entry = decoded.to_entry();
        assert_eq!(entry.target, target);
        assert_eq!(entry.hash.as_bytes(), &hash);
        assert_eq!(entry.id, "0123456789abcdef-7");
        assert_eq!(serde_json::to_string(&entry).unwrap().as_bytes(), line);
        assert_eq!(decoded.computed_hash(line), hash);
    }

    #[test]
    fn v2_lines_carry_the_pid_and_round_trip_through_serde_json() {
        let mut buf = Vec::new();
        let mut f = fields("a/b", None);
        f.pid = Some(4242);
        let hash = encode(&mut buf, &f, 9, GENESIS.as_bytes().try_into().unwrap());
        let line = &buf[..buf.len() - 1];
        assert!(
            line.starts_with(b"{\"v\":2,") && std::str::from_utf8(line).unwrap().contains(",\"pid\":4242,\"tool\":")
        );
        let decoded = decode(line).unwrap();
        assert_eq!((decoded.v, decoded.pid, decoded.seq), (2, Some(4242), 9));
        assert_eq!(decoded.computed_hash(line), hash);
        assert_eq!(serde_json::to_string(&decoded.to_entry()).unwrap().as_bytes(), line);
        let text = std::str::from_utf8(line).unwrap();
        for (from, to) in [(",\"pid\":4242", ""), ("{\"v\":2,", "{\"v\":3,"), (",\"pid\":4242", ",\"pid\":04242")] {
            let bad = text.replacen(from, to, 1);
            assert!(decode(bad.as_bytes()).is_err(), "{bad}");
        }
        // A v1 line never has a pid.
        assert_eq!(decode(text.replacen("{\"v\":2,", "{\"v\":1,", 1).as_bytes()).map(|_| ()).ok(), None);
    }

    #[test]
    fn non_canonical_forms_are_refused() {
        let mut buf = Vec::new();
        encode(&mut buf, &fields("a/b", None), 1, GENESIS.as_bytes().try_into().unwrap());
        let line = String::from_utf8(buf[..buf.len() - 1].to_vec()).unwrap();
        assert!(decode(line.as_bytes()).is_ok());
        for (from, to) in [
            ("a/b", "a\\/b"),
            ("a/b", "\\u0061/b"),
            ("\"seq\":1", "\"seq\":01"),
            ("\"seq\":1", "\"seq\": 1"),
            ("\"exit_code\":-9", "\"exit_code\":-09"),
            ("{\"v\":1,", "{\"v\":2,"),
            ("\"risk\":\"low\"", "\"risk\":\"LOW\""),
        ] {
            let bad = line.replacen(from, to, 1);
            assert_ne!(bad, line);
            assert!(decode(bad.as_bytes()).is_err(), "{bad}");
        }
        assert!(decode(line.replace("\"v\":1,", "\"v\":1 ,").as_bytes()).is_err());
        assert!(decode(format!("{line} ").as_bytes()).is_err());
    }

    #[test]
    fn risks_follow_the_documented_table() {
        for (kind, risk) in [
            ("deny_sensitive", Risk::Critical),
            ("deny_protected", Risk::Critical),
            ("deny_policy", Risk::Critical),
            ("missing_file", Risk::Critical),
            ("tail_mismatch", Risk::Critical),
            ("missing_head", Risk::Critical),
            ("torn_line", Risk::Medium),
            ("deny_rule", Risk::High),
            ("deny_unattended", Risk::High),
            ("deny_plan", Risk::High),
            ("error", Risk::High),
            ("ask_default", Risk::Medium),
            ("allow_rule", Risk::Medium),
            ("allow_session", Risk::Medium),
            ("executed", Risk::Medium),
            ("allow_read_only", Risk::Low),
            ("allow_safe_list", Risk::Low),
            ("allow_sandbox", Risk::Low),
        ] {
            assert_eq!(Risk::of_kind(kind), risk, "{kind}");
        }
    }
}
