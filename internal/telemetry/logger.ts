import pino, { type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';
import type { LogConfig } from '../config';

/**
 * pino, configured from `log.*`. The console encoding goes through pino-pretty as a plain
 * stream (no worker-thread transport, which cannot load modules inside the single executable).
 */
export function createLogger(config: LogConfig): Logger {
  const destination: DestinationStream =
    config.file !== '' ? pino.destination({ dest: config.file, mkdir: true, sync: false }) : pino.destination(1);
  const stream =
    config.encoding === 'console'
      ? pretty({ destination, colorize: config.file === '' && process.stdout.isTTY, translateTime: 'SYS:standard', ignore: 'pid,hostname' })
      : destination;
  return pino({ level: config.level, base: undefined, timestamp: pino.stdTimeFunctions.isoTime }, stream);
}

/** For tests and commands that must stay quiet. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
