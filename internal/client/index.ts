export { HttpApi, ApiError, type ApiClientOptions } from './http';
export { fetchFlagData } from './flag-data';
export { HttpStore, type HttpStoreMethods } from './store';
export { bulkImportPath, hasBulkImport, isMissingRoute, sendBulkImport, streamBulkExport, type BulkAnswer, type BulkRequest } from './bulk';
export { auditEventsPath, fetchAuditEvents, type AuditRequest } from './audit';
