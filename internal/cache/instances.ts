import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Authenticator } from '../auth';
import type { SnapshotCache } from '../snapshots';
import type { Change, Store } from '../storage';
import type { Broadcast } from './types';

/** What instances tell each other: a committed change, or a revoked token. */
type Message = { origin: string; change: Change } | { origin: string; revoked: string };

/**
 * Links instances through a broadcast channel (Redis pub/sub), so that a write through one
 * reaches the others' snapshots in milliseconds instead of at their next revision poll:
 * each committed change is published; a change heard from another instance is applied like
 * a local one (a patch when the revisions line up) and loaded at once. Token revocations
 * travel the same way. Delivery is best effort — after the channel comes back from an outage
 * every instance polls at once, and the poll remains the guarantee either way.
 */
export function linkInstances(deps: {
  bus: Broadcast;
  store: Pick<Store, 'onChange'>;
  snapshots: SnapshotCache;
  authenticator: Authenticator;
  logger: Logger;
}): () => void {
  const { bus, snapshots, authenticator, logger } = deps;
  const origin = randomUUID();
  const unsubscribe = deps.store.onChange((change) => bus.publish(JSON.stringify({ origin, change } satisfies Message)));
  authenticator.onRevoke((id) => bus.publish(JSON.stringify({ origin, revoked: id } satisfies Message)));
  bus.subscribe((text) => {
    let message: Message;
    try {
      message = JSON.parse(text) as Message;
    } catch {
      logger.debug({ text }, 'ignored a malformed cache message');
      return;
    }
    if (message.origin === origin) return;
    if ('change' in message) {
      snapshots.apply(message.change);
      snapshots.refreshSoon(message.change.ns);
    } else if ('revoked' in message) {
      authenticator.forget(message.revoked);
    }
  });
  bus.onRecover(() => void snapshots.poll());
  return unsubscribe;
}
