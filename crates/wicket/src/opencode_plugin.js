// wicket's gate for __AGENT__: every tool call goes to `wicket hook __HOOK__` first.
// Written by `wicket init __HOOK__` (`wicket init __HOOK__ --uninstall` removes it); `wicket doctor`
// checks that it is this file, unchanged, and that it loads. Edits are lost at the next init.
//
// The call is refused (an error the model reads) when wicket denies it, and also when wicket
// cannot be started, fails, answers anything but a decision, or does not answer within
// TIMEOUT_MS: __AGENT__ runs a call whose plugin returns, so only an answer of wicket's lets one
// through. An allowed shell command comes back rewritten to run inside `wicket run`.
import { spawn } from "node:child_process";

const WICKET = __ARGV__;
const TIMEOUT_MS = __TIMEOUT_MS__;

function refused(why) {
  return { decision: "deny", reason: `wicket could not check this call, so it is blocked: ${why}. This is a problem with wicket's set-up, not with your call: tell the person; do not try to work around it.` };
}

function ask(payload, cwd) {
  return new Promise((resolve) => {
    let done = false;
    let timer;
    const finish = (answer) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(answer);
    };
    let child;
    try {
      child = spawn(WICKET[0], WICKET.slice(1), { cwd, stdio: ["pipe", "pipe", "pipe"] });
    } catch (e) {
      finish(refused(`${WICKET[0]} cannot be started (${e && e.message})`));
      return;
    }
    timer = setTimeout(() => {
      try { child.kill("SIGKILL"); } catch (_) {}
      finish(refused(`it did not answer within ${TIMEOUT_MS} ms`));
    }, TIMEOUT_MS);
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => { out += d; });
    child.stderr.on("data", (d) => { err += d; });
    child.on("error", (e) => finish(refused(`${WICKET[0]} cannot be started (${e && e.message})`)));
    child.on("close", (code) => {
      let answer = null;
      try { answer = JSON.parse(out.trim()); } catch (_) {}
      const known = answer && ["allow", "deny", "pass"].includes(answer.decision);
      if (code === 0 && known) finish(answer);
      else if (answer && answer.decision === "deny" && answer.reason) finish(answer);
      else finish(refused(`wicket exited with ${code}: ${err.trim().slice(0, 500)}`));
    });
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(payload));
  });
}

export const WicketGate = async ({ directory, worktree, client }) => {
  // The configured MCP servers name the MCP tools (`<server>_<tool>`); read once, when first needed.
  let servers = null;
  const mcpServers = async () => {
    if (servers === null) {
      try {
        const config = await client.config.get();
        servers = Object.keys((config && (config.data || config).mcp) || {});
      } catch (_) {
        servers = [];
      }
    }
    return servers;
  };
  return {
    "tool.execute.before": async (input, output) => {
      const payload = {
        tool: input.tool,
        sessionID: input.sessionID,
        callID: input.callID,
        args: output.args,
        cwd: directory,
        worktree,
        mcp_servers: await mcpServers(),
      };
      const answer = await ask(payload, directory);
      if (answer.decision === "allow" || answer.decision === "pass") {
        if (answer.decision === "allow" && answer.args && typeof answer.args === "object") {
          Object.assign(output.args, answer.args);
        }
        return;
      }
      throw new Error(answer.reason || "Blocked by wicket.");
    },
  };
};
