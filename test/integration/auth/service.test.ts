import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuthService, Authenticator, hashToken } from '../../../internal/auth';
import { PennonError, type Clock } from '../../../internal/core';
import { openDatabase, prepareSchema, storeFor, type Connection, type Store } from '../../../internal/storage';

/** A clock the test moves by hand (microseconds). */
function manualClock(start = Date.now() * 1000): Clock & { advance(ms: number): void; now: number } {
  return {
    now: start,
    nowMicros() {
      return (this.now += 1);
    },
    advance(ms: number) {
      this.now += ms * 1000;
    },
  };
}

describe('tokens against a real database (AuthService, Authenticator)', () => {
  let dir: string;
  let conn: Connection;
  let store: Store;
  let clock: ReturnType<typeof manualClock>;
  let service: AuthService;
  let authenticator: Authenticator;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pennon-auth-'));
    conn = openDatabase(`file:${join(dir, 'db.sqlite')}`);
    await prepareSchema(conn);
    clock = manualClock();
    store = storeFor(conn, clock);
    authenticator = new Authenticator(store, clock, 60_000);
    service = new AuthService(store, clock, (id) => authenticator.revoke(id));
  });
  afterEach(async () => {
    await conn.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const token = (name: string, expiresInMs: number | null) =>
    service.createToken({ name, description: '', namespaceKey: '', metadata: {}, expiresAt: expiresInMs === null ? null : clock.now + expiresInMs * 1000 });

  it('cleanup deletes exactly the tokens expired for longer than the grace period', async () => {
    const soon = await token('expires in 1 min', 60_000);
    const later = await token('expires in 10 min', 600_000);
    const never = await token('never expires', null);
    clock.advance(60_000 + 29 * 60_000); // `soon` expired 29 minutes ago: inside a 30 min grace
    expect(await service.cleanup(30 * 60_000)).toBe(0);
    clock.advance(2 * 60_000); // now 31 minutes past its expiry
    expect(await service.cleanup(30 * 60_000)).toBe(1);
    expect(await store.getAuthentication(soon.authentication.id)).toBeNull();
    expect(await store.getAuthentication(later.authentication.id)).not.toBeNull(); // expired 22 min ago
    expect(await store.getAuthentication(never.authentication.id)).not.toBeNull();
    // Running it again (another instance, say) finds nothing more to do.
    expect(await service.cleanup(30 * 60_000)).toBe(0);
  });

  it('refuses an expired token even while its lookup is cached', async () => {
    const t = await token('short', 1000);
    expect((await authenticator.authenticate(`Bearer ${t.clientToken}`)).id).toBe(t.authentication.id);
    clock.advance(1001);
    await expect(authenticator.authenticate(`Bearer ${t.clientToken}`)).rejects.toThrow(PennonError);
  });

  it('refuses a token deleted through this instance at once, despite a long cache', async () => {
    const t = await token('deleted', null);
    await authenticator.authenticate(`Bearer ${t.clientToken}`);
    await service.delete(t.authentication.id);
    await expect(authenticator.authenticate(`Bearer ${t.clientToken}`)).rejects.toMatchObject({ kind: 'unauthenticated' });
  });

  it('refuses a token deleted elsewhere once the cache entry ages out (the documented bound)', async () => {
    const short = new Authenticator(store, clock, 50); // the bound, shortened for the test
    const t = await token('deleted elsewhere', null);
    await short.authenticate(`Bearer ${t.clientToken}`);
    await store.deleteAuthentication(t.authentication.id); // not through this service: no revoke
    clock.advance(49);
    await expect(short.authenticate(`Bearer ${t.clientToken}`)).resolves.toMatchObject({ id: t.authentication.id }); // still cached
    clock.advance(2);
    await expect(short.authenticate(`Bearer ${t.clientToken}`)).rejects.toMatchObject({ kind: 'unauthenticated' });
  });

  it('requests arriving together after the cached lookup ages out share one database read', async () => {
    let reads = 0;
    const counted = new Proxy(store, {
      get: (target, field, receiver) =>
        field === 'getAuthenticationByHash'
          ? (hash: string) => {
              reads++;
              return target.getAuthenticationByHash(hash);
            }
          : Reflect.get(target, field, receiver),
    });
    const shared = new Authenticator(counted, clock, 1000);
    const t = await token('busy', null);
    const burst = () => Promise.all(Array.from({ length: 50 }, () => shared.authenticate(`Bearer ${t.clientToken}`)));
    expect((await burst()).every((a) => a.id === t.authentication.id)).toBe(true);
    expect(reads).toBe(1);
    clock.advance(1001);
    await burst();
    expect(reads).toBe(2);
  });

  it('bootstraps once: from the configured token, else a random one', async () => {
    const config = { enabled: true, bootstrap: { token: 's3cret-bootstrap', expiration: 3_600_000, metadata: { Team: 'ops' } }, cleanup: { interval: 1, grace_period: 1 } };
    const first = await service.bootstrap(config);
    expect(first).toMatchObject({ created: true, token: null });
    const stored = await store.getAuthenticationByHash(hashToken('s3cret-bootstrap'));
    expect(stored?.metadata).toEqual({
      team: 'ops',
      'io.flipt.auth.token.name': 'initial_bootstrap_token',
      'io.flipt.auth.token.description': 'Initial token created when bootstrapping authentication',
    });
    expect(stored?.expiresAt).toBeGreaterThan(clock.now + 3_599_000_000);
    expect(await service.bootstrap(config)).toEqual({ created: false });
  });

  it('rejects bad token requests with the field named', async () => {
    await expect(service.createToken({ name: '', description: '', namespaceKey: '', metadata: {}, expiresAt: null })).rejects.toThrow('invalid field name: must not be empty');
    await expect(token('past', -1)).rejects.toThrow('invalid field expiresAt: must be in the future');
  });
});
