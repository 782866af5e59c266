//! A session with a server that never completes `initialize` keeps why, and its
//! call reports the same reason instead of calling (`src/harness/mod.rs`).

use elicit_check::harness::{Limits, Session};
use serde_json::json;

use crate::util::runtime;

#[test]
fn a_server_that_exits_before_initialize_leaves_a_startup_error() {
    let command = vec![
        "python3".to_owned(),
        "-c".to_owned(),
        "import sys; sys.exit(0)".to_owned(),
    ];
    runtime().block_on(async {
        let capabilities = json!({"elicitation": {"form": {}}});
        let mut session = Session::start(&command, &capabilities, Limits::default(), None)
            .await
            .expect("python3 spawns");
        let error = session.startup_error().expect("a startup error").to_owned();
        assert!(error.starts_with("initialize failed: "), "{error}");
        let call = session.call("validated", None).await;
        assert_eq!(call.error.as_deref(), Some(error.as_str()));
        assert_eq!(call.outcome, None);
        let finished = session.finish().await;
        assert_eq!(finished.startup_error.as_deref(), Some(error.as_str()));
        assert_eq!(finished.exit.code, Some(0));
    });
}
