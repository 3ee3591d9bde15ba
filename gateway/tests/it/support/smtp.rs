//! A minimal SMTP server on loopback for the booking alerts' tests: it speaks EHLO/HELO, MAIL,
//! RCPT, DATA, RSET, NOOP and QUIT (no TLS, no AUTH), keeps every message it accepted, and can
//! be told to answer `451` to the next N messages (at MAIL), to hang up on every connection, or
//! to go down (its port closed) and come back on the same port.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;

/// A message the server accepted.
#[derive(Debug, Clone)]
pub struct Mail {
    /// `MAIL FROM:<…>`.
    pub from: String,
    /// Every `RCPT TO:<…>`.
    pub to: Vec<String>,
    /// The message as sent (dot-stuffing undone), lines ending in CRLF.
    pub data: String,
}

impl Mail {
    /// The headers, unfolded, in order: (name, value as sent).
    pub fn headers(&self) -> Vec<(String, String)> {
        let head = self.data.split("\r\n\r\n").next().unwrap_or_default();
        let mut out: Vec<(String, String)> = Vec::new();
        for line in head.split("\r\n") {
            if line.starts_with([' ', '\t']) {
                if let Some(last) = out.last_mut() {
                    last.1.push_str(line);
                }
            } else if let Some((name, value)) = line.split_once(':') {
                out.push((name.to_string(), value.trim_start().to_string()));
            } else {
                out.push((line.to_string(), String::new()));
            }
        }
        out
    }

    /// A header's value, decoded (RFC 2047 encoded words), or `None`.
    pub fn header(&self, name: &str) -> Option<String> {
        self.headers().into_iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| decode_words(&v))
    }

    /// The body (after the headers), decoded when quoted-printable or base64.
    pub fn body(&self) -> String {
        let raw = self.data.split_once("\r\n\r\n").map(|(_, b)| b).unwrap_or_default();
        match self.header("Content-Transfer-Encoding").map(|e| e.to_ascii_lowercase()) {
            Some(e) if e == "base64" => String::from_utf8_lossy(&base64(&raw.replace("\r\n", ""))).into_owned(),
            Some(e) if e == "quoted-printable" => String::from_utf8_lossy(&quoted_printable(raw, false)).into_owned(),
            _ => raw.to_string(),
        }
    }
}

/// How the server misbehaves.
#[derive(Debug, Default)]
struct Mode {
    /// Messages still to refuse with `451` at MAIL.
    refuse: usize,
    /// Close every connection right after accepting it.
    hang_up: bool,
}

/// The server.
pub struct SmtpServer {
    /// Where it listens.
    pub addr: SocketAddr,
    mails: Arc<Mutex<Vec<Mail>>>,
    mode: Arc<Mutex<Mode>>,
    task: Mutex<Option<tokio::task::JoinHandle<()>>>,
}

impl SmtpServer {
    /// Starts a server on a new port of 127.0.0.1.
    pub async fn start() -> SmtpServer {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind the SMTP server");
        let addr = listener.local_addr().expect("its address");
        let server = SmtpServer { addr, mails: Arc::default(), mode: Arc::default(), task: Mutex::new(None) };
        server.serve(listener);
        server
    }

