// An ACP client built on the official TypeScript SDK
// (@agentclientprotocol/sdk), driving `aci acp` as an editor would: it
// answers permission requests, serves fs/read_text_file from an unsaved
// buffer and takes fs/write_text_file into it, and checks the updates it
// received. Any failed check exits non-zero with the reason on stderr.
//
// Usage: node client.mjs SDK_DIR ACI_BINARY WORKDIR
// SDK_DIR is a folder where the SDK is npm-installed; aci runs with this
// process's environment (the Go test sets the fake model's URL).
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";

const [sdkDir, aciBin, workdir] = process.argv.slice(2);
const require = createRequire(join(sdkDir, "package.json"));
const acp = await import(pathToFileURL(require.resolve("@agentclientprotocol/sdk")).href);

const calc = join(workdir, "calc.go");
// The editor's buffer of calc.go: not saved, so not on disk.
let buffer = "package calc\n\n// UNSAVED-EDITOR-TEXT\nfunc Add(a, b int) int { return a - b }\n";
const updates = [];
const arrived = new Map(); // update → when it arrived (ms)
const permissions = [];
const reads = [];
const writes = [];

function fail(msg) {
  console.error("client.mjs: " + msg);
  console.error("updates: " + JSON.stringify(updates, null, 1).slice(0, 4000));
  process.exit(1);
}

const child = spawn(aciBin, ["acp"], { cwd: workdir, stdio: ["pipe", "pipe", "inherit"] });
const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));

const app = acp
  .client({ name: "aci-test-client" })
  .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
    permissions.push(params);
    const allow = params.options.find((o) => o.kind === "allow_once");
    if (!allow) fail("no allow_once option: " + JSON.stringify(params.options));
    return { outcome: { outcome: "selected", optionId: allow.optionId } };
  })
  .onRequest(acp.methods.client.fs.readTextFile, async ({ params }) => {
    reads.push(params.path);
    if (params.path === calc) return { content: buffer };
    const fs = await import("node:fs/promises");
    return { content: await fs.readFile(params.path, "utf8") };
  })
  .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
    writes.push(params);
    if (params.path === calc) buffer = params.content;
    return {};
  })
  .onNotification(acp.methods.client.session.update, ({ params }) => {
    updates.push(params.update);
    arrived.set(params.update, Date.now());
  });

const stop = await app.connectWith(stream, async (agent) => {
  const init = await agent.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false },
    clientInfo: { name: "aci-test-client", version: "1.0.0" },
  });
  if (init.protocolVersion !== acp.PROTOCOL_VERSION) fail("protocol version " + init.protocolVersion);
  if (!init.agentCapabilities?.loadSession) fail("loadSession not offered");
  const { sessionId } = await agent.request(acp.methods.agent.session.new, { cwd: workdir, mcpServers: [] });
  const res = await agent.request(acp.methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: "text", text: "Add subtracts: fix it and check" }],
  });
  return res.stopReason;
});
child.stdin.end();

if (stop !== "end_turn") fail("stop reason " + stop);

// What the editor was asked and given.
if (!reads.includes(calc)) fail("calc.go was never read through the editor: " + JSON.stringify(reads));
if (writes.length !== 1 || writes[0].path !== calc) fail("writes: " + JSON.stringify(writes));
if (!buffer.includes("a + b") || !buffer.includes("UNSAVED-EDITOR-TEXT")) fail("buffer after the edit: " + buffer);
if (permissions.length !== 1 || !permissions[0].toolCall.title.includes("rm -rf")) fail("permissions: " + JSON.stringify(permissions));

// The updates.
const text = updates
  .filter((u) => u.sessionUpdate === "agent_message_chunk" && u.content.type === "text")
  .map((u) => u.content.text)
  .join("");
if (!text.includes("Fixed and checked.")) fail("message text: " + JSON.stringify(text));
if (text.includes("<tool_call>")) fail("a tool call showed as text");
const calls = new Map();
for (const u of updates) {
  if (u.sessionUpdate !== "tool_call" && u.sessionUpdate !== "tool_call_update") continue;
  if (u.sessionUpdate === "tool_call" && calls.has(u.toolCallId)) fail("tool_call twice for " + u.toolCallId);
  if (u.sessionUpdate === "tool_call_update" && !calls.has(u.toolCallId)) fail("update before tool_call for " + u.toolCallId);
  const c = calls.get(u.toolCallId) ?? { statuses: [] };
  for (const k of ["kind", "title", "content", "locations"]) if (u[k] !== undefined && u[k] !== null) c[k] = u[k];
  if (u.status) c.statuses.push(u.status);
  calls.set(u.toolCallId, c);
}
const byKind = (kind) => [...calls.values()].filter((c) => c.kind === kind);
const read = byKind("read")[0];
if (!read || read.locations?.[0]?.path !== calc) fail("no read of calc.go with its location");
const edit = byKind("edit")[0];
if (!edit) fail("no edit tool call");
const diff = edit.content?.find((c) => c.type === "diff");
if (!diff || diff.path !== calc || !diff.oldText.includes("a - b") || !diff.oldText.includes("UNSAVED-EDITOR-TEXT") || !diff.newText.includes("a + b"))
  fail("edit diff: " + JSON.stringify(edit.content));
const run = byKind("execute").find((c) => c.title.includes("rm -rf"));
if (!run) fail("no command tool call");
const out = JSON.stringify(run.content);
if (!out.includes("removed-ok") || !out.includes("tick-3")) fail("command output: " + out);
// The command's output came as it ran: an in_progress update with its
// first tick well before the one that completed it.
const runUpdates = updates.filter((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === [...calls].find(([, c]) => c === run)[0]);
const firstTick = runUpdates.find((u) => u.status === "in_progress" && JSON.stringify(u.content ?? "").includes("tick-1"));
const done = runUpdates.find((u) => u.status === "completed");
if (!firstTick || !done) fail("no streamed output update: " + JSON.stringify(runUpdates));
if (JSON.stringify(firstTick.content).includes("tick-3")) fail("the first streamed update already held the end: " + JSON.stringify(firstTick.content));
if (arrived.get(done) - arrived.get(firstTick) < 1500) fail(`the output came at the end: ${arrived.get(done) - arrived.get(firstTick)} ms before completion`);
for (const [id, c] of calls) {
  const s = c.statuses;
  if (s[0] !== "pending" || s[s.length - 1] !== "completed" || !s.includes("in_progress")) fail(`statuses of ${id}: ${s}`);
}
console.log("ok: " + calls.size + " tool calls, " + updates.length + " updates");
