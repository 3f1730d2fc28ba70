import { describe, expect, it } from 'vitest';
import { AuthService, Authenticator } from '../../../internal/auth';
import { UNKNOWN_TTL_MS } from '../../../internal/auth/authenticator';
import type { Store } from '../../../internal/storage';
import { ManualClock } from '../../support/clock';
import { useStore } from '../../support/store';

/**
 * The negative cache over a real store: an unknown token's hash is looked up once per
 * UNKNOWN_TTL_MS; a token created here is known at once even if it was presented before; one
 * created through another instance is refused here for at most UNKNOWN_TTL_MS.
 */

const BOOTSTRAP = { token: 'bootstrap-known-in-advance', expiration: 0, metadata: {} };

/** An instance's token services, wired as the composition root wires them, counting store lookups. */
function instance(store: Store, clock: ManualClock) {
  const counted = { lookups: 0 };
  const authenticator = new Authenticator(store, clock, 1000, null, { onLookup: () => counted.lookups++ });
  const auth = new AuthService(store, clock, (id, hash) => authenticator.revoke(id, hash), (hash) => authenticator.created(hash));
  const status = (token: string) => authenticator.authenticate(`Bearer ${token}`, '10.0.0.1').then(() => 200, () => 401);
  return { authenticator, auth, counted, status };
}

describe('the negative cache of unknown tokens', () => {
  const t = useStore();

  it('looks an unknown token up once per TTL', async () => {
    const clock = new ManualClock('stopped');
    const here = instance(t.store, clock);
    for (let i = 0; i < 5; i++) expect(await here.status('never-issued')).toBe(401);
    expect(here.counted.lookups).toBe(1);
    clock.advance(UNKNOWN_TTL_MS + 1);
    expect(await here.status('never-issued')).toBe(401);
    expect(here.counted.lookups).toBe(2);
  });

  it('forgets a token created here at once, even one presented while unknown', async () => {
    const clock = new ManualClock('stopped');
    const here = instance(t.store, clock);
    expect(await here.status(BOOTSTRAP.token)).toBe(401);
    await here.auth.bootstrap({ enabled: true, bootstrap: BOOTSTRAP, cleanup: { interval: 3_600_000, grace_period: 1_800_000 } });
    expect(await here.status(BOOTSTRAP.token)).toBe(200);
    const created = await here.auth.createToken({ name: 'fresh', description: '', expiresAt: null, namespaceKey: '', metadata: {} });
    expect(await here.status(created.clientToken)).toBe(200);
  });

  it('refuses a token another instance created for at most the TTL, if it was presented here before', async () => {
    const clock = new ManualClock('stopped');
    const here = instance(t.store, clock);
    const elsewhere = instance(t.store, clock);
    expect(await here.status(BOOTSTRAP.token)).toBe(401);
    await elsewhere.auth.bootstrap({ enabled: true, bootstrap: BOOTSTRAP, cleanup: { interval: 3_600_000, grace_period: 1_800_000 } });
    expect(await elsewhere.status(BOOTSTRAP.token)).toBe(200);
    expect(await here.status(BOOTSTRAP.token)).toBe(401);
    clock.advance(UNKNOWN_TTL_MS + 1);
    expect(await here.status(BOOTSTRAP.token)).toBe(200);
  });
});