    /// `smtp://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("smtp://{}", self.addr)
    }

    fn serve(&self, listener: TcpListener) {
        let (mails, mode) = (self.mails.clone(), self.mode.clone());
        let task = tokio::spawn(async move {
            loop {
                let Ok((socket, _)) = listener.accept().await else { continue };
                let (mails, mode) = (mails.clone(), mode.clone());
                tokio::spawn(async move {
                    let _ = session(socket, mails, mode).await;
                });
            }
        });
        *self.task.lock().unwrap() = Some(task);
    }

    /// Refuses the next `n` messages with `451 4.3.0` (a temporary failure).
    pub fn refuse_next(&self, n: usize) {
        self.mode.lock().unwrap().refuse = n;
    }

    /// Hangs up on every connection (or stops doing so).
    pub fn hang_up(&self, on: bool) {
        self.mode.lock().unwrap().hang_up = on;
    }

    /// Goes down: its port is closed (connections refused).
    pub fn go_down(&self) {
        if let Some(t) = self.task.lock().unwrap().take() {
            t.abort();
        }
    }

    /// Comes back on the same port.
    pub async fn come_up(&self) {
        let started = Instant::now();
        let listener = loop {
            match TcpListener::bind(self.addr).await {
                Ok(l) => break l,
                Err(e) => {
                    assert!(started.elapsed() < Duration::from_secs(10), "cannot bind {} again: {e}", self.addr);
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
        };
        self.serve(listener);
    }

    /// The messages accepted so far.
    pub fn mails(&self) -> Vec<Mail> {
        self.mails.lock().unwrap().clone()
    }

    /// Waits until at least `n` messages were accepted (at most `within`): them all.
    pub async fn wait_for(&self, n: usize, within: Duration) -> Vec<Mail> {
        let started = Instant::now();
        loop {
            let mails = self.mails();
            if mails.len() >= n {
                return mails;
            }
            assert!(
                started.elapsed() < within,
                "{} of {n} mails arrived in {within:?}: {:?}",
                mails.len(),
                mails.iter().map(|m| m.header("Subject")).collect::<Vec<_>>()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

impl Drop for SmtpServer {
    fn drop(&mut self) {
        self.go_down();
    }
}

/// One SMTP session.
async fn session(
    socket: tokio::net::TcpStream,
    mails: Arc<Mutex<Vec<Mail>>>,
    mode: Arc<Mutex<Mode>>,
) -> std::io::Result<()> {
    if mode.lock().unwrap().hang_up {
        return Ok(());
    }
    let (read, mut write) = socket.into_split();
    let mut lines = BufReader::new(read);
    write.write_all(b"220 test.invalid ESMTP test server\r\n").await?;
    let (mut from, mut to) = (None::<String>, Vec::<String>::new());
    let mut line = String::new();
    loop {
        line.clear();
        if lines.read_line(&mut line).await? == 0 {
            return Ok(());
        }
        let command = line.trim_end().to_string();
        let upper = command.to_ascii_uppercase();
        let reply: &[u8] = if upper.starts_with("EHLO") {
            b"250-test.invalid\r\n250-8BITMIME\r\n250 SMTPUTF8\r\n"
        } else if upper.starts_with("HELO") {
            b"250 test.invalid\r\n"
        } else if upper.starts_with("MAIL FROM:") {
            let refused = {
                let mut m = mode.lock().unwrap();
                if m.refuse > 0 {
                    m.refuse -= 1;
                    true
                } else {
                    false
                }
            };
            if refused {
                b"451 4.3.0 try again later\r\n"
            } else {
                from = Some(command[10..].trim().to_string());
                to.clear();
                b"250 2.1.0 OK\r\n"
            }
        } else if upper.starts_with("RCPT TO:") {
            if from.is_none() {
                b"503 5.5.1 MAIL first\r\n"
            } else {
                to.push(command[8..].trim().to_string());
                b"250 2.1.5 OK\r\n"
            }
        } else if upper == "DATA" {
            if from.is_none() || to.is_empty() {
                b"503 5.5.1 RCPT first\r\n"
            } else {
                write.write_all(b"354 end with <CRLF>.<CRLF>\r\n").await?;
                let mut data = String::new();
                loop {
                    line.clear();
                    if lines.read_line(&mut line).await? == 0 {
                        return Ok(());
                    }
                    if line == ".\r\n" || line == ".\n" {
                        break;
                    }
                    let unstuffed = line.strip_prefix('.').unwrap_or(&line);
                    data.push_str(unstuffed);
                }
                mails.lock().unwrap().push(Mail {
                    from: from.take().unwrap_or_default(),
                    to: std::mem::take(&mut to),
                    data,
                });
                b"250 2.0.0 queued\r\n"
            }
        } else if upper == "RSET" {
            from = None;
            to.clear();
            b"250 2.0.0 OK\r\n"
        } else if upper == "NOOP" {
            b"250 2.0.0 OK\r\n"
        } else if upper == "QUIT" {
            write.write_all(b"221 2.0.0 bye\r\n").await?;
            return Ok(());
        } else {
            b"502 5.5.2 not implemented\r\n"
        };
        write.write_all(reply).await?;
    }
}

/// Decodes the RFC 2047 encoded words of a header value (`=?utf-8?b?…?=`, `=?utf-8?q?…?=`);
/// the spaces between two encoded words are dropped.
pub fn decode_words(value: &str) -> String {
    let mut out = String::new();
    let mut rest = value;
    let mut last_was_word = false;
    while let Some(start) = rest.find("=?") {
        let before = &rest[..start];
        let after = &rest[start + 2..];
        let parts: Vec<&str> = after.splitn(3, '?').collect();
        let Some(end) = parts.get(2).and_then(|p| p.find("?=")) else { break };
        if !(last_was_word && before.trim().is_empty()) {
            out.push_str(before);
        }
        let text = &parts[2][..end];
        let bytes = match parts[1].to_ascii_lowercase().as_str() {
            "b" => base64(text),
            _ => quoted_printable(text, true),
        };
        out.push_str(&String::from_utf8_lossy(&bytes));
        rest = &parts[2][end + 2..];
        last_was_word = true;
    }
    out.push_str(rest);
    out
}

/// Base64 (standard alphabet, padding optional).
fn base64(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let (mut out, mut acc, mut bits) = (Vec::new(), 0u32, 0u32);
    for c in text.bytes().filter_map(value) {
        acc = (acc << 6) | u32::from(c);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}

/// Quoted-printable (`header`: `_` is a space, as in an encoded word).
fn quoted_printable(text: &str, header: bool) -> Vec<u8> {
    let text = text.replace("=\r\n", "");
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let hex = b.get(i + 1..i + 3).and_then(|h| u8::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok());
        match (b[i], hex) {
            (b'=', Some(v)) => {
                out.push(v);
                i += 3;
            }
            (b'_', _) if header => {
                out.push(b' ');
                i += 1;
            }
            (c, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}
