import { Command, InvalidArgumentError, Option } from 'commander';
import type { AuthService, CreatedToken } from '../internal/auth';
import type { HttpApi } from '../internal/client';
import { parseDuration } from '../internal/config/duration';
import { parseGoDateTime } from '../internal/core/goparse';
import type { Authentication } from '../internal/core';
import type { AuthenticationJson, AuthenticationListJson, CreatedTokenJson } from '../internal/wire';
import { addressOption, configFrom, fail, type GlobalOptions } from './common';

/**
 * `pennon token create|list|delete`: API client tokens, against the configured database (so
 * CI can make one before the server first starts) or a running server with --address.
 * Data goes to stdout (the token alone, or JSON); messages to stderr.
 */

interface RemoteOptions {
  address?: string;
  token?: string;
  json?: boolean;
}

function instant(value: string): number {
  const t = parseGoDateTime(value);
  if (!t || t.dateOnly) throw new InvalidArgumentError(`"${value}" is not an RFC 3339 timestamp (example: 2030-01-02T15:04:05Z)`);
  return t.seconds * 1_000_000 + Math.floor(t.nanos / 1000);
}

function duration(value: string): number {
  const ms = parseDuration(value);
  if (ms === null || ms <= 0) throw new InvalidArgumentError(`"${value}" is not a duration (examples: 30m, 24h, 720h)`);
  return ms;
}

/**
 * Runs `fn` with an AuthService over the configured database; `where` names it. Only `create`
 * may make (and migrate) a database, so that CI can create a token before the first `serve`;
 * list and delete read an existing one.
 */
async function inProcess<T>(globals: GlobalOptions, mode: 'create' | 'existing', fn: (auth: AuthService, where: string) => Promise<T>): Promise<T> {
  const { config } = await configFrom(globals);
  const { compose } = await import('../internal/service/compose');
  const { auth, connection, close } = await compose(config, { only: 'tokens', database: mode === 'create' ? 'prepared' : 'existing' });
  try {
    return await fn(auth, connection.describe);
  } finally {
    await close();
  }
}

async function remote(options: RemoteOptions): Promise<HttpApi> {
  const { HttpApi } = await import('../internal/client');
  return new HttpApi({ address: options.address!, token: options.token });
}

const toJson = async (a: Authentication): Promise<AuthenticationJson> => (await import('../internal/wire')).authenticationToJson(a);

function addRemoteOptions(command: Command): Command {
  return command
    .addOption(addressOption('work against a running server (e.g. http://localhost:8080) instead of the database'))
    .option('-t, --token <token>', 'client token for --address')
    .option('--json', 'print JSON');
}

function printTable(list: AuthenticationJson[]): void {
  const rows = list.map((a) => [
    a.id,
    a.metadata['io.flipt.auth.token.name'] ?? '',
    a.metadata['io.flipt.auth.token.namespace'] ?? '*',
    // A token from before roles (or the bootstrap token) is an admin.
    a.metadata['io.pennon.auth.role'] ?? 'admin',
    a.expiresAt ?? 'never',
    a.createdAt,
  ]);
  const header = ['ID', 'NAME', 'NAMESPACE', 'ROLE', 'EXPIRES', 'CREATED'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  for (const row of [header, ...rows]) process.stdout.write(`${row.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd()}\n`);
}

export function tokenCommand(program: Command): void {
  const token = program.command('token').description('manage API client tokens');

  addRemoteOptions(
    token
      .command('create')
      .description('create a token and print it (it is shown only once)')
      .requiredOption('--name <name>', 'a name for the token')
      .option('--description <text>', 'what the token is for', '')
      .addOption(new Option('--expires-at <rfc3339>', 'when it expires').argParser(instant).conflicts('expiresIn'))
      .addOption(new Option('--expires-in <duration>', 'how long it lives (e.g. 24h)').argParser(duration))
      .option('--namespace <key>', 'limit the token to one namespace', '')
      .addOption(
        new Option('--role <role>', "the token's role (authorization.required): at most yours with --address; default: yours (admin on the database)").choices(['viewer', 'editor', 'admin']),
      ),
  ).action(
    async (
      options: RemoteOptions & { name: string; description: string; expiresAt?: number; expiresIn?: number; namespace: string; role?: string },
      command: Command,
    ) => {
      const globals = command.optsWithGlobals<GlobalOptions>();
      try {
        const expiresAt = options.expiresAt ?? (options.expiresIn ? Date.now() * 1000 + options.expiresIn * 1000 : null);
        const request = { name: options.name, description: options.description, expiresAt, namespaceKey: options.namespace, metadata: {}, role: options.role ?? '' };
        let created: CreatedTokenJson;
        if (options.address) {
          created = await (await remote(options)).post('/auth/v1/method/token', {
            ...request,
            role: options.role,
            expiresAt: expiresAt === null ? undefined : new Date(expiresAt / 1000).toISOString(),
          });
        } else {
          const made: CreatedToken = await inProcess(globals, 'create', (auth) => auth.createToken(request));
          created = { clientToken: made.clientToken, authentication: await toJson(made.authentication) };
        }
        process.stdout.write(options.json ? `${JSON.stringify(created, null, 2)}\n` : `${created.clientToken}\n`);
        if (!options.json) process.stderr.write(`created token ${created.authentication.id} (${options.name}); it will not be shown again\n`);
      } catch (err) {
        fail(err, globals);
      }
    },
  );

  addRemoteOptions(token.command('list').description('list tokens (never their values)')).action(async (options: RemoteOptions, command: Command) => {
    const globals = command.optsWithGlobals<GlobalOptions>();
    try {
      const all: AuthenticationJson[] = [];
      if (options.address) {
        let pageToken = '';
        do {
          const page = await (await remote(options)).get<AuthenticationListJson>(
            `/auth/v1/tokens?method=METHOD_TOKEN&limit=100&pageToken=${encodeURIComponent(pageToken)}`,
          );
          all.push(...page.authentications);
          pageToken = page.nextPageToken;
        } while (pageToken !== '');
      } else {
        await inProcess(globals, 'existing', async (auth) => {
          let pageToken = '';
          do {
            const page: { items: Authentication[]; nextPageToken: string } = await auth.list('METHOD_TOKEN', 100, pageToken);
            for (const item of page.items) all.push(await toJson(item));
            pageToken = page.nextPageToken;
          } while (pageToken !== '');
        });
      }
      if (options.json) process.stdout.write(`${JSON.stringify(all, null, 2)}\n`);
      else printTable(all);
    } catch (err) {
      fail(err, globals);
    }
  });

  addRemoteOptions(token.command('delete').description('delete a token (a running server refuses it within a second)').argument('<id>', 'the token id')).action(
    async (id: string, options: RemoteOptions, command: Command) => {
      const globals = command.optsWithGlobals<GlobalOptions>();
      try {
        if (options.address) {
          // Flipt answers a delete of an unknown id with success, so ask first.
          const api = await remote(options);
          const path = `/auth/v1/tokens/${encodeURIComponent(id)}`;
          const found = await api.get(path).then(
            () => true,
            (err: unknown) => {
              if ((err as { status?: number }).status === 404) return false;
              throw err;
            },
          );
          if (!found) throw new Error(`token ${JSON.stringify(id)} not found on ${options.address}`);
          await api.call('DELETE', path);
        } else {
          await inProcess(globals, 'existing', async (auth, where) => {
            if (!(await auth.delete(id))) throw new Error(`token ${JSON.stringify(id)} not found in ${where}`);
          });
        }
        process.stderr.write(`deleted token ${id}\n`);
      } catch (err) {
        fail(err, globals);
      }
    },
  );
}
