import { describe, expect, it } from 'vitest';
import { PennonError } from '../../internal/core';
import { ofrepError } from '../../internal/server/errors';
import { bridgeInput, bulkFlags, ofrepFlag } from '../../internal/wire';
import { loadOfrep } from '../support/vectors';

/**
 * The OFREP cases that describe Flipt's request/response mapping with a mocked evaluation
 * ("bridge"): the same mapping functions the OFREP routes use, fed the mocked outputs.
 */
const { mapping, errors } = loadOfrep();

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
  it.each(mapping.map((c) => [c.source, c] as const))('%s', (_source, c) => {
    const input = bridgeInput(c.headers, { context: c.context });
    if (c.call === 'single') {
      expect([{ flagKey: c.flagKey, ...input, context: { ...input.context } }]).toEqual(c.asks);
      expect(ofrepFlag(c.flagKey!, c.evaluated)).toEqual(c.response);
      return;
    }
    const store = (c.storeFlags ?? []).map((f) => ({ ...f, type: `${f.type.toUpperCase()}_FLAG_TYPE` }));
    const keys = bulkFlags(input.context, store);
    expect(keys.map((flagKey) => ({ flagKey, ...input, context: { ...input.context } }))).toEqual(c.asks);
    expect({ flags: keys.map((k) => ofrepFlag(k, c.evaluated[k])) }).toEqual(c.response);
  });
});

describe('OFREP errors (vectors)', () => {
  it.each(errors.map((c) => [`${c.source}: ${c.raised?.class ?? 'nothing raised'}`, c] as const))('%s', (_title, c) => {
    // Nothing raised below: the OFREP layer itself refuses the empty key.
    const raised = c.raised ?? { class: 'ErrInvalid', message: 'flag key was not provided' };
    const { status, body } = ofrepError(new PennonError(KIND[raised.class], raised.message), c.flagKey || undefined);
    expect(status).toBe(c.status);
    if (c.bodyText !== undefined) expect(body).toBe(c.bodyText);
    // Flipt passes an internal error's text through; Pennon answers 500 GENERAL without it.
    else if (c.internalText) expect(JSON.parse(body)).toEqual({ errorCode: 'GENERAL', errorDetails: 'internal error' });
    else expect(JSON.parse(body)).toEqual(c.body);
  });
});
