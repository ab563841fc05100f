// td's OpenCode plugin, written by td hooks install --opencode. td rewrites this file when it changes; keep plugins of your own in other files.
// td-plugin-form: v1 (the plugin API of @opencode-ai/plugin 1.x: an exported async function returning hooks)
//
// Each hook hands td a small JSON payload on standard input
// (td hook opencode EVENT) and reads its answer: {"session", "context",
// "deny"}. td never fails a hook: when td cannot run, the plugin does
// nothing. Everything td knows of OpenCode's plugin API is in this one
// file, so that a plugin of another form can replace it whole.
import { spawnSync } from "node:child_process";

/** @type {import("@opencode-ai/plugin").Plugin} */
export const TdPlugin = async ({ directory }) => {
  /** @type {Map<string, string>} OpenCode session -> td session */
  const sessions = new Map();
  /** @type {Map<string, string>} subagent session -> its parent session */
  const parents = new Map();
  /** @type {Map<string, string>} OpenCode session -> context for its next system prompt */
  const pending = new Map();
  /** @type {Map<string, string>} OpenCode session -> the model of its last message */
  const models = new Map();

  /**
   * Runs td hook opencode and returns its answer ({} when td cannot run).
   * @param {string} event
   * @param {string} sessionID
   * @param {Record<string, unknown>} [extra]
   * @returns {{session?: string, context?: string, deny?: string}}
   */
  const td = (event, sessionID, extra = {}) => {
    /** @type {Record<string, unknown>} */
    const payload = { cwd: directory, session_id: sessionID, ...extra };
    const model = models.get(sessionID);
    if (model) payload.model = model;
    const parent = parents.get(sessionID);
    if (parent) Object.assign(payload, { session_id: parent, agent_id: sessionID, agent_type: "subagent" });
    const r = spawnSync(process.env.TD_BIN || "td", ["hook", "opencode", event], {
      cwd: directory, input: JSON.stringify(payload), encoding: "utf8", timeout: 10000,
    });
    if (r.error || r.status !== 0 || !r.stdout) return {};
    try { return JSON.parse(r.stdout); } catch { return {}; }
  };
  /**
   * Keeps td's session and the context for the next system prompt.
   * @param {string} sessionID
   * @param {{session?: string, context?: string}} out
   */
  const keep = (sessionID, out) => {
    if (out.session) sessions.set(sessionID, out.session);
    if (out.context) pending.set(sessionID, out.context);
  };

  return {
    event: async ({ event }) => {
      switch (event.type) {
        case "session.created": {
          const info = event.properties.info;
          if (info.parentID) parents.set(info.id, info.parentID);
          else keep(info.id, td("session.created", info.id));
          return;
        }
        case "session.compacted": keep(event.properties.sessionID, td("session.compacted", event.properties.sessionID)); return;
        case "session.idle": td("session.idle", event.properties.sessionID); return;
        case "session.error": {
          const { sessionID, error } = event.properties;
          if (sessionID) td("session.error", sessionID, { error });
          return;
        }
        case "session.deleted": {
          const info = event.properties.info;
          if (!info.parentID) td("session.deleted", info.id);
          return;
        }
      }
    },
    // A session OpenCode opens again raises no event: its first message
    // in this process resumes it.
    "chat.message": async (input) => {
      if (input.model) models.set(input.sessionID, input.model.providerID + "/" + input.model.modelID);
      if (!sessions.has(input.sessionID) && !parents.has(input.sessionID)) keep(input.sessionID, td("session.resumed", input.sessionID));
    },
    "shell.env": async (input, output) => {
      if (!input.sessionID) return;
      const id = sessions.get(parents.get(input.sessionID) || input.sessionID);
      if (id) output.env.TD_SESSION = id;
    },
    "experimental.chat.system.transform": async (input, output) => {
      const text = input.sessionID && pending.get(input.sessionID);
      if (text && input.sessionID) { output.system.push(text); pending.delete(input.sessionID); }
    },
    "tool.execute.before": async (input, output) => {
      const out = td("tool.execute.before", input.sessionID, { tool: input.tool, args: output.args });
      if (out.deny) throw new Error(out.deny);
    },
    "tool.execute.after": async (input, output) => {
      const out = td("tool.execute.after", input.sessionID, { tool: input.tool, args: input.args, output: output.output, metadata: output.metadata });
      if (out.context) output.output += "\n\n" + out.context;
    },
    "experimental.session.compacting": async (input) => {
      td("experimental.session.compacting", input.sessionID);
    },
  };
};
