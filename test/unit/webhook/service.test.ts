import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { Metrics } from '../../../internal/telemetry';
import { webhookService, type WebhookEnvironment } from '../../../internal/webhook';
import { buildDelivery, TEST_WEBHOOK_SECRET } from '../../support/webhook-deliveries';

/**
 * The webhook as a service, without HTTP: one delivery in, one verdict out; a fetch scheduled
 * only for an authentic push to the tracked branch; every delivery counted, its reason logged
 * and never in the verdict. (Over HTTP, with a real Git remote: test/integration/webhook.)
 */

/** A repository whose fetches the test finishes: `finish(error)` settles the oldest one. */
function repository(branch = 'main') {
  const pending: ((result: { error: unknown }) => void)[] = [];
  return {
    key: 'flags',
    branch,
    requests: 0,
    requestSync() {
      this.requests += 1;
      return new Promise<{ error: unknown }>((resolve) => pending.push(resolve));
    },
    finish(error: unknown = null) {
      pending.shift()!({ error });
    },
  };
}

function setup(environments: WebhookEnvironment[]) {
  const lines: { level: number; msg: string; reason?: string; environment?: string }[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  const metrics = new Metrics('test', { defaultMetrics: false });
  const service = webhookService({ environments: new Map(environments.map((e) => [e.name, e])), metrics, logger });
  const series = async (name: string) =>
    (await metrics.text())
      .split('\n')
      .filter((line) => line.startsWith(`test_${name}{`))
      .sort();
  return { service, lines, series };
}

const withSecret = (name: string, repo: ReturnType<typeof repository>): WebhookEnvironment => ({
  name,
  scm: { type: 'github', webhook: { secret: TEST_WEBHOOK_SECRET } },
  repository: repo,
});

describe('webhookService.deliver', () => {
  it('accepts an authentic push to the tracked branch: one fetch scheduled, its duration counted once it ends', async () => {
    const repo = repository();
    const { service, series } = setup([withSecret('prod', repo)]);
    const delivery = buildDelivery('github');
    expect(service.deliver({ environment: 'prod', headers: delivery.headers, body: delivery.body })).toEqual({ result: 'accepted' });
    expect(repo.requests).toBe(1);
    expect(await series('incoming_webhook_requests_total')).toEqual(['test_incoming_webhook_requests_total{environment="prod",scm="github",result="accepted"} 1']);
    expect(await series('incoming_webhook_sync_duration_seconds_count')).toEqual([]);
    repo.finish();
    await new Promise((resolve) => setImmediate(resolve));
    expect(await series('incoming_webhook_sync_duration_seconds_count')).toEqual(['test_incoming_webhook_sync_duration_seconds_count{environment="prod",scm="github"} 1']);
    expect(await series('incoming_webhook_fetch_errors_total')).toEqual([]);
  });

  it('counts a scheduled fetch that failed, and says polling remains', async () => {
    const repo = repository();
    const { service, series, lines } = setup([withSecret('prod', repo)]);
    const delivery = buildDelivery('github');
    service.deliver({ environment: 'prod', headers: delivery.headers, body: delivery.body });
    repo.finish(new Error('remote unreachable'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(await series('incoming_webhook_fetch_errors_total')).toEqual(['test_incoming_webhook_fetch_errors_total{environment="prod",scm="github"} 1']);
    expect(lines.some((l) => l.msg === 'the fetch scheduled by a webhook failed (polling remains the fallback)')).toBe(true);
  });

  it('answers an unknown environment, one without a secret and a bad signature alike, fetching nothing; the reason only in the log', async () => {
    const repo = repository();
    const bare: WebhookEnvironment = { name: 'bare', repository: repo };
    const { service, series, lines } = setup([withSecret('prod', repo), bare]);
    const good = buildDelivery('github');
    const forged = buildDelivery('github', { secret: 'not-the-secret' });
    const verdicts = [
      service.deliver({ environment: 'nowhere', headers: good.headers, body: good.body }),
      service.deliver({ environment: 'bare', headers: good.headers, body: good.body }),
      service.deliver({ environment: 'prod', headers: forged.headers, body: forged.body }),
    ];
    expect(verdicts).toEqual([{ result: 'unauthorized' }, { result: 'unauthorized' }, { result: 'unauthorized' }]);
    expect(repo.requests).toBe(0);
    expect(await series('incoming_webhook_requests_total')).toEqual([
      'test_incoming_webhook_requests_total{environment="prod",scm="github",result="unauthorized"} 1',
      'test_incoming_webhook_requests_total{environment="unknown",scm="unknown",result="not_found"} 2',
    ]);
    const refusal = lines.find((l) => l.msg === 'webhook refused: not authenticated');
    expect(refusal?.reason).toMatch(/X-Hub-Signature-256 does not match/);
  });

  it('ignores a push to another branch and refuses a malformed authentic delivery, fetching nothing', async () => {
    const repo = repository('production');
    const { service } = setup([withSecret('prod', repo)]);
    const elsewhere = buildDelivery('github', { branch: 'main' });
    const malformed = buildDelivery('github', { body: '{"ref": ' });
    expect(service.deliver({ environment: 'prod', headers: elsewhere.headers, body: elsewhere.body })).toEqual({ result: 'ignored' });
    expect(service.deliver({ environment: 'prod', headers: malformed.headers, body: malformed.body })).toEqual({ result: 'invalid' });
    expect(repo.requests).toBe(0);
  });
});
