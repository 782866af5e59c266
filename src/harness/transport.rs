//! How the harness reaches the server: over stdio (the server is a child
//! process, JSON-RPC one message per line on its stdin and stdout) or over
//! Streamable HTTP (MCP 2025-11-25, basic/transports: JSON-RPC in POST bodies,
//! answers as JSON or as server-sent events, a session named by the
//! `Mcp-Session-Id` header).

use std::fmt;

use reqwest::Url;

/// The placeholder replaced by a free local port when elicit-check starts an
/// HTTP server itself: in the URL, the command's arguments and `--env` values.
pub const PORT_PLACEHOLDER: &str = "{port}";

/// The transport a session uses.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Transport {
    /// The server's stdin and stdout (the default).
    #[default]
    Stdio,
    /// Streamable HTTP at `url` (`http://127.0.0.1:{port}/mcp`). With a server
    /// command, one server is started per session on a free port; without
    /// one, the server is already running and each session is its own
    /// `Mcp-Session-Id`.
    Http {
        /// The MCP endpoint, possibly holding [`PORT_PLACEHOLDER`].
        url: String,
        /// Headers sent on every request of every session (`--header`).
        headers: Vec<super::request_header::RequestHeader>,
    },
}

/// A `--url` elicit-check cannot use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadUrl {
    /// The URL as given.
    pub url: String,
    /// Why, in a sentence.
    pub why: String,
}

impl fmt::Display for BadUrl {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "--url {:?}: {}", self.url, self.why)
    }
}

impl std::error::Error for BadUrl {}

impl Transport {
    /// Streamable HTTP at `url`: an absolute `http://` URL with a host
    /// (`{port}` stands for a port, only when `started` says elicit-check starts
    /// the server and picks one).
    ///
    /// # Errors
    /// [`BadUrl`] for a URL that does not parse, a scheme other than `http`
    /// (`https` is not supported: no TLS stack is built in; check a local
    /// endpoint, or one behind a local TLS-terminating proxy), or `{port}`
    /// without a server command to start.
    pub fn http(url: &str, started: bool) -> Result<Transport, BadUrl> {
        let bad = |why: &str| BadUrl {
            url: url.to_owned(),
            why: why.to_owned(),
        };
        if url.contains(PORT_PLACEHOLDER) && !started {
            return Err(bad(
                "{port} is replaced by the port of a server elicit-check starts; give the server command after `--`, or the running server's port",
            ));
        }
        let parsed = Url::parse(&with_port(url, 1))
            .map_err(|error| bad(&format!("not an absolute URL ({error})")))?;
        match parsed.scheme() {
            "http" => {}
            "https" => {
                return Err(bad(
                    "https is not supported (no TLS stack is built in): check the server over http on a local port, or behind a local TLS-terminating proxy",
                ));
            }
            other => {
                return Err(bad(&format!(
                    "scheme {other:?}: Streamable HTTP needs http"
                )));
            }
        }
        if parsed.host_str().is_none_or(str::is_empty) {
            return Err(bad("no host"));
        }
        Ok(Transport::Http {
            url: url.to_owned(),
            headers: Vec::new(),
        })
    }

    /// The same transport sending `headers` on every HTTP request (nothing
    /// changes over stdio).
    pub fn with_headers(self, headers: Vec<super::request_header::RequestHeader>) -> Transport {
        match self {
            Transport::Stdio => Transport::Stdio,
            Transport::Http { url, .. } => Transport::Http { url, headers },
        }
    }

    /// The endpoint as given (`{port}` kept) over Streamable HTTP; `None`
    /// over stdio.
    pub fn url(&self) -> Option<&str> {
        match self {
            Transport::Stdio => None,
            Transport::Http { url, .. } => Some(url),
        }
    }

    /// The headers sent on every request (`--header`): none over stdio.
    pub fn headers(&self) -> &[super::request_header::RequestHeader] {
        match self {
            Transport::Stdio => &[],
            Transport::Http { headers, .. } => headers,
        }
    }
}

/// `text` with every [`PORT_PLACEHOLDER`] replaced by `port`.
pub fn with_port(text: &str, port: u16) -> String {
    text.replace(PORT_PLACEHOLDER, &port.to_string())
}

/// A TCP port on 127.0.0.1 that nothing listened on a moment ago (the
/// kernel's pick for port 0), for a server elicit-check starts.
///
/// # Errors
/// The I/O error when no local socket can be bound.
pub fn free_port() -> std::io::Result<u16> {
    let listener = std::net::TcpListener::bind(("127.0.0.1", 0))?;
    Ok(listener.local_addr()?.port())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_http_url_is_kept_as_given_and_others_are_refused_with_the_reason() {
        assert_eq!(
            Transport::http("http://127.0.0.1:{port}/mcp", true),
            Ok(Transport::Http {
                url: "http://127.0.0.1:{port}/mcp".into(),
                headers: Vec::new(),
            })
        );
        assert_eq!(
            Transport::http("http://localhost:8080/mcp", false)
                .expect("a running server's URL")
                .url(),
            Some("http://localhost:8080/mcp")
        );
        let why = |url: &str, started: bool| {
            Transport::http(url, started)
                .expect_err("refused")
                .to_string()
        };
        assert!(
            why("http://127.0.0.1:{port}/mcp", false)
                .contains("give the server command after `--`"),
            "{}",
            why("http://127.0.0.1:{port}/mcp", false)
        );
        assert!(why("https://example.com/mcp", false).contains("https is not supported"));
        assert!(why("ws://127.0.0.1:1/mcp", false).contains("scheme \"ws\""));
        assert!(why("127.0.0.1:8080/mcp", false).starts_with("--url \"127.0.0.1:8080/mcp\": "));
        assert!(why("/mcp", false).contains("not an absolute URL"));
        assert_eq!(Transport::Stdio.url(), None);
    }

    #[test]
    fn the_port_placeholder_is_replaced_everywhere_it_appears() {
        assert_eq!(
            with_port("http://127.0.0.1:{port}/mcp?p={port}", 8123),
            "http://127.0.0.1:8123/mcp?p=8123"
        );
        assert_eq!(with_port("PORT", 8123), "PORT");
        assert_ne!(free_port().expect("a local port"), 0);
    }
}
