//! The messages of snooplab's own HTTP client and server (docs/live.md, "Web pages"): a request
//! `GET /<n>` asks for a reply of `n` bytes in all, its header included, and the request itself
//! is padded to the workload's request size, so that each object puts on the wire the bytes the
//! simulator's modelled application counts (`proto/src/app/`: "a request of N bytes, a response
//! of M bytes"). Mah's request and reply lengths were measured from packet traces, headers
//! included (a reading: the TCP payload of each direction).
//!
//! Only what the client sends and the server answers is parsed: a request line `GET /<digits>
//! HTTP/1.0|1.1` (RFC 1945 section 5.1, RFC 2616 section 5.1) and its header fields up to the
//! blank line, and a status line with a `Content-Length` (RFC 2616 section 14.13), every one
//! bounded. The body is a function of its length, so the client checks every byte it reads.

/// The longest request header a server reads: the workload's longest request (64 KiB,
/// `workload/model.rs`'s bound) and room for its request line.
pub const MAX_REQUEST_HEAD: usize = 64 * 1024 + 1024;

/// The longest status line and header a client reads.
pub const MAX_REPLY_HEAD: usize = 1024;

/// The largest reply a server sends: the workload's bound on a reply (10^8 bytes,
/// docs/web-workload.md "Bounds").
pub const MAX_REPLY: u64 = 100_000_000;

/// The digits of a reply's `Content-Length`, zero-padded: the header then has one length
/// whatever the body's, so a reply of `n` bytes in all is a header and `n - header` body bytes.
/// RFC 2616 section 14.13 makes the value `1*DIGIT`: leading zeros are valid.
const LENGTH_DIGITS: usize = 10;

/// The HTTP of a connection, as the request line names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Version {
    Http10,
    Http11,
}

impl Version {
    fn text(self) -> &'static str {
        match self {
            Version::Http10 => "HTTP/1.0",
            Version::Http11 => "HTTP/1.1",
        }
    }
}

/// The request for a reply of `reply_bytes`, padded with an `X-Pad` header field to
/// `request_bytes` where that is longer than the request without it (a shorter one is sent as
/// it is: its line and `Host` field are the least a request can be).
pub fn request(version: Version, host: &str, reply_bytes: u32, request_bytes: u32) -> Vec<u8> {
    let head = format!("GET /{reply_bytes} {}\r\nHost: {host}\r\n", version.text());
    let pad_field = "X-Pad: \r\n".len();
    let mut out = head.into_bytes();
    let want = request_bytes as usize;
    if want >= out.len() + pad_field + 2 {
        out.extend_from_slice(b"X-Pad: ");
        out.resize(want - 4, b'x');
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"\r\n");
    out
}

/// A request as the server read it: its version and the reply it asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    pub version: Version,
    pub reply_bytes: u64,
}

/// Reads a request's head (everything before the blank line, `\r\n` or bare `\n` line ends):
/// `GET /<n> HTTP/1.0` or `HTTP/1.1`, `n` at most [`MAX_REPLY`]; the header fields are read and
/// not used. The message says what is wrong.
pub fn parse_request(head: &[u8]) -> Result<Request, String> {
    let text = std::str::from_utf8(head).map_err(|_| "the request is not text".to_string())?;
    let line = text.lines().next().unwrap_or("");
    let mut parts = line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(format!("bad request line '{}'", clip(line)));
    };
    if method != "GET" {
        return Err(format!("method '{}' is not GET", clip(method)));
    }
    let version = match version.trim_end() {
        "HTTP/1.0" => Version::Http10,
        "HTTP/1.1" => Version::Http11,
        v => return Err(format!("version '{}' is not HTTP/1.0 or 1.1", clip(v))),
    };
    let digits = target.strip_prefix('/').unwrap_or("");
    let reply_bytes = digits
        .parse::<u64>()
        .ok()
        .filter(|n| *n <= MAX_REPLY && digits.bytes().all(|b| b.is_ascii_digit()))
        .ok_or_else(|| {
            format!(
                "target '{}' is not /<bytes> of 0 to {MAX_REPLY}",
                clip(target)
            )
        })?;
    Ok(Request {
        version,
        reply_bytes,
    })
}

/// The reply's status line and header for a reply of `reply_bytes` in all, and its body's length:
/// `reply_bytes` less the header, or 0 where the header alone is longer.
pub fn reply_head(version: Version, reply_bytes: u64) -> (Vec<u8>, u64) {
    let empty = head_with(version, 0);
    let body = reply_bytes.saturating_sub(empty.len() as u64);
    (head_with(version, body), body)
}

