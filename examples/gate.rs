//! Embed wicket in a Rust agent: build a `Gate` with your own approver and audit sink, then put
//! every tool call through `Gate::check` before running it.
//!
//! Run it: `cargo run -p wicket --example gate -- [PROJECT_DIR]` (default: the current folder).
//! It reads your wicket settings like the CLI does, and writes nothing: the audit sink here
//! prints each decision instead of appending to the log.

use wicket::approver::{Answer, Question};
use wicket::audit::Recorded;
use wicket::gate::Gate;
use wicket_policy::{Decision, ToolCall, Verdict};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = std::env::args().nth(1).unwrap_or_else(|| ".".into());

    // The approver: your agent's own interface. This one says yes once to questions about
    // reading, and no to everything else.
    let approver = |q: &Question| -> Answer {
        println!("  asked: {} {} ({})", q.tool, q.what, q.reason);
        if q.tool == "read_file" {
            Answer::Once
        } else {
            Answer::Deny
        }
    };
    // The audit sink: here, one printed line a decision. Use `wicket::audit::Recorder` for the
    // hash-chained log that `wicket audit verify` checks.
    let sink = |call: &ToolCall, v: Verdict| -> Recorded {
        println!("  audit: {} -> {} by {}", call.tool, v.decision.as_str(), v.by.as_str());
        Recorded { verdict: v, notice: None }
    };

    let mut gate = Gate::builder(&root)
        .allow("bash(cargo test*)")
        .deny("bash(git push*)")
        .sandboxed(false)
        .approver(approver)
        .audit(sink)
        .build()?;
    for n in gate.take_notices() {
        eprintln!("notice: {n}");
    }

    let calls = [
        ToolCall::new("bash", serde_json::json!({"command": "cargo test --workspace"})),
        ToolCall::new("bash", serde_json::json!({"command": "cargo test && git push --force"})),
        ToolCall::new("read_file", serde_json::json!({"path": ".env"})),
        ToolCall::new("write_file", serde_json::json!({"path": "notes.txt", "content": "hi"})),
    ];
    for call in &calls {
        println!("{} {}", call.tool, call.input);
        let v = gate.check(call);
        let verb = if v.decision == Decision::Allow { "run it" } else { "tell the model" };
        println!("  => {} ({}): {} — {verb}", v.decision.as_str(), v.by.as_str(), v.reason);
    }
    Ok(())
}
