//! A reply planted in another session (property 7 over Streamable HTTP,
//! [`crate::harness::cross_session`]): a second session opened as the first
//! one was, the reply POSTed under its id (or none), then that session ended.

use reqwest::Method;
use serde_json::Value;

use super::Bridge;
use super::exchange::*;
use crate::evidence::http::Carried;
use crate::harness::cross_session::{CrossSessionAnswer, PlantedSession};

impl Bridge {
    /// POSTs a reply to the server's request `id` carrying `planted.result`
    /// under another session's id or none ([`crate::harness::cross_session`]), before
    /// the client's own reply; a second session is opened for it and ended
    /// after. Nothing is planted when the server assigned no session id (a
    /// stateless server has no sessions to keep apart): the timeline says so.
    pub(super) async fn plant(&mut self, planted: CrossSessionAnswer, id: &Value) {
        if self.session_id.is_none() {
            self.state.event(
                "HTTP: no reply planted in another session: the server assigned no Mcp-Session-Id",
            );
            return;
        }
        let session = match planted.session {
            PlantedSession::Missing => None,
            PlantedSession::Another => match self.second_session().await {
                Some(session) => Some(session),
                None => return,
            },
        };
        let reply = serde_json::json!({"jsonrpc": "2.0", "id": id, "result": planted.result});
        self.state.event(format!(
            "HTTP: planting a reply to id {id} under {}",
            planted.session.describe()
        ));
        let headers = self.json_headers(session.as_deref());
        let exchange = self.request(Method::POST, &headers, Carried::of(&reply));
        let request = self
            .client
            .post(self.url.clone())
            .headers(headers)
            .body(reply.to_string());
        if let Some(response) = self.send(request, exchange).await {
            self.record_unforwarded(exchange, response).await;
        }
        if let Some(session) = session {
            let headers = self.json_headers(Some(&session));
            let exchange = self.request(Method::DELETE, &headers, None);
            let request = self.client.delete(self.url.clone()).headers(headers);
            if let Some(response) = self.send(request, exchange).await {
                self.record_unforwarded(exchange, response).await;
            }
        }
    }

    /// Opens a second session with the first one's `initialize` body and
    /// `notifications/initialized`: its `Mcp-Session-Id`, none when the
    /// server assigned none (the timeline says why).
    pub(super) async fn second_session(&mut self) -> Option<String> {
        let initialize = self.initialize.clone()?;
        let headers = self.json_headers(None);
        let exchange = self.request(Method::POST, &headers, None);
        let request = self
            .client
            .post(self.url.clone())
            .headers(headers)
            .body(initialize);
        let response = self.send(request, exchange).await?;
        let session = header(response.headers(), "mcp-session-id");
        // Its initialize result is not the client's: read within the call
        // bound (an event stream until its first message), not forwarded.
        let _ = tokio::time::timeout(self.limits.call, first_message(response)).await;
        let Some(session) = session.filter(|session| Some(session) != self.session_id.as_ref())
        else {
            self.state.event(
                "HTTP: no reply planted in another session: a second initialize got no new Mcp-Session-Id",
            );
            return None;
        };
        let headers = self.json_headers(Some(&session));
        let exchange = self.request(Method::POST, &headers, None);
        let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        let request = self
            .client
            .post(self.url.clone())
            .headers(headers)
            .body(initialized);
        if let Some(response) = self.send(request, exchange).await {
            self.record_unforwarded(exchange, response).await;
        }
        Some(session)
    }
}
