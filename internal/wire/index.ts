// Flipt's JSON both ways, and the route table. No Node APIs, and core's modules rather than its
// index (its clock imports node:crypto): the dashboard bundles this room, and `tsc -p web`
// checks it under DOM-only types.
export * from './types';
export * from './encode';
export * from './decode';
export { Fields } from './fields';
export { parseJsonBody } from './json-body';
export * from './evaluation';
export * from './ofrep';
export * from './routes';
export * from './events';
export * from './audit';
