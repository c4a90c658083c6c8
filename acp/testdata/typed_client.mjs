// The official ACP SDK's client (@agentclientprotocol/sdk) and what the
// person typed: one connection runs three sessions — a question in plan
// mode, "/fix-issue 9 low" and "/init" — and a second connection loads
// each: session/load replays the question as typed, none of what aci added
// for the model (plan mode's note, a command's prompt). Any failed check
// exits non-zero. It prints the session ids, one a line.
//
// Usage: node typed_client.mjs SDK_DIR ACI_BINARY WORKDIR
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";

const [sdkDir, aciBin, workdir] = process.argv.slice(2);
const require = createRequire(join(sdkDir, "package.json"));
const acp = await import(pathToFileURL(require.resolve("@agentclientprotocol/sdk")).href);

const typed = ["how would you fix calc?", "/fix-issue 9 low", "/init"];
const additions = ["[aci:", "permission mode plan", "Fix issue #9", "Study this project"];
let updates = [];

function fail(msg) {
  console.error("typed_client.mjs: " + msg);
  console.error("updates: " + JSON.stringify(updates, null, 1).slice(0, 4000));
  process.exit(1);
}

// connect runs work against a fresh `aci acp` and ends it.
async function connect(work) {
  const child = spawn(aciBin, ["acp"], { cwd: workdir, stdio: ["pipe", "pipe", "inherit"] });
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  const app = acp
    .client({ name: "aci-test-client" })
    .onRequest(acp.methods.client.session.requestPermission, () => ({ outcome: { outcome: "cancelled" } }))
    .onNotification(acp.methods.client.session.update, ({ params }) => updates.push({ sessionId: params.sessionId, ...params.update }));
  const out = await app.connectWith(stream, async (agent) => {
    await agent.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
      clientInfo: { name: "aci-test-client", version: "1.0.0" },
    });
    return work(agent);
  });
  child.stdin.end();
  await new Promise((resolve) => child.on("exit", resolve));
  return out;
}

// The editor's thread: each question in a session of its own.
const ids = await connect(async (agent) => {
  const ids = [];
  for (const [i, text] of typed.entries()) {
    const { sessionId } = await agent.request(acp.methods.agent.session.new, { cwd: workdir, mcpServers: [] });
    if (i === 0) await agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: "plan" });
    const res = await agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
    if (res.stopReason !== "end_turn") fail(`${text}: stop reason ${res.stopReason}`);
    ids.push(sessionId);
  }
  return ids;
});

// Another editor window loads each thread.
updates = [];
await connect(async (agent) => {
  for (const sessionId of ids) await agent.request(acp.methods.agent.session.load, { sessionId, cwd: workdir, mcpServers: [] });
});
for (const [i, sessionId] of ids.entries()) {
  const mine = updates.filter((u) => u.sessionId === sessionId);
  const asked = mine.filter((u) => u.sessionUpdate === "user_message_chunk").map((u) => u.content.text);
  if (asked.length !== 1 || asked[0] !== typed[i]) fail(`session ${sessionId} replayed the question as ${JSON.stringify(asked)}, want ${JSON.stringify(typed[i])}`);
  const said = mine.filter((u) => u.sessionUpdate === "agent_message_chunk").map((u) => u.content.text).join("");
  if (!said) fail(`session ${sessionId} replayed no answer`);
}
const all = JSON.stringify(updates);
for (const a of additions) if (all.includes(a)) fail("the replay shows aci's addition " + JSON.stringify(a));
console.log(ids.join("\n"));
