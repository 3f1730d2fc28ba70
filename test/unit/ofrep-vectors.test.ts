import { describe, expect, it } from 'vitest';
import { PennonError } from '../../internal/core';
import { bridgeInput, bulkFlags, ofrepError, ofrepFlag } from '../../internal/server/wire/ofrep';
import { loadVectors } from '../support/vectors';

/**
 * The OFREP vectors that describe Flipt's request/response mapping with a mocked evaluation
 * ("bridge"): the same mapping functions the OFREP routes use, fed the mocked outputs.
 */
const vectors = loadVectors();
const transforms = vectors.cases.filter((c) => c.kind === 'ofrepTransform');
const errors = vectors.cases.filter((c) => c.kind === 'ofrepError');

const KIND: Record<string, PennonError['kind']> = {
  ErrInvalid: 'invalid',
  InvalidArgument: 'invalid',
  ErrNotFound: 'not_found',
  NotFound: 'not_found',
  Unauthenticated: 'unauthenticated',
  PermissionDenied: 'forbidden',
  other: 'internal',
};

describe('OFREP request and response mapping (vectors)', () => {
  it.each(transforms)('$id', (c) => {
    const input = bridgeInput(c.input.headers, { context: c.input.context });
    if (c.surface === 'ofrep') {
      expect({ flagKey: c.input.key, ...input, context: { ...input.context } }).toEqual(c.expect.bridgeInput);
      expect(ofrepFlag(c.input.key, c.input.bridgeOutput)).toEqual(c.expect.response);
      return;
    }
    const store = (c.input.storeFlags ?? []).map((f: { key: string; type: string; enabled: boolean }) => ({ ...f, type: `${f.type}_FLAG_TYPE` }));
    const keys = bulkFlags(input.context, store);
    expect(keys.map((flagKey) => ({ flagKey, ...input, context: { ...input.context } }))).toEqual(c.expect.bridgeInputs);
    expect({ flags: keys.map((k) => ofrepFlag(k, c.input.bridgeOutputs[k])) }).toEqual(c.expect.response);
  });
});

describe('OFREP errors (vectors)', () => {
  it.each(errors)('$id', (c) => {
    const input = c.input;
    const source = input.bridgeError ?? (input.grpcCode ? { class: input.grpcCode, message: input.message } : { class: 'ErrInvalid', message: 'flag key was not provided' });
    const key = input.key ?? input.flagKeyDetail ?? undefined;
    const { status, body } = ofrepError(new PennonError(KIND[source.class], source.message), key === '' ? undefined : key);
    if (c.expect.bodyExact) {
      expect(status).toBe(c.expect.httpStatus);
      expect(body).toBe(c.expect.bodyExact);
    } else if (c.expect.passthrough) {
      // Flipt passes an internal error's text through; Pennon answers 500 GENERAL without it.
      expect(status).toBe(c.derived.httpStatus);
      expect(JSON.parse(body)).toEqual({ errorCode: 'GENERAL', errorDetails: 'internal error' });
    } else {
      expect(status).toBe(c.derived.httpStatus);
      expect(JSON.parse(body)).toEqual(c.derived.body);
    }
  });
});
