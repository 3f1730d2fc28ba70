/**
 * Sent with every request the dashboard makes, so the audit trail files its changes under the
 * source `dashboard` rather than `api` (the server reads it in internal/server/audit-origin.ts,
 * CLIENT_HEADER). A file of its own: http.ts, live.ts and metrics.ts each fetch, and metrics.ts
 * is also type-checked under Node's types by the unit tests, so it takes nothing browser-only.
 */
export const CLIENT_HEADERS: Readonly<Record<string, string>> = Object.freeze({ 'x-pennon-client': 'dashboard' });
