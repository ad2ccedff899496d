//! Request framing: how long is the body of a request the proxy forwards?
//!
//! The hard question: **could the proxy and the server behind it disagree on where this request
//! ends?** If they could, the bytes one of them takes for body the other may take for a second
//! request the proxy never decided (request smuggling). RFC 9112 section 6.3 lists the framings
//! that are ambiguous; the proxy refuses each of them with 400 and forwards nothing, rather than
//! repairing the request, because the proxy forwards the client's headers as they came.
//!
//! Refused: `Transfer-Encoding` together with `Content-Length`; `Transfer-Encoding` whose final
//! coding is not `chunked`, or that applies `chunked` twice, or that arrives in an HTTP/1.0
//! request; a `Content-Length` that is not a plain decimal number; more than one
//! `Content-Length` value, **even when the values are equal** (RFC 9112 lets a recipient accept
//! equal values, but that would mean forwarding a header list a stricter server reads
//! differently, and no real client sends it).

/// Why a request's framing is refused (the text goes into the 400 body).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Ambiguous {
    /// Both `Transfer-Encoding` and `Content-Length`.
    #[error("the request has both Transfer-Encoding and Content-Length (ambiguous framing, RFC 9112 section 6.3)")]
    BothLengths,
    /// More than one `Content-Length` value (in repeated headers or one comma-separated list).
    #[error("the request has more than one Content-Length value (ambiguous framing, RFC 9112 section 6.3)")]
    ManyContentLengths,
    /// A `Content-Length` that is not one or more ASCII digits.
    #[error("the request's Content-Length {0:?} is not a plain decimal number (RFC 9112 section 6.3)")]
    BadContentLength(String),
    /// A `Transfer-Encoding` whose last coding is not `chunked` (or that is empty).
    #[error("the request's Transfer-Encoding {0:?} does not end in chunked (RFC 9112 section 6.3)")]
    NotChunkedLast(String),
    /// `chunked` applied more than once.
    #[error("the request's Transfer-Encoding {0:?} applies chunked more than once (RFC 9112 section 6.1)")]
    ChunkedTwice(String),
    /// `Transfer-Encoding` in an HTTP/1.0 request, which has no such header.
    #[error("an HTTP/1.0 request has a Transfer-Encoding header (faulty framing, RFC 9112 section 6.1)")]
    TransferEncodingInHttp10,
}

/// Check the framing headers of a parsed request head. `http10` is true for an HTTP/1.0 request.
pub(crate) fn check(headers: &[httparse::Header<'_>], http10: bool) -> Result<(), Ambiguous> {
    let mut lengths: Vec<String> = Vec::new();
    let mut codings: Vec<String> = Vec::new();
    let mut te_text: Vec<String> = Vec::new();
    let mut has_te = false;
    for h in headers {
        let value = String::from_utf8_lossy(h.value);
        if h.name.eq_ignore_ascii_case("content-length") {
            lengths.extend(value.split(',').map(|v| v.trim_matches([' ', '\t']).to_string()));
        } else if h.name.eq_ignore_ascii_case("transfer-encoding") {
            has_te = true;
            te_text.push(value.trim().to_string());
            codings.extend(value.split(',').map(coding_name));
        }
    }
    let te_shown = te_text.join(", ");
    if has_te && http10 {
        return Err(Ambiguous::TransferEncodingInHttp10);
    }
    if has_te && !lengths.is_empty() {
        return Err(Ambiguous::BothLengths);
    }
    if let Some(bad) = lengths.iter().find(|v| !is_decimal(v)) {
        return Err(Ambiguous::BadContentLength(bad.clone()));
    }
    if lengths.len() > 1 {
        return Err(Ambiguous::ManyContentLengths);
    }
    if has_te {
        // Empty list elements are allowed by the list syntax (RFC 9110 section 5.6.1) and carry
        // no coding; the last real coding decides.
        codings.retain(|c| !c.is_empty());
        if codings.last().map(String::as_str) != Some("chunked") {
            return Err(Ambiguous::NotChunkedLast(te_shown));
        }
        if codings.iter().filter(|c| *c == "chunked").count() > 1 {
            return Err(Ambiguous::ChunkedTwice(te_shown));
        }
    }
    Ok(())
}

/// The coding name of one `Transfer-Encoding` list element, lowercase, parameters dropped.
fn coding_name(element: &str) -> String {
    element.split(';').next().unwrap_or("").trim_matches([' ', '\t']).to_ascii_lowercase()
}

/// `1*DIGIT` that fits a u64 (a longer number is no length a server can honour either).
fn is_decimal(v: &str) -> bool {
    !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) && v.parse::<u64>().is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(pairs: &[(&str, &str)], http10: bool) -> Result<(), Ambiguous> {
        let headers: Vec<httparse::Header<'_>> =
            pairs.iter().map(|(n, v)| httparse::Header { name: n, value: v.as_bytes() }).collect();
        check(&headers, http10)
    }

    /// Framing headers, whether the request is HTTP/1.0, and the verdict.
    type Case<'a> = (&'a [(&'a str, &'a str)], bool, Result<(), Ambiguous>);

    #[test]
    fn table() {
        use Ambiguous as A;
        let te = |s: &str| s.to_string();
        #[rustfmt::skip]
        let cases: &[Case] = &[
            (&[], false, Ok(())),
            (&[("Content-Length", "5")], false, Ok(())),
            (&[("content-length", "0")], true, Ok(())),
            (&[("Transfer-Encoding", "chunked")], false, Ok(())),
            (&[("Transfer-Encoding", "gzip, Chunked")], false, Ok(())),
            (&[("Transfer-Encoding", "gzip"), ("Transfer-Encoding", "chunked")], false, Ok(())),
            (&[("Transfer-Encoding", "chunked"), ("Content-Length", "5")], false, Err(A::BothLengths)),
            (&[("Content-Length", "5"), ("Content-Length", "6")], false, Err(A::ManyContentLengths)),
            (&[("Content-Length", "5, 6")], false, Err(A::ManyContentLengths)),
            (&[("Content-Length", "5"), ("Content-Length", "5")], false, Err(A::ManyContentLengths)),
            (&[("Content-Length", "5,5")], false, Err(A::ManyContentLengths)),
            (&[("Content-Length", "+5")], false, Err(A::BadContentLength("+5".into()))),
            (&[("Content-Length", "0x5")], false, Err(A::BadContentLength("0x5".into()))),
            (&[("Content-Length", "")], false, Err(A::BadContentLength(String::new()))),
            (&[("Content-Length", "5 5")], false, Err(A::BadContentLength("5 5".into()))),
            (&[("Content-Length", "99999999999999999999999")], false,
                Err(A::BadContentLength("99999999999999999999999".into()))),
            (&[("Transfer-Encoding", "chunked, gzip")], false, Err(A::NotChunkedLast(te("chunked, gzip")))),
            (&[("Transfer-Encoding", "gzip")], false, Err(A::NotChunkedLast(te("gzip")))),
            (&[("Transfer-Encoding", "")], false, Err(A::NotChunkedLast(te("")))),
            (&[("Transfer-Encoding", "xchunked")], false, Err(A::NotChunkedLast(te("xchunked")))),
            (&[("Transfer-Encoding", "chunked, chunked")], false, Err(A::ChunkedTwice(te("chunked, chunked")))),
            (&[("Transfer-Encoding", "chunked")], true, Err(A::TransferEncodingInHttp10)),
        ];
        for (i, (headers, http10, want)) in cases.iter().enumerate() {
            assert_eq!(&run(headers, *http10), want, "case {i}: {headers:?}");
        }
    }
}
