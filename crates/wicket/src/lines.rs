//! Newline-delimited input read with a cap: the front ends that read one message a line
//! (`check --jsonl`, `serve`, the MCP gateway) never hold more than the cap of any one line,
//! however long the line the peer sends.

use std::io::BufRead;

/// A line as read: its bytes without the newline (and a `\r` before it), or why it was not
/// kept.
pub type Line = Result<Vec<u8>, TooLong>;

/// A line longer than the cap: it was read to its end and thrown away as it came.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooLong {
    /// The cap the line went over, in bytes.
    pub max: usize,
}

impl std::fmt::Display for TooLong {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "a line longer than {} bytes", self.max)
    }
}

/// The next line (without `\n` and a `\r` before it); `Ok(None)` at the end of input. A line
/// longer than `max` bytes is read to its end without being kept (so memory stays near `max`
/// whatever its length) and comes back as `Err(TooLong)`; the next call reads the next line.
pub fn read_line(r: &mut impl BufRead, max: usize) -> std::io::Result<Option<Line>> {
    let mut buf = Vec::new();
    let mut too_long = false;
    let mut seen_any = false;
    loop {
        let chunk = match r.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            if !seen_any {
                return Ok(None);
            }
            break;
        }
        seen_any = true;
        let (take, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        // The newline itself (and a `\r` before it) does not count towards the cap.
        if !too_long {
            let body = if done { take - 1 } else { take };
            // Checked before copying, so the buffer never grows past the cap.
            if buf.len() + body > max.saturating_add(1) {
                too_long = true;
                buf = Vec::new();
            } else {
                buf.extend_from_slice(&chunk[..take]);
            }
        }
        r.consume(take);
        if done {
            break;
        }
    }
    if buf.last() == Some(&b'\n') {
        buf.pop();
    }
    if buf.last() == Some(&b'\r') {
        buf.pop();
    }
    if too_long || buf.len() > max {
        return Ok(Some(Err(TooLong { max })));
    }
    Ok(Some(Ok(buf)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(input: &[u8], max: usize, cap: usize) -> Vec<Line> {
        let mut r = std::io::BufReader::with_capacity(cap, input);
        let mut out = Vec::new();
        while let Some(l) = read_line(&mut r, max).ok().flatten() {
            out.push(l);
        }
        out
    }

    #[test]
    fn lines_are_read_whole_and_capped() {
        for cap in [1, 3, 64] {
            let got = all(b"{\"a\":1}\r\n\nlast", 16, cap);
            assert_eq!(got, vec![Ok(b"{\"a\":1}".to_vec()), Ok(Vec::new()), Ok(b"last".to_vec())], "buffer {cap}");
        }
    }

    #[test]
    fn an_over_long_line_is_skipped_and_the_next_one_read() {
        for cap in [1, 4, 64] {
            let got = all(b"12345\n123456\n1234\r\n1234567890\nok", 5, cap);
            assert_eq!(
                got,
                vec![
                    Ok(b"12345".to_vec()),
                    Err(TooLong { max: 5 }),
                    Ok(b"1234".to_vec()),
                    Err(TooLong { max: 5 }),
                    Ok(b"ok".to_vec()),
                ],
                "buffer {cap}"
            );
        }
        assert_eq!(all(b"123456", 5, 2), vec![Err(TooLong { max: 5 })], "a long last line without a newline");
    }
}
