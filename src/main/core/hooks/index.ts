// Agent hooks (issue #27): the flywheel's automatic steps. A coding agent's own hook system calls `contextpack hook
// <event>` before it compacts (store a handoff), when a session starts (print the handoff or the rehydration bundle)
// and when it ends (record the session); `contextpack hooks install` wires those calls into the agent's settings.
export { HOOK_EVENTS, HookInputError, hookEventOf, parseHookPayload, transcriptLabel, type HookEvent, type HookPayload } from './payload.ts';
export { projectForCwd, type ProjectMatch } from './project.ts';
export { DEFAULT_INJECT_TOKENS, MAX_INJECT_CHARS, latestHandoff, mcpPointer, renderHandoffContext, startupContext, type StoredHandoff } from './inject.ts';
export { MAX_TRANSCRIPT_BYTES, readHookTranscript, runHook, writesStore, type HookOutcome, type HookRunOptions } from './run.ts';
export { appendHookLog, hookLogPath, type HookLogRecord } from './log.ts';
export { AGENT_HOOKS, HOOK_AGENTS, SettingsFileError, hookCommand, installHooks, isOurHandler, lineDiff, uninstallHooks, type HookAgent } from './settings.ts';
export { clearInflight, inflight, inflightPath, markInflight, waitForInflight } from './inflight.ts';
export { listCaptures } from './captures.ts';
export { MCP_FORMATS, SERVER_NAME, installMcpServer, serverArgv, uninstallMcpServer, type McpFormat } from './mcp-config.ts';
