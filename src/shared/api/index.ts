export { API_METHODS, API_EVENTS, isApiMethod, ipcChannel, IPC_EVENT_CHANNEL, type ApiMethod, type ApiEventName } from './methods.ts';
export * from './contract.ts';
export type { ApiEvent, ApiEvents, EmbedProgress, ModelDownloadProgress } from './events.ts';
export type { ContextPackBridge } from './bridge.ts';
export { fieldIssues } from './issues.ts';
export { CONTENT_SECURITY_POLICY, META_CONTENT_SECURITY_POLICY, TOKEN_HEADER } from './security.ts';
