import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, freePort } from '../support/cli';
import { everyoneGets, testLicence } from '../support/git-fixtures';
import { startGitRemote, type GitRemote } from '../support/git-remote';
import { buildDelivery, TEST_WEBHOOK_SECRET } from '../support/webhook-deliveries';

/**
 * The executable as an operator runs it: a YAML configuration file (`--config`) with a Git
 * storage behind Basic credentials, two environments, the webhook secret and the Git password
 * as `${secret:file:…}` and `${env:…}` references, the licence as a file. A push plus a signed
 * GitHub delivery moves the evaluation answer; polling is hourly, so only the webhook explains it.
 */

const licence = testLicence();
const features = (variant: string) => everyoneGets('shop', variant);

describe('pennon serve with Git environments from a YAML file (the built executable)', () => {
  let remote: GitRemote;
  let dir: string;
  let url: string;
  let child: ReturnType<typeof execa>;
  let stderr = '';

  const evaluate = async (environment?: string) => {
    const res = await fetch(`${url}/evaluate/v1/variant`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(environment && { 'x-flipt-environment': environment }) },
      body: JSON.stringify({ namespaceKey: 'shop', flagKey: 'colour', entityId: 'e1', context: {} }),
    });
    return { status: res.status, body: (await res.json()) as { variantKey?: string; message?: string } };
  };

  beforeAll(async () => {
    remote = await startGitRemote({ authorization: `Basic ${Buffer.from('flags-bot:s3cret-pass').toString('base64')}` });
    remote.commit({ 'prod/shop/features.yaml': features('blue'), 'staging/shop/features.yaml': features('red') });
    dir = mkdtempSync(join(tmpdir(), 'pennon-git-e2e-'));
    mkdirSync(join(dir, 'secrets'));
    writeFileSync(join(dir, 'secrets', 'webhook'), `${TEST_WEBHOOK_SECRET}\n`);
    writeFileSync(join(dir, 'licence.txt'), licence);
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    writeFileSync(
      join(dir, 'pennon.yaml'),
      `server:
  host: 127.0.0.1
  http_port: ${port}
  grpc_port: 0
db:
  url: file:${join(dir, 'pennon.db')}
log:
  level: warn
  encoding: json
secrets:
  providers:
    file:
      base_path: ${join(dir, 'secrets')}
license:
  file: ${join(dir, 'licence.txt')}
credentials:
  git:
    type: basic
    basic:
      username: flags-bot
      password: \${env:GIT_PASSWORD}
storage:
  flags:
    remote: ${remote.url}
    branch: main
    poll_interval: 1h
    credentials: git
    backend:
      type: memory
environments:
  production:
    storage: flags
    directory: prod
    default: true
    scm:
      type: github
      webhook:
        secret: \${secret:file:webhook}
  staging:
    storage: flags
    directory: staging
`,
    );
    child = execa(CLI, ['serve', '--config', join(dir, 'pennon.yaml')], { env: { GIT_PASSWORD: 's3cret-pass' }, extendEnv: false, reject: false });
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const deadline = Date.now() + 15_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`pennon serve exited: ${stderr}`);
      const ok = await fetch(`${url}/health`).then((r) => r.ok, () => false);
      if (ok) break;
      if (Date.now() > deadline) throw new Error(`not healthy in 15 s: ${stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  });

  afterAll(async () => {
    child?.kill('SIGTERM');
    await child;
    await remote?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves each environment from its directory at the first commit, fetched with the credentials', async () => {
    expect((await evaluate()).body.variantKey).toBe('blue');
    expect((await evaluate('production')).body.variantKey).toBe('blue');
    expect((await evaluate('staging')).body.variantKey).toBe('red');
    expect(remote.unauthorized).toBe(0);
  });

  it('a push and a signed GitHub delivery change the evaluation within seconds', async () => {
    remote.commit({ 'prod/shop/features.yaml': features('green') });
    const delivery = buildDelivery('github');
    const res = await fetch(`${url}/api/v2/webhooks/production`, { method: 'POST', headers: delivery.headers, body: new Uint8Array(delivery.body) });
    expect(res.status).toBe(202);
    const deadline = Date.now() + 15_000; // a fetch from a local remote: far less, even on a loaded machine
    let answer = '';
    while ((answer = (await evaluate()).body.variantKey ?? '') !== 'green' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    expect(answer).toBe('green');
    expect((await evaluate('staging')).body.variantKey).toBe('red');
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toMatch(/service_incoming_webhook_requests_total\{environment="production",scm="github",result="accepted"\} 1/);
  });

  it('a wrong signature is refused with 401 and changes nothing', async () => {
    const delivery = buildDelivery('github', { secret: 'not-the-secret' });
    const res = await fetch(`${url}/api/v2/webhooks/production`, { method: 'POST', headers: delivery.headers, body: new Uint8Array(delivery.body) });
    expect(res.status).toBe(401);
  });

  it('reports Git storage in /meta/info and refuses writes with the read-only error', async () => {
    expect(((await (await fetch(`${url}/meta/info`)).json()) as { storage: unknown }).storage).toEqual({ type: 'git', readOnly: true });
    const write = await fetch(`${url}/api/v1/namespaces/shop/flags`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key: 'x', name: 'X' }) });
    expect(write.status).toBe(500);
    expect(await write.json()).toMatchObject({ code: 13, message: 'modification is not allowed in read-only mode' });
  });

  it('refuses to start when the webhook secret resolves to nothing, naming the key', async () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, readFileSync(join(dir, 'pennon.yaml'), 'utf8').replace('${secret:file:webhook}', '${env:UNSET_SECRET}'));
    const result = await execa(CLI, ['serve', '--config', bad], { env: {}, extendEnv: false, reject: false, timeout: 15_000 });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(/environments\.production\.scm\.webhook\.secret: must not be empty/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
