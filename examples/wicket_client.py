"""A small client for `wicket serve` (JSON-RPC 2.0 over stdio, one message a line).

    from wicket_client import Wicket
    with Wicket(root="/path/to/project", approver=lambda q: "once") as w:
        print(w.decide("bash", {"command": "npm test"}))

`approver` is called with the server's approval request params (tool, input, reason, by,
always_allow_rule, and call_id, target, preview, isolation, question, choices, change, hunks)
whenever the policy asks; it returns "once", "session", "always" (only when always_allow_rule
is not null: that rule then holds for the session) or "deny", a dict such as
{"answer": "once", "select_hunks": [0]} to approve only some hunks of a file write (decide then
returns the call to make in "updated_call"), or None to leave the request unanswered (the
server denies after its --approval-timeout).

    with Wicket(root="/path/to/project") as w:
        r = w.run("cargo test 2>&1 | tail -5", timeout=600)   # decided, then run in the sandbox
        print(r["decision"], r.get("exit_code"), r.get("stdout"))
        print(w.blocked_hosts())
Standard library only; see docs/protocol.md.
"""

import json
import os
import subprocess
import sys


class WicketError(Exception):
    """A JSON-RPC error from the server."""

    def __init__(self, code, message):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class Wicket:
    def __init__(self, root=None, approver=None, wicket="wicket", extra_args=(), env=None):
        argv = [wicket, "serve"]
        if root is not None:
            argv += ["--root", str(root)]
        argv += list(extra_args)
        self.approver = approver or (lambda params: "deny")
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1,
            env=env if env is not None else os.environ.copy(),
        )
        self.next_id = 1

    def call(self, method, params=None):
        """Send a request and return its result, answering approval requests meanwhile."""
        rid = self.next_id
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            msg["params"] = params
        self._send(msg)
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise WicketError(-1, "the server closed its output")
            reply = json.loads(line)
            if reply.get("method") == "approval/request":
                answer = self.approver(reply.get("params", {}))
                if answer is not None:
                    result = answer if isinstance(answer, dict) else {"answer": answer}
                    self._send({"jsonrpc": "2.0", "id": reply["id"], "result": result})
                continue
            if reply.get("id") != rid:
                continue
            if "error" in reply:
                raise WicketError(reply["error"]["code"], reply["error"]["message"])
            return reply["result"]

    def decide(self, tool, input, call_id=None):
        params = {"tool": tool, "input": input}
        if call_id is not None:
            params["call_id"] = call_id
        return self.call("decide", params)

    def run(self, command, timeout=None, staged=False):
        """Decide a command and, when allowed, run it in the sandbox: the decision fields plus
        exit_code, stdout, stderr, timed_out, duration_ms and sandbox when it ran. staged=True
        runs it on an overlay of the project: the result's "staged" has the stage's id and what the
        command changed, and nothing reaches the project until staged_apply."""
        params = {"command": command}
        if timeout is not None:
            params["timeout"] = timeout
        if staged:
            params["staged"] = True
        return self.call("run", params)

    def staged_diff(self, stage_id):
        """What a staged run changed: [{path, what, kind, old_mode, new_mode, and for text
        old_text, new_text, hunks}]."""
        return self.call("staged_diff", {"id": stage_id})["changes"]

    def staged_apply(self, stage_id, paths=None, hunks=None):
        """Apply a staged run's changes: all, those at or below paths, or only the numbered hunks
        of the one path. Raises WicketError -32002 (naming the files) when the project changed
        since the run."""
        params = {"id": stage_id}
        if paths:
            params["paths"] = list(paths)
        if hunks is not None:
            params["hunks"] = list(hunks)
        return self.call("staged_apply", params)

    def staged_discard(self, stage_id):
        return self.call("staged_discard", {"id": stage_id})

    def blocked_hosts(self):
        """The hosts refused during this session: [{host, tool, reason, count}]."""
        return self.call("blocked_hosts", {})["hosts"]

    def verify_audit(self, path=None):
        return self.call("verify_audit", {"path": path} if path else {})

    def close(self):
        if self.proc.poll() is None:
            try:
                self.call("shutdown")
            except (WicketError, BrokenPipeError, OSError):
                pass
            self.proc.stdin.close()
            self.proc.wait(timeout=10)

    def _send(self, msg):
        self.proc.stdin.write(json.dumps(msg) + "\n")
        self.proc.stdin.flush()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def show_line(line):
    """A line of a diff for the terminal: controls and bidi marks shown escaped."""
    return "".join(c if c.isprintable() else f"\\u{{{ord(c):x}}}" for c in line)


