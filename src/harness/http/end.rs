//! The session's end: a DELETE when the server assigned a session id, then
//! every stream still open closed and recorded as closed by the harness.

use reqwest::Method;
use reqwest::header::HeaderMap;

use super::Bridge;
use super::exchange::*;
use crate::evidence::http::{CLOSED_BY_HARNESS, HttpStep};

impl Bridge {
    /// Ends the session: a DELETE when the server assigned a session id
    /// (bounded by the shutdown limit), then every stream still open is
    /// closed and recorded as closed by the harness.
    pub(super) async fn end(&mut self) {
        if let Some(id) = self.session_id.clone() {
            let mut headers = HeaderMap::new();
            let version = lock(&self.protocol_version).clone();
            self.session_headers(&mut headers, version.as_deref());
            let exchange = self.request(Method::DELETE, &headers, None);
            let request = self.client.delete(self.url.clone()).headers(headers);
            let session = format!(" (session {id})");
            send_once(
                &self.state,
                exchange,
                request,
                self.limits.shutdown,
                &session,
            )
            .await;
        }
        let still_open: Vec<u32> = std::mem::take(&mut *lock(&self.open)).into_iter().collect();
        for stream in self.streams.drain(..) {
            stream.abort();
        }
        for exchange in still_open {
            self.state.record_http(
                exchange,
                HttpStep::Ended {
                    how: CLOSED_BY_HARNESS.to_owned(),
                },
            );
        }
    }
}