fn head_with(version: Version, body: u64) -> Vec<u8> {
    format!(
        "{} 200 OK\r\nContent-Length: {body:0width$}\r\n\r\n",
        version.text(),
        width = LENGTH_DIGITS
    )
    .into_bytes()
}

/// The body's length a reply head announces, if its status is 200 and it has a
/// `Content-Length`.
pub fn parse_reply_head(head: &[u8]) -> Result<u64, String> {
    let text = std::str::from_utf8(head).map_err(|_| "the reply is not text".to_string())?;
    let mut lines = text.lines();
    let status = lines.next().unwrap_or("");
    let code = status.split(' ').nth(1);
    if !(status.starts_with("HTTP/1.") && code == Some("200")) {
        return Err(format!("status '{}' is not 200", clip(status)));
    }
    lines
        .filter_map(|l| l.split_once(':'))
        .find(|(k, _)| k.trim().eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.trim().parse::<u64>().ok())
        .filter(|n| *n <= MAX_REPLY)
        .ok_or_else(|| "the reply has no Content-Length of 0 to 10^8".to_string())
}

/// Where a message's head ends (just after its blank line), if it has ended in `buf`.
pub fn head_end(buf: &[u8]) -> Option<usize> {
    let crlf = buf.windows(4).position(|w| w == b"\r\n\r\n").map(|i| i + 4);
    let lf = buf.windows(2).position(|w| w == b"\n\n").map(|i| i + 2);
    match (crlf, lf) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// The bytes of a body of `len` bytes, from `offset`: the transfer's bytes of the seed named by
/// the length (`transfer_bytes.rs`), so the client knows what each byte must be.
pub fn body_bytes(len: u64, offset: u64, buf: &mut [u8]) {
    crate::payload::fill(len ^ BODY_SEED, offset, buf);
}

/// Mixed with a body's length to seed its bytes, so that bodies of different lengths differ
/// from their first byte.
const BODY_SEED: u64 = 0x5EB0_0B7E_5EED_0001;

/// At most 80 characters of a piece of a message, for an error line.
fn clip(s: &str) -> String {
    s.chars().take(80).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_is_padded_to_its_size_and_reads_back() {
        for (version, size) in [(Version::Http10, 250), (Version::Http11, 4096)] {
            let r = request(version, "10.0.0.1", 8192, size);
            assert_eq!(r.len(), size as usize);
            let end = head_end(&r).unwrap_or(0);
            assert_eq!(end, r.len());
            let got = parse_request(&r[..end]).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(
                got,
                Request {
                    version,
                    reply_bytes: 8192
                }
            );
        }
        // shorter than the least request: the request as it is
        let r = request(Version::Http10, "10.0.0.1", 1, 10);
        assert_eq!(r, b"GET /1 HTTP/1.0\r\nHost: 10.0.0.1\r\n\r\n");
    }

    #[test]
    fn a_reply_is_its_size_in_all() {
        for n in [47u64, 48, 1000, 8192, 99_999_999] {
            let (head, body) = reply_head(Version::Http11, n);
            assert_eq!(head.len() as u64 + body, n.max(head.len() as u64));
            assert_eq!(parse_reply_head(&head), Ok(body));
        }
        let (head, body) = reply_head(Version::Http10, 3);
        assert_eq!((head.len(), body), (47, 0));
    }

    #[test]
    fn bad_requests_and_replies_are_refused_in_a_line() {
        for bad in [
            &b"POST /1 HTTP/1.0\r\n"[..],
            b"GET /1 HTTP/2\r\n",
            b"GET /abc HTTP/1.0\r\n",
            b"GET /+5 HTTP/1.0\r\n",
            b"GET /100000001 HTTP/1.0\r\n",
            b"GET / HTTP/1.0\r\n",
            b"GET /1 HTTP/1.0 x\r\n",
            b"\xff\xfe",
        ] {
            let e = parse_request(bad).unwrap_err();
            assert!(!e.contains('\n'), "{e}");
        }
        assert!(parse_reply_head(b"HTTP/1.0 404 Not Found\r\n\r\n").is_err());
        assert!(parse_reply_head(b"HTTP/1.0 200 OK\r\n\r\n").is_err());
        assert_eq!(
            parse_reply_head(b"HTTP/1.0 200 OK\r\ncontent-length: 12\r\n\r\n"),
            Ok(12)
        );
    }

    #[test]
    fn bodies_of_other_lengths_differ() {
        let (mut a, mut b) = ([0u8; 16], [0u8; 16]);
        body_bytes(100, 0, &mut a);
        body_bytes(101, 0, &mut b);
        assert_ne!(a, b);
        let mut tail = [0u8; 8];
        body_bytes(100, 8, &mut tail);
        assert_eq!(tail, a[8..]);
    }
}
