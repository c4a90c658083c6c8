// The official ACP SDK's client (@agentclientprotocol/sdk) and aci's slash
// commands: after session/new the editor is told the workspace's commands
// (available_commands_update, checked by the SDK's own schema), and a
// prompt "/fix-issue 7" runs one. Any failed check exits non-zero.
//
// Usage: node commands_client.mjs SDK_DIR ACI_BINARY WORKDIR
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";

const [sdkDir, aciBin, workdir] = process.argv.slice(2);
const require = createRequire(join(sdkDir, "package.json"));
const acp = await import(pathToFileURL(require.resolve("@agentclientprotocol/sdk")).href);

const updates = [];
function fail(msg) {
  console.error("commands_client.mjs: " + msg);
  console.error("updates: " + JSON.stringify(updates, null, 1).slice(0, 4000));
  process.exit(1);
}

const child = spawn(aciBin, ["acp"], { cwd: workdir, stdio: ["pipe", "pipe", "inherit"] });
const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
let gotCommands;
const commandsCame = new Promise((resolve) => (gotCommands = resolve));
const app = acp
  .client({ name: "aci-test-client" })
  .onNotification(acp.methods.client.session.update, ({ params }) => {
    updates.push(params.update);
    if (params.update.sessionUpdate === "available_commands_update") gotCommands(params.update.availableCommands);
  });

let offered;
const stop = await app.connectWith(stream, async (agent) => {
  await agent.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    clientInfo: { name: "aci-test-client", version: "1.0.0" },
  });
  const { sessionId } = await agent.request(acp.methods.agent.session.new, { cwd: workdir, mcpServers: [] });
  offered = await Promise.race([commandsCame, new Promise((_, no) => setTimeout(() => no(new Error("no available_commands_update within 10 s")), 10000))]);
  const res = await agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "/fix-issue 7" }] });
  // The session's operations are commands too: /rewind goes back before
  // the question just asked, with a message and no turn.
  const back = await agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "/rewind 1" }] });
  if (back.stopReason !== "end_turn") fail("/rewind 1: stop reason " + back.stopReason);
  return res.stopReason;
});
child.stdin.end();

if (stop !== "end_turn") fail("stop reason " + stop);
const names = offered.map((c) => c.name);
for (const want of ["compact", "model", "effort", "rewind", "init", "review", "fix-issue", "git:commit"]) if (!names.includes(want)) fail("not offered: " + want + " in " + names);
const fix = offered.find((c) => c.name === "fix-issue");
if (fix.description !== "fix an issue" || fix.input?.hint !== "[number]") fail("fix-issue: " + JSON.stringify(fix));
const text = updates.filter((u) => u.sessionUpdate === "agent_message_chunk").map((u) => u.content.text).join("");
if (!text.includes("Fixed.")) fail("answer: " + text);
if (!text.includes("back before question 1")) fail("/rewind 1 answered: " + text);
console.log("ok: " + offered.length + " commands offered");
