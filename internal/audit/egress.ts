import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/**
 * Where audit deliveries may go (issue 20, item 5). A sink's URL names a host; the service must
 * not become a way into the network it runs in (cloud metadata at 169.254.169.254, a database
 * on 10.x, the service itself on loopback), so every address a host resolves to is checked, and
 * the connection is made to an address that passed — never resolved again between the check and
 * the connect (DNS rebinding). Hosts listed in `audit.sinks.webhook.allowed_hosts` are exempt:
 * a receiver inside the network is a choice the operator writes down.
 */

const RANGES: [string, number, 'ipv4' | 'ipv6', string][] = [
  ['0.0.0.0', 8, 'ipv4', 'unspecified'],
  ['10.0.0.0', 8, 'ipv4', 'private'],
  ['100.64.0.0', 10, 'ipv4', 'shared (carrier-grade NAT)'],
  ['127.0.0.0', 8, 'ipv4', 'loopback'],
  ['169.254.0.0', 16, 'ipv4', 'link-local'],
  ['172.16.0.0', 12, 'ipv4', 'private'],
  ['192.0.0.0', 24, 'ipv4', 'IETF protocol assignments'],
  ['192.168.0.0', 16, 'ipv4', 'private'],
  ['198.18.0.0', 15, 'ipv4', 'benchmarking'],
  ['224.0.0.0', 4, 'ipv4', 'multicast'],
  ['240.0.0.0', 4, 'ipv4', 'reserved'],
  ['::', 128, 'ipv6', 'unspecified'],
  ['::1', 128, 'ipv6', 'loopback'],
  ['fc00::', 7, 'ipv6', 'private (unique local)'],
  ['fe80::', 10, 'ipv6', 'link-local'],
  ['ff00::', 8, 'ipv6', 'multicast'],
];

/** One list per kind of range, so a refusal can say which. IPv4-mapped IPv6 addresses (::ffff:a.b.c.d) are checked as their IPv4 address. */
const LISTS = RANGES.map(([network, prefix, family, kind]) => {
  const list = new BlockList();
  list.addSubnet(network, prefix, family);
  return { list, kind };
});

/** NAT64's well-known prefix carries an IPv4 address in its last 32 bits: checked as that address. */
const NAT64 = (() => {
  const list = new BlockList();
  list.addSubnet('64:ff9b::', 96, 'ipv6');
  return list;
})();

/** What kind of address refused `address` is (loopback, private, …), or null for one a delivery may reach. */
export function refusedKind(address: string): string | null {
  const family = isIP(address);
  if (family === 0) return 'not an address';
  const type = family === 4 ? 'ipv4' : 'ipv6';
  for (const { list, kind } of LISTS) if (list.check(address, type)) return kind;
  if (family === 6 && NAT64.check(address, 'ipv6')) return refusedKind(embeddedIpv4(address));
  return null;
}

/** The IPv4 address in the last 32 bits of an IPv6 address. */
function embeddedIpv4(address: string): string {
  const tail = address.slice(address.lastIndexOf(':') + 1);
  if (tail.includes('.')) return tail;
  const groups = address.split(':');
  const lo = parseInt(groups.at(-1) || '0', 16);
  const hi = parseInt(groups.at(-2) || '0', 16);
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
}

export class EgressRefused extends Error {
  readonly code = 'EGRESS_REFUSED';
}

/** The URL's host as written in allowed_hosts (lower case, IPv6 without brackets). */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
}

export interface EgressPolicy {
  /** Whether `host` (a name or an address, as the URL writes it) is exempt. */
  allowed(host: string): boolean;
  /** The refusal of an address literal, or a name that needs no DNS to be known local (`localhost`); null when only resolving can tell. */
  checkLiteral(url: URL): EgressRefused | null;
  /** dns.lookup's signature, as net.connect calls it: only addresses that pass reach the connect. */
  lookup: typeof dnsLookup;
  /** Resolves the URL's host and checks every address (at start). */
  check(url: URL): Promise<void>;
}

const refusal = (host: string, address: string, kind: string) =>
  new EgressRefused(`${host} resolves to ${address} (${kind}): refused; list "${host}" in audit.sinks.webhook.allowed_hosts to allow it`);

export function egressPolicy(allowedHosts: readonly string[], resolve: typeof dnsLookup = dnsLookup): EgressPolicy {
  const allowed = new Set(allowedHosts.map((h) => h.replace(/^\[(.*)\]$/, '$1').toLowerCase()));
  const isAllowed = (host: string) => allowed.has(host.toLowerCase());

  function checkLiteral(url: URL): EgressRefused | null {
    const host = hostOf(url);
    if (isAllowed(host)) return null;
    if (isIP(host) !== 0) {
      const kind = refusedKind(host);
      return kind ? new EgressRefused(`${host} is a ${kind} address: refused; list "${host}" in audit.sinks.webhook.allowed_hosts to allow it`) : null;
    }
    if (host === 'localhost' || host.endsWith('.localhost')) return new EgressRefused(`${host} is a loopback name: refused; list "${host}" in audit.sinks.webhook.allowed_hosts to allow it`);
    return null;
  }

  /** Every address of `host`, those refused taken out; an error when none is left. */
  function resolved(host: string, options: LookupOptions, done: (err: Error | null, addresses: LookupAddress[]) => void): void {
    resolve(host, { ...options, all: true }, (err, addresses) => {
      if (err) return done(err, []);
      if (isAllowed(host)) return done(null, addresses);
      const passed = addresses.filter((a) => refusedKind(a.address) === null);
      if (passed.length > 0) return done(null, passed);
      const first = addresses[0];
      done(first ? refusal(host, first.address, refusedKind(first.address) ?? 'refused') : new EgressRefused(`${host} resolves to no address`), []);
    });
  }

  const lookup = ((host: string, options: LookupOptions, callback: (...args: unknown[]) => void) => {
    const opts: LookupOptions = typeof options === 'object' && options !== null ? options : {};
    resolved(host, opts, (err, addresses) => {
      if (err) return callback(err);
      if (opts.all) return callback(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  }) as typeof dnsLookup;

  return {
    allowed: isAllowed,
    checkLiteral,
    lookup,
    async check(url) {
      const literal = checkLiteral(url);
      if (literal) throw literal;
      const host = hostOf(url);
      if (isAllowed(host) || isIP(host) !== 0) return;
      await new Promise<void>((done, fail) => resolved(host, {}, (err) => (err ? fail(err) : done())));
    },
  };
}
