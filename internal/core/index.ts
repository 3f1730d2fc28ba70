export * from './errors';
export * from './types';
export * from './clock';
export * from './goparse';
export * from './build-info';
export * from './json-depth';
export * from './audit';
