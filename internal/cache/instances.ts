import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Change } from '../storage';
import type { Broadcast } from './types';

/** What instances tell each other: a committed change, or a revoked token. */
type Message = { origin: string; change: Change } | { origin: string; revoked: string };

/** What this instance says: its committed changes and its token revocations, as they happen. */
export interface LocalEvents {
  onChange(listener: (change: Change) => void): () => void;
  onRevoke(listener: (id: string) => void): void;
}

/** What this instance does with what the others say (the composition root wires these). */
export interface RemoteHandlers {
  /** Another instance committed a change. */
  changed(change: Change): void;
  /** Another instance revoked a token. */
  revoked(id: string): void;
  /** The link came back after an outage: messages may have been missed. */
  recovered(): void;
}

/**
 * Links instances through a broadcast channel (Redis pub/sub), so that a write through one
 * reaches the others in milliseconds instead of at their next revision poll: each committed
 * change and each token revocation is published, and what another instance publishes is handed
 * to `remote`. Delivery is best effort — after the channel comes back from an outage every
 * instance polls at once, and the poll remains the guarantee either way.
 */
export function linkInstances(deps: { bus: Broadcast; local: LocalEvents; remote: RemoteHandlers; logger: Logger }): () => void {
  const { bus, local, remote, logger } = deps;
  const origin = randomUUID();
  const unsubscribe = local.onChange((change) => bus.publish(JSON.stringify({ origin, change } satisfies Message)));
  local.onRevoke((id) => bus.publish(JSON.stringify({ origin, revoked: id } satisfies Message)));
  bus.subscribe((text) => {
    let message: Message;
    try {
      message = JSON.parse(text) as Message;
    } catch {
      logger.debug({ text }, 'ignored a malformed cache message');
      return;
    }
    if (message.origin === origin) return;
    if ('change' in message) remote.changed(message.change);
    else if ('revoked' in message) remote.revoked(message.revoked);
  });
  bus.onRecover(() => remote.recovered());
  return unsubscribe;
}
