import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GrpcClient } from '../../support/grpc-client';
import { handMade, JwksServer, signed, signingKey, type SigningKey } from '../../support/machine-auth';
import { startServer, expectStatus, type TestServer } from '../../support/server';

/**
 * `Authorization: JWT <jwt>` (Flipt's JWT method) against a real server: keys from a JWKS served
 * on loopback (and rotated there), or from a public key file; `validate_claims`; exp/nbf; the
 * algorithms refused; over HTTP, the evaluation fast lane and gRPC.
 */

const ISSUER = 'https://ci.example.com';
const SUBJECT = 'repo:acme/deployer';
const AUDIENCE = 'pennon';
const GRPC_UNAUTHENTICATED = 16;
const GRPC_UNAVAILABLE = 14;

const now = () => Math.floor(Date.now() / 1000);
const good = { iss: ISSUER, sub: SUBJECT, aud: AUDIENCE };

function jwtEnv(extra: Record<string, string>): Record<string, string> {
  return {
    PENNON_AUTHENTICATION_REQUIRED: 'true',
    PENNON_AUTHENTICATION_METHODS_JWT_ENABLED: 'true',
    PENNON_AUTHENTICATION_METHODS_JWT_VALIDATE_CLAIMS_ISSUER: ISSUER,
    PENNON_AUTHENTICATION_METHODS_JWT_VALIDATE_CLAIMS_SUBJECT: SUBJECT,
    PENNON_AUTHENTICATION_METHODS_JWT_VALIDATE_CLAIMS_AUDIENCES: `other ${AUDIENCE}`,
    // The refusals below are the point: the failure limit is rate-limit.test.ts's subject.
    PENNON_AUTHENTICATION_RATE_LIMIT_MAX_FAILURES: '1000',
    ...extra,
  };
}

