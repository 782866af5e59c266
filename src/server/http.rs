//! The reference server over MCP's Streamable HTTP transport (MCP 2025-11-25,
//! basic/transports, "Streamable HTTP"), served by rmcp's
//! `StreamableHttpService` on hyper: `http://127.0.0.1:PORT/mcp` (any path
//! answers). 2025-11-25 sessions get an `Mcp-Session-Id` and their
//! `elicitation/create` on the call's event stream; 2026-07-28 requests are
//! plain request/response, as rmcp serves them (no session). The stdio line
//! filter ([`super::lines`]) does not apply: over HTTP, rmcp parses each POST.

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;

use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use super::handler::ReferenceServer;

/// Serves `server` over Streamable HTTP on `127.0.0.1:port` (loopback only)
/// until the process is stopped, one connection per task; each 2025-11-25
/// session gets its own clone of `server` (clones share the sealed
/// `requestState`s, so a 2026-07-28 retry may reach any of them).
///
/// # Errors
/// The port cannot be bound (in use, or not allowed).
pub async fn serve_http(server: ReferenceServer, port: u16) -> anyhow::Result<()> {
    let address = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let listener = tokio::net::TcpListener::bind(address)
        .await
        .map_err(|error| anyhow::anyhow!("cannot listen on http://{address}/mcp: {error}"))?;
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    tracing::info!("serving on http://{address}/mcp");
    loop {
        let (stream, _) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(error) => {
                tracing::warn!("accept failed: {error}");
                continue;
            }
        };
        let service = TowerToHyperService::new(service.clone());
        tokio::spawn(async move {
            let connection = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service);
            if let Err(error) = connection.await {
                tracing::debug!("connection ended: {error}");
            }
        });
    }
}
