// Drives mdmem's installed OpenCode plugin as OpenCode would: imports the file, calls every export with a
// PluginInput, then calls its hooks with inputs and outputs shaped as OpenCode's published types, and prints
// what the hooks did to their outputs and which SDK calls they made, as JSON on stdout.
//
// Shapes: anomalyco/opencode packages/plugin/src/index.ts @0d4d22f4e6820edba5167d0240df87b4e8fdcab4 (Hooks:
// "experimental.chat.system.transform" (input {sessionID?, model}, output {system: string[]}), "chat.message"
// (input {sessionID, agent?, model?, messageID?, variant?}, output {message: UserMessage, parts: Part[]}),
// "experimental.session.compacting" (input {sessionID}, output {context: string[], prompt?}), event({event}));
// packages/sdk/js/src/gen/types.gen.ts @c47941910e12e2af43c3feb3f81b6e3b676d375f (EventSessionIdle
// {type: "session.idle", properties: {sessionID}}, EventSessionCompacted, UserMessage, AssistantMessage,
// TextPart {id, sessionID, messageID, type: "text", text, synthetic?}, ToolPart); the client's session.messages
// ({path: {id}}) -> {data: [{info, parts}]} and session.promptAsync({path: {id}, body: {parts}}) as in the v1
// SDK (packages/sdk/js/src/gen/sdk.gen.ts).
//
// usage: node drive.mjs PLUGIN_FILE SCRIPT_JSON   (SCRIPT_JSON: {directory, session, steps: [...]})
import { readFileSync } from "node:fs"
import { pathToFileURL } from "node:url"

const [file, scriptFile] = process.argv.slice(2)
const script = JSON.parse(readFileSync(scriptFile, "utf-8"))
const sent = [] // what the plugin asked the client to send
let messages = [] // the session as OpenCode holds it
const client = {
  session: {
    messages: async ({ path }) => ({ data: path.id === script.session ? messages : [] }),
    // Session: {id, projectID, directory, parentID?, title, version, time}; a subagent's session has a parentID
    get: async ({ path }) => ({ data: { id: path.id, projectID: "p1", directory: script.directory, title: "t",
                                        version: "1", time: { created: 1765000000000, updated: 1765000000000 },
                                        ...(path.id === script.session ? {} : { parentID: script.session }) } }),
    promptAsync: async (options) => {
      sent.push(options)
      return { data: undefined }
    },
  },
}
const model = { id: "claude-sonnet-4", providerID: "anthropic" }
const mod = await import(pathToFileURL(file).href)
const hooks = []
for (const fn of new Set(Object.values(mod))) {
  hooks.push(await fn({ client, project: { id: "p1", worktree: script.directory }, directory: script.directory,
                        worktree: script.directory, serverUrl: new URL("http://localhost:4096"), $: undefined }))
}
async function trigger(name, input, output) {
  for (const h of hooks) if (h[name]) await h[name](input, output)
  return output
}
async function emit(event) {
  for (const h of hooks) if (h.event) await h.event({ event })
}
let n = 0
function textMessage(role, text) {
  n += 1
  const id = `msg_${String(n).padStart(4, "0")}`
  const time = { created: 1765000000000 + n }
  const info = role === "user"
    ? { id, sessionID: script.session, role, time, agent: "build", model: { providerID: "anthropic", modelID: "m" } }
    : { id, sessionID: script.session, role, time, parentID: "", modelID: "m", providerID: "anthropic", mode: "build",
        path: { cwd: script.directory, root: script.directory }, cost: 0,
        tokens: { input: 1, output: 1, reasoning: 0, cache: { read: 0, write: 0 } } }
  return { info, parts: [{ id: `prt_${String(n).padStart(4, "0")}`, sessionID: script.session, messageID: id,
                           type: "text", text }] }
}
const results = []
for (const step of script.steps) {
  if (step.do === "system") {
    const out = await trigger("experimental.chat.system.transform", { sessionID: script.session, model },
                              { system: ["You are opencode."] })
    results.push({ do: step.do, system: out.system })
  } else if (step.do === "prompt") {
    const user = textMessage("user", step.text)
    const out = await trigger("chat.message", { sessionID: script.session, agent: "build", messageID: user.info.id,
                                                model: { providerID: "anthropic", modelID: "m" } },
                              { message: user.info, parts: user.parts })
    messages.push({ info: user.info, parts: out.parts })
    results.push({ do: step.do, parts: out.parts })
  } else if (step.do === "reply") {
    messages.push(textMessage("assistant", step.text))
    results.push({ do: step.do })
  } else if (step.do === "idle") {
    const before = sent.length
    await emit({ type: "session.idle", properties: { sessionID: step.session || script.session } })
    results.push({ do: step.do, sent: sent.slice(before) })
  } else if (step.do === "compacting") {
    const out = await trigger("experimental.session.compacting", { sessionID: script.session }, { context: [] })
    await emit({ type: "session.compacted", properties: { sessionID: script.session } })
    results.push({ do: step.do, context: out.context })
  }
}
process.stdout.write(JSON.stringify(results))