describe('JWT keys from a JWKS URL', () => {
  let jwks: JwksServer;
  let server: TestServer;
  let rsa: SigningKey;
  let ec: SigningKey;
  let stranger: SigningKey;
  const jwt = (token: string) => server.api.withHeaders({ authorization: `JWT ${token}` });

  beforeAll(async () => {
    [rsa, ec, stranger] = await Promise.all([signingKey('RS256', 'rsa-1'), signingKey('ES256', 'ec-1'), signingKey('RS256', 'rsa-1')]);
    jwks = await JwksServer.start([rsa, ec]);
    server = await startServer(jwtEnv({ PENNON_AUTHENTICATION_METHODS_JWT_JWKS_URL: jwks.url }));
  });
  afterAll(async () => {
    await server?.stop();
    await jwks?.stop();
  });

  it('lists the JWT method as enabled', async () => {
    const { methods } = expectStatus(await server.api.get('/auth/v1/method'), 200);
    expect(methods).toContainEqual({ method: 'METHOD_JWT', enabled: true, sessionCompatible: false });
  });

  it('accepts a valid JWT and describes its identity without storing it', async () => {
    const token = await signed(rsa, { ...good, email: 'deployer@acme.test', name: 'Deployer', groups: ['ops', 'ci'], team: 'platform' });
    const self = expectStatus(await jwt(token).get('/auth/v1/self'), 200);
    expect(self).toMatchObject({ method: 'METHOD_JWT', id: expect.stringMatching(/^jwt:[A-Za-z0-9_-]{43}$/) });
    expect(self.metadata).toMatchObject({
      'io.flipt.auth.jwt.email': 'deployer@acme.test',
      'io.flipt.auth.jwt.name': 'Deployer',
      'io.flipt.auth.jwt.sub': SUBJECT,
      'io.pennon.auth.sub': SUBJECT,
      'io.pennon.auth.groups': '["ops","ci"]',
    });
    expect(JSON.parse(self.metadata['io.pennon.auth.claims'])).toMatchObject({ team: 'platform', iss: ISSUER });
    // Flipt's `user` claim, when the token has one, is where its keys are read.
    const withUser = await signed(ec, { ...good, user: { email: 'u@acme.test', image: 'https://img/u.png', sub: 'u-1' } });
    expect(expectStatus(await jwt(withUser).get('/auth/v1/self'), 200).metadata).toMatchObject({
      'io.flipt.auth.jwt.email': 'u@acme.test',
      'io.flipt.auth.jwt.picture': 'https://img/u.png',
      'io.flipt.auth.jwt.sub': 'u-1',
    });
    // Nothing was stored.
    const admin = expectStatus(await jwt(token).get('/auth/v1/tokens'), 200);
    expect(admin.authentications).toEqual([]);
    // So nothing can be expired: a 400 saying why, not a 200 that changes nothing.
    const expire = await jwt(token).put('/auth/v1/self/expire', {});
    expect(expire.status).toBe(400);
    expect(expire.body.message).toMatch(/^a JWT cannot be expired by Pennon: it ends at its exp claim/);
  });

  it('refuses expired, not yet valid, wrongly addressed and wrongly signed JWTs with 401', async () => {
    const cases: [string, Promise<string>, RegExp][] = [
      ['expired', signed(rsa, { ...good, exp: now() - 120 }), /expired/],
      ['not yet valid', signed(rsa, { ...good, nbf: now() + 300 }), /not valid yet/],
      ['wrong issuer', signed(rsa, { ...good, iss: 'https://evil.example.com' }), /"iss"/],
      ['wrong audience', signed(rsa, { ...good, aud: 'someone-else' }), /"aud"/],
      ['wrong subject', signed(rsa, { ...good, sub: 'repo:acme/other' }), /"sub"/],
      ['no exp', signed(rsa, { ...good, exp: undefined }), /"exp"/],
      ['wrong key, same kid', signed(stranger, good), /signature/],
    ];
    for (const [what, token, reason] of cases) {
      const res = await jwt(await token).get('/auth/v1/self');
      expect(res.status, what).toBe(401);
      expect(res.body).toMatchObject({ code: GRPC_UNAUTHENTICATED, details: [] });
      expect(res.body.message, what).toMatch(reason);
    }
  });

  it('honours exp and nbf within 30 s of clock skew', async () => {
    expect((await jwt(await signed(rsa, { ...good, exp: now() - 10 })).get('/auth/v1/self')).status).toBe(200);
    expect((await jwt(await signed(rsa, { ...good, nbf: now() + 10 })).get('/auth/v1/self')).status).toBe(200);
  });

  it('refuses alg none, HS256 and a bearer scheme for a JWT', async () => {
    const header = { typ: 'JWT', kid: 'rsa-1' };
    const payload = { ...good, exp: now() + 600 };
    const none = handMade({ ...header, alg: 'none' }, payload);
    const { SignJWT } = await import('jose');
    // HS256 keyed by the RSA key's public modulus: the classic confusion attack.
    const hs256 = await new SignJWT(payload).setProtectedHeader({ alg: 'HS256', kid: 'rsa-1' }).sign(new TextEncoder().encode(rsa.jwk.n!));
    for (const token of [none, hs256]) {
      const res = await jwt(token).get('/auth/v1/self');
      expect(res.status).toBe(401);
      expect(res.body.message).toMatch(/algorithm is not accepted/);
    }
    const valid = await signed(rsa, good);
    expect((await server.api.withHeaders({ authorization: `Bearer ${valid}` }).get('/auth/v1/self')).status).toBe(401);
    expect((await server.api.withHeaders({ authorization: `jwt ${valid}` }).get('/auth/v1/self')).status).toBe(401);
  });

  it('authenticates on the fast lane and over gRPC', async () => {
    const token = await signed(ec, good);
    expectStatus(await jwt(token).post('/api/v1/namespaces/default/flags', { key: 'jwt-flag', name: 'JWT flag', type: 'BOOLEAN_FLAG_TYPE', enabled: true }), 200);
    const evaluation = { namespaceKey: 'default', flagKey: 'jwt-flag', entityId: 'e1', context: {} };
    const lane = await jwt(token).post('/evaluate/v1/boolean', evaluation);
    expect(lane.status).toBe(200);
    expect(lane.body).toMatchObject({ enabled: true, flagKey: 'jwt-flag' });
    const refused = await jwt(await signed(stranger, good)).post('/evaluate/v1/boolean', evaluation);
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ code: GRPC_UNAUTHENTICATED });

    const grpc = new GrpcClient(server.service.grpcPort);
    try {
      const flag = await grpc.call('flipt.Flipt/GetFlag', { namespaceKey: 'default', key: 'jwt-flag' }, { authorization: `JWT ${token}` });
      expect(flag).toMatchObject({ key: 'jwt-flag' });
      const answer = await grpc.call('flipt.evaluation.EvaluationService/Boolean', evaluation, { authorization: `JWT ${token}` });
      expect(answer).toMatchObject({ enabled: true });
      const bad = await grpc.fails('flipt.Flipt/GetFlag', { namespaceKey: 'default', key: 'jwt-flag' }, { authorization: `JWT ${await signed(rsa, { ...good, iss: 'x' })}` });
      expect(bad.code).toBe(GRPC_UNAUTHENTICATED);
    } finally {
      grpc.close();
    }
  });

  it('follows key rotation: a new kid is fetched at its first token, a removed kid is refused after that', async () => {
    const next = await signingKey('ES512', 'ec-2');
    jwks.publish([next]); // rsa-1 and ec-1 retired
    // jose fetches again for an unknown kid at most once a second (remote-keys.ts COOLDOWN_MS).
    await new Promise((r) => setTimeout(r, 1100));
    const before = jwks.requests;
    expect((await jwt(await signed(next, good)).get('/auth/v1/self')).status).toBe(200);
    expect(jwks.requests).toBe(before + 1);
    // A token signed by a retired key (one not verified before: verified tokens are kept 10 s).
    const retired = await jwt(await signed(rsa, { ...good, jti: 'after-rotation' })).get('/auth/v1/self');
    expect(retired.status).toBe(401);
    expect(retired.body.message).toMatch(/unknown key/);
    jwks.publish([rsa, ec]);
  });
});