def staged(w, command):
    """Run a command staged, show what it changed, and apply all, some paths, or discard."""
    result = w.run(command, staged=True)
    print(json.dumps({k: v for k, v in result.items() if k != "staged"}), file=sys.stderr)
    stage = result.get("staged") or {}
    if not stage.get("id"):
        print("the command changed nothing", file=sys.stderr)
        return 0
    for change in w.staged_diff(stage["id"]):
        print(f"{change['what']} {show_line(change['path'])}", file=sys.stderr)
        for n, hunk in enumerate(change.get("hunks") or []):
            print(f"  hunk {n}:", file=sys.stderr)
            for line in hunk.splitlines():
                print(f"    {show_line(line)}", file=sys.stderr)
    reply = input("apply all (a), some paths (p), discard (d), or keep (k)? ").strip().lower()
    if reply == "a":
        print(json.dumps(w.staged_apply(stage["id"])))
    elif reply == "p":
        print(json.dumps(w.staged_apply(stage["id"], paths=input("paths, separated by spaces: ").split())))
    elif reply == "d":
        w.staged_discard(stage["id"])
        print("discarded", file=sys.stderr)
    else:
        print(f"kept as {stage['id']}", file=sys.stderr)
    return 0


def main():
    """Decide the tool call given as JSON on the command line, asking on the terminal; or, with
    --staged COMMAND, run a command staged and apply or discard what it changed."""
    if len(sys.argv) == 3 and sys.argv[1] == "--staged":
        with Wicket(wicket=os.environ.get("WICKET", "wicket")) as w:
            return staged(w, sys.argv[2])
    if len(sys.argv) != 2:
        print('usage: wicket_client.py \'{"tool": "bash", "input": {"command": "ls"}}\'', file=sys.stderr)
        print("       wicket_client.py --staged 'COMMAND'", file=sys.stderr)
        return 2
    call = json.loads(sys.argv[1])

    def ask(params):
        print(f"wicket asks: {params.get('question') or params['reason']}", file=sys.stderr)
        print(f"  {params['tool']}: {params.get('preview') or json.dumps(params['input'])}", file=sys.stderr)
        hunks = params.get("hunks") or []
        for n, hunk in enumerate(hunks):
            # The diff of a file write, hunk by hunk (numbered for picking some).
            print(f"  hunk {n}:", file=sys.stderr)
            for line in hunk.splitlines():
                # Nothing hidden reaches the terminal: controls and bidi marks are shown escaped.
                print(f"    {show_line(line)}", file=sys.stderr)
        rule = params.get("always_allow_rule")
        offer = f", always {rule} (a)" if rule else ""
        pick = ", some hunks (p)" if len(hunks) > 1 else ""
        reply = input(f"allow once (o), for this session (s){offer}{pick}, or deny (d)? ").strip().lower()
        if reply == "a" and rule:
            return "always"
        if reply == "p" and pick:
            chosen = input("hunk numbers, separated by spaces: ").split()
            return {"answer": "once", "select_hunks": [int(n) for n in chosen if n.isdigit()]}
        return {"o": "once", "s": "session"}.get(reply, "deny")

    with Wicket(wicket=os.environ.get("WICKET", "wicket"), approver=ask) as w:
        print(json.dumps(w.decide(call["tool"], call.get("input", {}))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
