import secureJson from 'secure-json-parse';
import { invalid } from '../../core';

/**
 * A request body's JSON, whatever the Content-Type said (Flipt's SDK sends `text/plain`). An
 * empty body is an empty message; `__proto__` and `constructor.prototype` keys are refused.
 * Shared by the Fastify body parser and the evaluation fast lane.
 */
export function parseJsonBody(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === '') return {};
  try {
    return secureJson.parse(trimmed, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (err) {
    throw invalid(`request body is not valid JSON: ${(err as Error).message}`);
  }
}
