export { HttpApi, ApiError, type ApiClientOptions } from './http';
export { fetchFlagData, flagFromJson, segmentFromJson, ruleFromJson, rolloutFromJson } from './resources';
export { HttpStore, type HttpStoreMethods } from './store';
export { bulkImportPath, hasBulkImport, sendBulkImport, type BulkAnswer, type BulkRequest } from './bulk';
