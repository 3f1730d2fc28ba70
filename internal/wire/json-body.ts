import secureJson from 'secure-json-parse';
import { invalid } from '../core/errors';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../core/json-depth';

/**
 * A request body's JSON, whatever the Content-Type said (Flipt's SDK sends `text/plain`). An
 * empty body is an empty message; `__proto__` and `constructor.prototype` keys are refused, and
 * so is nesting deeper than MAX_JSON_DEPTH, before parsing: what reads the value afterwards
 * (JSON.stringify of metadata, OFREP contexts) is recursive. Shared by the Fastify body parser
 * and the evaluation fast lane.
 */
export function parseJsonBody(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === '') return {};
  if (nestsDeeperThan(trimmed)) throw invalid(`request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`);
  try {
    return secureJson.parse(trimmed, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (err) {
    throw invalid(`request body is not valid JSON: ${(err as Error).message}`);
  }
}
