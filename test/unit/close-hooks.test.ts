import { describe, expect, it } from 'vitest';
import { CloseHooks } from '../../internal/service/close-hooks';

/** The service's one ordered shutdown (internal/service/close-hooks.ts). */
describe('CloseHooks', () => {
  it('closes the last part built first', async () => {
    const closed: string[] = [];
    const hooks = new CloseHooks();
    for (const name of ['tracing', 'database', 'cache', 'poller']) hooks.add(name, () => void closed.push(name));
    expect(hooks.order()).toEqual(['poller', 'cache', 'database', 'tracing']);
    await hooks.close();
    expect(closed).toEqual(['poller', 'cache', 'database', 'tracing']);
  });

  it('runs every hook when one fails, awaiting each, and then throws the first failure', async () => {
    const closed: string[] = [];
    const hooks = new CloseHooks();
    hooks.add('database', async () => {
      await Promise.resolve();
      closed.push('database');
    });
    hooks.add('cache', () => {
      throw new Error('redis will not close');
    });
    hooks.add('poller', () => {
      throw new Error('second failure');
    });
    await expect(hooks.close()).rejects.toThrow('second failure');
    expect(closed).toEqual(['database']);
  });

  it('closes once however often it is asked, and refuses a part registered after', async () => {
    let runs = 0;
    const hooks = new CloseHooks();
    hooks.add('database', () => void runs++);
    await Promise.all([hooks.close(), hooks.close()]);
    await hooks.close();
    expect(runs).toBe(1);
    expect(() => hooks.add('late', () => undefined)).toThrow(/registered after the service began to close/);
  });
});
