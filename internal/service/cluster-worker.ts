import cluster from 'node:cluster';
import type { Broadcast } from '../cache';
import type { WebhookEnvironment } from '../webhook';
import { WORKER_INDEX, WORKER_LISTENS_WHEN_READY, type FromWorker, type ToWorker } from './cluster-messages';

/**
 * This process's part in a cluster of workers (cluster.ts), or null when it is not a worker. The
 * other workers are reached through the supervisor: `bus` is cache/instances.ts's broadcast
 * channel over IPC (what Redis pub/sub is between instances), `combinedScrape` asks for every
 * worker's metrics at once.
 */
export interface WorkerRole {
  index: number;
  /** Worker 0: runs the jobs that must run once (token cleanup). */
  leader: boolean;
  /** Other workers serve already: open the ports only once ready (serve.ts's listenWhenReady). */
  listenWhenReady: boolean;
  bus: Broadcast;
  /** Every worker's scrape, combined by the supervisor. */
  combinedScrape(): Promise<string>;
  /** How this worker renders its own scrape when the supervisor asks. */
  renderWith(render: () => Promise<string>): void;
  /** Called once when the supervisor asks this worker to drain and exit. */
  onStop(handler: () => void): void;
  /** Tells the supervisor this worker serves. */
  ready(): void;
}

/** How long a scrape waits for the combined answer before answering this worker's own alone. */
const COMBINED_WAIT_MS = 3000;

export function workerRole(): WorkerRole | null {
  if (!cluster.isWorker || process.env[WORKER_INDEX] === undefined) return null;
  const index = Number(process.env[WORKER_INDEX]);
  const say = (message: FromWorker) => {
    if (process.connected) process.send!(message);
  };
  const subscribers: ((text: string) => void)[] = [];
  const scrapes = new Map<number, (text: string | null) => void>();
  let nextScrape = 0;
  let render: (() => Promise<string>) | null = null;
  let stop: (() => void) | null = null;
  let stopAsked = false;

  process.on('message', (message: ToWorker) => {
    switch (message?.pennon) {
      case 'broadcast':
        for (const subscriber of subscribers) subscriber(message.text);
        return;
      case 'render':
        if (render) render().then((text) => say({ pennon: 'rendered', id: message.id, text }), () => undefined);
        return;
      case 'scraped':
        scrapes.get(message.id)?.(message.text);
        return;
      case 'stop':
        if (stopAsked) return;
        stopAsked = true;
        stop?.();
        return;
    }
  });

  return {
    index,
    leader: index === 0,
    listenWhenReady: process.env[WORKER_LISTENS_WHEN_READY] === '1',
    bus: {
      publish: (text) => say({ pennon: 'broadcast', text }),
      subscribe: (handler) => void subscribers.push(handler),
      // IPC to the supervisor does not drop messages while both live: nothing to recover from.
      onRecover: () => undefined,
    },
    combinedScrape: () =>
      new Promise((resolve, reject) => {
        const id = nextScrape++;
        const timer = setTimeout(() => answered(null), COMBINED_WAIT_MS);
        const answered = (text: string | null) => {
          clearTimeout(timer);
          scrapes.delete(id);
          if (text !== null) resolve(text);
          else if (render) render().then(resolve, reject); // the supervisor did not answer: this worker's own
          else reject(new Error('no scrape'));
        };
        scrapes.set(id, answered);
        say({ pennon: 'scrape', id });
      }),
    renderWith: (how) => void (render = how),
    onStop: (handler) => {
      stop = handler;
      if (stopAsked) handler();
    },
    ready: () => say({ pennon: 'ready' }),
  };
}

/**
 * A webhook delivery reaches one worker; the fetch it schedules must happen in every worker (each
 * holds its own copy of the repository). The environments handed to the webhook service tell the
 * other workers, which fetch too; without this they would catch up only at their next poll.
 */
export function relayWebhookSyncs(environments: ReadonlyMap<string, WebhookEnvironment>, bus: Broadcast): ReadonlyMap<string, WebhookEnvironment> {
  bus.subscribe((text) => {
    let message: { gitSync?: unknown };
    try {
      message = JSON.parse(text) as { gitSync?: unknown };
    } catch {
      return;
    }
    if (typeof message.gitSync === 'string') void environments.get(message.gitSync)?.repository.requestSync();
  });
  const relayed = new Map<string, WebhookEnvironment>();
  for (const [name, environment] of environments) {
    const { repository } = environment;
    relayed.set(name, {
      name: environment.name,
      scm: environment.scm,
      repository: {
        key: repository.key,
        branch: repository.branch,
        requestSync: () => {
          bus.publish(JSON.stringify({ gitSync: name }));
          return repository.requestSync();
        },
      },
    });
  }
  return relayed;
}