describe('JWT keys from a public key file', () => {
  let server: TestServer;
  let key: SigningKey;
  let dir: string;

  beforeAll(async () => {
    key = await signingKey('EdDSA', 'file');
    dir = mkdtempSync(join(tmpdir(), 'pennon-jwt-'));
    const file = join(dir, 'issuer.pem');
    writeFileSync(file, key.pem);
    server = await startServer(jwtEnv({ PENNON_AUTHENTICATION_METHODS_JWT_PUBLIC_KEY_FILE: file }));
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('accepts a JWT signed by the key and refuses others', async () => {
    const jwt = (token: string) => server.api.withHeaders({ authorization: `JWT ${token}` });
    expect((await jwt(await signed(key, good)).get('/auth/v1/self')).status).toBe(200);
    const other = await signingKey('EdDSA', 'file');
    expect((await jwt(await signed(other, good)).get('/auth/v1/self')).status).toBe(401);
    // The key is Ed25519: an RSA-signed token is refused by its algorithm, before any key is tried.
    const rsa = await signingKey('RS256', 'file');
    expect((await jwt(await signed(rsa, good)).get('/auth/v1/self')).body.message).toMatch(/algorithm/);
  });

  it('fails the start naming the key when the file is unusable', async () => {
    const privatePem = join(dir, 'private.pem');
    const { exportPKCS8 } = await import('jose');
    writeFileSync(privatePem, await exportPKCS8(key.privateKey));
    const garbage = join(dir, 'garbage.pem');
    writeFileSync(garbage, 'not a key');
    for (const [file, reason] of [
      [privatePem, /public_key_file: .* holds a private key/],
      [garbage, /public_key_file: .* is not a PEM public key/],
      [join(dir, 'missing.pem'), /public_key_file: cannot read .*ENOENT/],
    ] as const) {
      await expect(startServer(jwtEnv({ PENNON_AUTHENTICATION_METHODS_JWT_PUBLIC_KEY_FILE: file }))).rejects.toThrow(reason);
    }
  });
});

describe('a JWKS that cannot be fetched', () => {
  let server: TestServer;

  beforeAll(async () => {
    // A port that was free a moment ago and has nothing listening.
    const probe = createServer();
    await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done));
    const port = (probe.address() as { port: number }).port;
    await new Promise((done) => probe.close(done));
    server = await startServer(jwtEnv({ PENNON_AUTHENTICATION_METHODS_JWT_JWKS_URL: `http://127.0.0.1:${port}/jwks.json` }));
  });
  afterAll(async () => server?.stop());

  it('answers 503 at once over HTTP and UNAVAILABLE over gRPC, naming the key source', async () => {
    const key = await signingKey('RS256', 'rsa-1');
    const token = await signed(key, good);
    const started = performance.now();
    const res = await server.api.withHeaders({ authorization: `JWT ${token}` }).get('/auth/v1/self');
    expect(performance.now() - started).toBeLessThan(2000);
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ code: GRPC_UNAVAILABLE, message: expect.stringMatching(/jwks_url: the keys at http:\/\/127\.0\.0\.1:\d+\/jwks\.json cannot be fetched \(ECONNREFUSED\)/) });
    const grpc = new GrpcClient(server.service.grpcPort);
    try {
      const failure = await grpc.fails('flipt.Flipt/ListNamespaces', {}, { authorization: `JWT ${token}` });
      expect(failure.code).toBe(GRPC_UNAVAILABLE);
    } finally {
      grpc.close();
    }
  });
});
