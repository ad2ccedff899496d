//! Output captured per stream, head and tail kept up to a cap with one line saying how much
//! was cut between them (what `serve` and the MCP gateway give an agent); and, for `wicket
//! run`, passed through whole as it comes, uncapped, as the command would write it.

use std::io::{Read, Write};

/// What a capped stream kept.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Captured {
    /// The first bytes (up to half the cap).
    pub head: Vec<u8>,
    /// The last bytes (up to half the cap), when the stream was longer than the cap.
    pub tail: Vec<u8>,
    /// Every byte the stream produced.
    pub total: u64,
}

impl Captured {
    /// Bytes left out between head and tail.
    pub fn cut(&self) -> u64 {
        self.total - (self.head.len() + self.tail.len()) as u64
    }

    /// Head, a cut marker when something was left out, and tail, as one text.
    pub fn text(&self) -> String {
        let mut s = String::from_utf8_lossy(&self.head).into_owned();
        if self.cut() > 0 {
            s.push_str(&format!("\n[… {} bytes cut by wicket's output cap …]\n", self.cut()));
        }
        s.push_str(&String::from_utf8_lossy(&self.tail));
        s
    }
}

/// Read a stream to its end, keeping at most `cap` bytes (head and tail), and copy every byte
/// to `pass` as it arrives, untouched (a file the person redirects `wicket run` into gets
/// exactly what the command wrote). When `pass` cannot be written any more (its reader went
/// away, as in `wicket run -- yes | head`), reading stops and `from` is closed, so the command
/// meets the closed pipe (SIGPIPE) as it would without wicket, instead of being drained forever.
pub fn capture(mut from: impl Read, cap: usize, mut pass: Option<&mut dyn Write>) -> Captured {
    let half = cap / 2;
    let mut c = Captured::default();
    let mut ring: std::collections::VecDeque<u8> = std::collections::VecDeque::new();
    let mut buf = [0u8; 16 * 1024];
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        c.total += n as u64;
        if let Some(p) = pass.as_deref_mut() {
            if p.write_all(&buf[..n]).and_then(|()| p.flush()).is_err() {
                return c;
            }
        }
        let mut chunk = &buf[..n];
        if c.head.len() < half {
            let take = chunk.len().min(half - c.head.len());
            c.head.extend_from_slice(&chunk[..take]);
            chunk = &chunk[take..];
        }
        ring.extend(chunk);
        while ring.len() > half {
            ring.pop_front();
        }
    }
    c.tail = ring.into_iter().collect();
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_head_and_tail() {
        let data: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
        let mut out = Vec::new();
        let c = capture(&data[..], 1000, Some(&mut out));
        assert_eq!((c.head.len(), c.tail.len(), c.total, c.cut()), (500, 500, 100_000, 99_000));
        assert_eq!(&c.head[..], &data[..500]);
        assert_eq!(&c.tail[..], &data[data.len() - 500..]);
        // Passed through whole and untouched; the cut is only in what is kept.
        assert_eq!(out, data);
        assert!(c.text().contains("99000 bytes cut"));
        let small = capture(&b"hello"[..], 1000, None);
        assert_eq!((small.text(), small.cut()), ("hello".to_string(), 0));
    }

    /// A reader that never ends, and a writer that fails after its first write.
    struct Endless;
    impl Read for Endless {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            buf.fill(b'y');
            Ok(buf.len())
        }
    }
    struct Closed(usize);
    impl Write for Closed {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += 1;
            if self.0 > 1 {
                return Err(std::io::ErrorKind::BrokenPipe.into());
            }
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_reader_gone_away_ends_the_capture() {
        let c = capture(Endless, 1 << 20, Some(&mut Closed(0)));
        assert!(c.total > 0 && c.total <= 2 * 16 * 1024, "{}", c.total);
    }
}
