import { spawn, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * A real Git remote on 127.0.0.1: the machine's `git http-backend` (smart HTTP, what GitHub and
 * GitLab speak) behind a small Node server, over a bare repository in a temporary directory.
 * Commits are made with the git CLI in a work tree and pushed to the bare repository directly.
 * The server can demand an Authorization header, and counts fetches (upload-pack requests).
 */

/** The machine's `git http-backend`, wherever its git keeps its programs. */
const HTTP_BACKEND = join(execFileSync('git', ['--exec-path'], { encoding: 'utf8' }).trim(), 'git-http-backend');

export interface GitRemoteOptions {
  /** Demand exactly this Authorization header (else 401). */
  authorization?: string;
  branch?: string;
  /** Serve https with a fresh self-signed certificate for 127.0.0.1 (its PEM is `certificate`). */
  tls?: boolean;
}

export interface GitRemote {
  /** http://127.0.0.1:<port>/flags.git (…/moved.git redirects there with 301) */
  url: string;
  /** The server's certificate (PEM) when `tls` is on. */
  certificate: string;
  /** The bare repository's directory. */
  bare: string;
  branch: string;
  /** `POST …/git-upload-pack` requests answered (each fetch makes one or two). */
  uploadPacks: number;
  /** Requests refused for their Authorization header. */
  unauthorized: number;
  /** Milliseconds every request is held before it is answered (settable; 0 by default): a slow remote. */
  delay: number;
  /**
   * Holds every request from now on until the returned function is called: a fetch that is in
   * flight for exactly as long as a test needs, whatever the machine's speed.
   */
  hold(): () => void;
  /** Requests waiting behind `hold()` right now. */
  held: number;
  /** Writes the files (path → text; null deletes), commits and pushes; returns the commit. */
  commit(files: Record<string, string | null>, message?: string, as?: CommitAuthor): string;
  close(): Promise<void>;
}

/** Who makes a commit, and when (author and committer alike); `t <t@t>` now by default. */
export interface CommitAuthor {
  name: string;
  email: string;
  /** Anything `GIT_COMMITTER_DATE` takes, e.g. ISO 8601 `2026-03-01T10:00:00Z`. */
  date?: string;
}

const gitAs = (as: CommitAuthor | undefined, cwd: string, ...args: string[]) =>
  execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: as?.name ?? 't',
      GIT_AUTHOR_EMAIL: as?.email ?? 't@t',
      GIT_COMMITTER_NAME: as?.name ?? 't',
      GIT_COMMITTER_EMAIL: as?.email ?? 't@t',
      ...(as?.date !== undefined && { GIT_AUTHOR_DATE: as.date, GIT_COMMITTER_DATE: as.date }),
      GIT_CONFIG_NOSYSTEM: '1',
      HOME: cwd,
    },
  }).trim();

const git = (cwd: string, ...args: string[]) => gitAs(undefined, cwd, ...args);

export async function startGitRemote(options: GitRemoteOptions = {}): Promise<GitRemote> {
  const root = mkdtempSync(join(tmpdir(), 'pennon-git-remote-'));
  const bare = join(root, 'flags.git');
  const work = join(root, 'work');
  const branch = options.branch ?? 'main';
  git(root, 'init', '-q', '--bare', `--initial-branch=${branch}`, bare);
  git(root, 'init', '-q', `--initial-branch=${branch}`, work);

  const state = { uploadPacks: 0, unauthorized: 0, delay: 0, held: 0, gate: null as Promise<void> | null };
  const certificate = options.tls ? selfSigned(root) : { cert: '', key: '' };
  const handler: RequestListener = (req, res) => {
    if (options.authorization !== undefined && req.headers.authorization !== options.authorization) {
      state.unauthorized++;
      res.writeHead(401, { 'www-authenticate': 'Basic realm="git"' }).end('unauthorized');
      return;
    }
    // A moved repository, as hosts answer for a renamed one.
    if (req.url?.startsWith('/moved.git/')) {
      res.writeHead(301, { location: req.url.replace('/moved.git/', '/flags.git/') }).end();
      return;
    }
    if (req.method === 'POST' && req.url?.includes('git-upload-pack')) state.uploadPacks++;
    const answer = () => (state.delay > 0 ? setTimeout(() => cgi(root, req, res), state.delay) : cgi(root, req, res));
    if (state.gate) {
      state.held++;
      void state.gate.then(() => {
        state.held--;
        answer();
      });
    } else answer();
  };
  const server = options.tls ? createTlsServer(certificate, handler) : createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}/flags.git`,
    certificate: certificate.cert,
    bare,
    branch,
    get uploadPacks() {
      return state.uploadPacks;
    },
    get unauthorized() {
      return state.unauthorized;
    },
    get delay() {
      return state.delay;
    },
    set delay(ms: number) {
      state.delay = ms;
    },
    hold() {
      let release = () => undefined as void;
      state.gate = new Promise<void>((resolve) => (release = resolve));
      return () => {
        state.gate = null;
        release();
      };
    },
    get held() {
      return state.held;
    },
    commit(files, message = 'change flags', as) {
      for (const [path, text] of Object.entries(files)) {
        const full = join(work, path);
        if (text === null) rmSync(full, { force: true });
        else {
          mkdirSync(dirname(full), { recursive: true });
          writeFileSync(full, text);
        }
      }
      git(work, 'add', '-A');
      gitAs(as, work, 'commit', '-q', '--allow-empty', '-m', message);
      git(work, 'push', '-q', bare, `HEAD:refs/heads/${branch}`);
      return git(work, 'rev-parse', 'HEAD');
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          rmSync(root, { recursive: true, force: true });
          resolve();
        });
      }),
  };
}

function selfSigned(root: string): { cert: string; key: string } {
  const key = join(root, 'key.pem');
  const cert = join(root, 'cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', key, '-out', cert], { stdio: 'ignore' });
  return { cert: readFileSync(cert, 'utf8'), key: readFileSync(key, 'utf8') };
}

/** The CGI bridge: request → git http-backend's stdin/env, its output → status, headers, body. */
function cgi(root: string, req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://x');
  const child = spawn(HTTP_BACKEND, [], {
    env: {
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: '1',
      PATH_INFO: url.pathname,
      QUERY_STRING: url.search.slice(1),
      REQUEST_METHOD: req.method ?? 'GET',
      CONTENT_TYPE: req.headers['content-type'] ?? '',
      ...(req.headers['content-encoding'] && { HTTP_CONTENT_ENCODING: String(req.headers['content-encoding']) }),
      ...(req.headers['git-protocol'] && { GIT_PROTOCOL: String(req.headers['git-protocol']) }),
      REMOTE_ADDR: '127.0.0.1',
      PATH: process.env.PATH ?? '/usr/bin:/bin',
    },
  });
  req.pipe(child.stdin);
  let head = Buffer.alloc(0);
  let headersDone = false;
  child.stdout.on('data', (chunk: Buffer) => {
    if (headersDone) {
      res.write(chunk);
      return;
    }
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    if (end === -1) return;
    headersDone = true;
    let status = 200;
    for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
      else res.setHeader(name, value);
    }
    res.writeHead(status);
    res.write(head.subarray(end + 4));
  });
  child.stdout.on('end', () => res.end());
  child.on('error', () => res.writeHead(500).end());
}
