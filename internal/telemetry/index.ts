export { createLogger, silentLogger } from './logger';
