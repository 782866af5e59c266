//! `elicit-check check` (docs/src/check.md): any stdio server's tool judged
//! against the properties P1 to P8 from the `requestedSchema` it sends. The
//! command line and its reports, the gate on servers written with the MCP SDKs
//! (a planted defect fails the property it breaks, in both protocol eras), the
//! `jsonschema` judge, session mode giving the `--fresh` report, and a
//! config's targets checked in one run, sliced into shards and merged, and
//! the targets a registry's `server.json` gives (`server_json`); servers
//! that hold state (`stateful`); a `format` checked too leniently or too
//! strictly (`formats`); tools that ask more than once in a call, a URL-mode
//! sign-in before the form or the form asked again (`steps`).

mod cli;
mod formats;
mod gate;
mod http;
mod judge;
mod reports;
mod server_json;
mod session;
mod stateful;
mod steps;
mod targets;
