//! JSON-RPC 2.0 as `wicket serve` and the MCP gateway (`wicket mcp`) speak it: one message a
//! line, the standard error codes declared once, and the message builders both use.

use serde_json::{json, Value};

/// The message is not JSON.
pub const PARSE_ERROR: i64 = -32700;
/// The message is JSON but not a valid request.
pub const INVALID_REQUEST: i64 = -32600;
/// No such method.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// The method's parameters are wrong.
pub const INVALID_PARAMS: i64 = -32602;
/// wicket failed while answering.
pub const INTERNAL_ERROR: i64 = -32603;
/// The MCP SDKs' "request timeout" code: the answer came too late and the call was refused.
pub const REQUEST_TIMEOUT: i64 = -32001;
/// Understood and refused: the state does not allow it (a staged change whose project changed
/// since the run).
pub const REFUSED: i64 = -32002;

/// An error response.
pub fn error(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// A success response.
pub fn result(id: Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// A response from a method's outcome: its result, or its error code and message.
pub fn reply(id: Value, outcome: Result<Value, (i64, String)>) -> Value {
    match outcome {
        Ok(r) => result(id, r),
        Err((code, m)) => error(id, code, &m),
    }
}

/// A request.
pub fn request(id: Value, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// A notification (no answer expected).
pub fn notification(method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "method": method, "params": params})
}

/// An id MCP accepts: a string or an integer (never null, a fraction, or a structure).
pub fn is_mcp_id(id: &Value) -> bool {
    id.is_string() || id.is_i64() || id.is_u64()
}

/// Does the message say `"jsonrpc": "2.0"`?
pub fn is_v2(msg: &Value) -> bool {
    msg.get("jsonrpc").and_then(Value::as_str) == Some("2.0")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builders_make_the_wire_shapes() {
        assert_eq!(
            error(json!(1), INVALID_PARAMS, "no").to_string(),
            r#"{"error":{"code":-32602,"message":"no"},"id":1,"jsonrpc":"2.0"}"#
        );
        assert_eq!(reply(json!("a"), Ok(json!(null))), json!({"jsonrpc": "2.0", "id": "a", "result": null}));
        assert_eq!(reply(json!(2), Err((INTERNAL_ERROR, "x".into())))["error"]["code"], -32603);
        assert_eq!(request(json!(3), "m", json!({}))["method"], "m");
        assert!(notification("n", json!([])).get("id").is_none());
        assert!(is_mcp_id(&json!(7)) && is_mcp_id(&json!("7")));
        assert!(!is_mcp_id(&json!(1.5)) && !is_mcp_id(&Value::Null) && !is_mcp_id(&json!([1])));
        assert!(is_v2(&json!({"jsonrpc": "2.0"})) && !is_v2(&json!({"jsonrpc": 2})));
    }
}
