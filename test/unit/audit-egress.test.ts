import type { LookupAddress } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { auditConfigProblems, checkAuditSinks } from '../../internal/audit';
import { egressPolicy, EgressRefused, refusedKind } from '../../internal/audit/egress';
import { loadConfig } from '../../internal/config';

/** Which addresses an audit delivery may reach, checked on the address a host resolves to. */

/** A resolver answering from a table (names a test owns, no network), as dns.lookup answers with `all`. */
function table(entries: Record<string, string[]>): typeof dnsLookup {
  return ((host: string, _options: unknown, callback: (err: Error | null, addresses: LookupAddress[]) => void) => {
    const addresses = entries[host];
    if (!addresses) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }), []);
    callback(null, addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
  }) as unknown as typeof dnsLookup;
}

const lookupAll = (lookup: typeof dnsLookup, host: string) =>
  new Promise<LookupAddress[]>((resolve, reject) => lookup(host, { all: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))));

describe('audit egress', () => {
  it.each([
    ['10.1.2.3', 'private'],
    ['172.31.255.1', 'private'],
    ['192.168.0.10', 'private'],
    ['127.0.0.1', 'loopback'],
    ['127.200.0.1', 'loopback'],
    ['169.254.169.254', 'link-local'],
    ['100.64.0.1', 'shared (carrier-grade NAT)'],
    ['0.0.0.0', 'unspecified'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fd12::1', 'private (unique local)'],
    ['fe80::1', 'link-local'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:a9fe:a9fe', 'link-local'],
    ['64:ff9b::10.0.0.1', 'private'],
  ])('refuses %s (%s)', (address, kind) => {
    expect(refusedKind(address)).toBe(kind);
  });

  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700::1111', '::ffff:8.8.8.8'])('lets %s through', (address) => {
    expect(refusedKind(address)).toBeNull();
  });

  it('an address literal or localhost is refused without resolving, unless its host is listed', () => {
    const policy = egressPolicy(['127.0.0.1']);
    expect(policy.checkLiteral(new URL('http://127.0.0.1:9/'))).toBeNull();
    expect(policy.checkLiteral(new URL('http://localhost:9/'))?.message).toMatch(/loopback name: refused; list "localhost" in audit.sinks.webhook.allowed_hosts/);
    expect(policy.checkLiteral(new URL('http://[::1]:9/'))?.message).toMatch(/loopback address: refused; list "::1"/);
    // WHATWG URLs read 0x7f.1 as 127.0.0.1: the check sees what a connect would.
    expect(policy.checkLiteral(new URL('http://0x7f.1/'))).toBeNull();
    expect(egressPolicy([]).checkLiteral(new URL('http://0x7f.1/'))).toBeInstanceOf(EgressRefused);
  });

  it('the lookup a connection uses hands over only addresses that passed, and refuses a name resolving only to refused ones', async () => {
    const policy = egressPolicy(['inside.test'], table({ 'mixed.test': ['10.0.0.1', '93.184.216.34'], 'rebind.test': ['169.254.169.254'], 'inside.test': ['10.0.0.2'] }));
    expect(await lookupAll(policy.lookup, 'mixed.test')).toEqual([{ address: '93.184.216.34', family: 4 }]);
    await expect(lookupAll(policy.lookup, 'rebind.test')).rejects.toThrow(/rebind.test resolves to 169.254.169.254 \(link-local\): refused; list "rebind.test"/);
    expect(await lookupAll(policy.lookup, 'inside.test')).toEqual([{ address: '10.0.0.2', family: 4 }]);
    // net.connect without `all` takes one address.
    const one = await new Promise<string>((resolve, reject) => policy.lookup('mixed.test', {}, (err, address) => (err ? reject(err) : resolve(address as string))));
    expect(one).toBe('93.184.216.34');
  });

  it('localhost resolved by the system resolver is refused unless listed', async () => {
    await expect(lookupAll(egressPolicy([]).lookup, 'localhost')).rejects.toThrow(/resolves to (127\.0\.0\.1|::1) \(loopback\): refused/);
    expect((await lookupAll(egressPolicy(['localhost']).lookup, 'localhost')).length).toBeGreaterThan(0);
  });

  it('the configuration check names the key; the start check resolves, a name that does not resolve only warns', async () => {
    const { config } = loadConfig({
      env: {
        PENNON_AUDIT_SINKS_WEBHOOK_ENABLED: 'true',
        PENNON_AUDIT_SINKS_WEBHOOK_URL: 'http://10.0.0.7/hook',
        PENNON_AUDIT_SINKS_WEBHOOK_SLACK_ENABLED: 'true',
        PENNON_AUDIT_SINKS_WEBHOOK_SLACK_URL: 'https://rebind.test/x',
      },
    });
    expect(auditConfigProblems(config.audit)).toEqual(['audit.sinks.webhook.url: 10.0.0.7 is a private address: refused; list "10.0.0.7" in audit.sinks.webhook.allowed_hosts to allow it']);
    config.audit.sinks.webhook.allowed_hosts = ['10.0.0.7'];
    expect(auditConfigProblems(config.audit)).toEqual([]);
    await expect(checkAuditSinks(config.audit, table({ 'rebind.test': ['192.168.1.1'] }))).rejects.toThrow(
      /audit.sinks.webhook.slack.url: rebind.test resolves to 192.168.1.1 \(private\): refused; list "rebind.test" in audit.sinks.webhook.allowed_hosts/,
    );
    const { warnings } = await checkAuditSinks(config.audit, table({}));
    expect(warnings).toEqual([expect.stringMatching(/^audit.sinks.webhook.slack.url: rebind.test does not resolve now \(ENOTFOUND\)/)]);
  });
});
