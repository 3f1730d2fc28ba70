// Connects to each PENNON_TEST_*_URL that .ci/run exported and fails loudly if one cannot be
// used: a suite must never be skipped in CI because a service or its URL is wrong.
import net from 'node:net';
import pg from 'pg';
import mysql from 'mysql2/promise';

const checks = {
  async PENNON_TEST_POSTGRES_URL(url) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
    await client.connect();
    try {
      const { rows } = await client.query('SELECT version() AS v');
      return rows[0].v.split(' on ')[0];
    } finally {
      await client.end();
    }
  },
  async PENNON_TEST_MYSQL_URL(url) {
    const u = new URL(url);
    const conn = await mysql.createConnection({
      host: u.hostname,
      port: Number(u.port || 3306),
      user: decodeURIComponent(u.username),
      password: decodeURIComponent(u.password),
      database: u.pathname.slice(1) || undefined,
      connectTimeout: 5000,
    });
    try {
      const [rows] = await conn.query('SELECT VERSION() AS v');
      return `MySQL ${rows[0].v}`;
    } finally {
      await conn.end();
    }
  },
  async PENNON_TEST_REDIS_URL(url) {
    const u = new URL(url);
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host: u.hostname, port: Number(u.port || 6379) });
      socket.setTimeout(5000, () => socket.destroy(new Error('timed out')));
      socket.on('error', reject);
      socket.on('connect', () => socket.write(u.password ? `AUTH ${decodeURIComponent(u.password)}\r\nPING\r\n` : 'PING\r\n'));
      socket.on('data', (data) => {
        if (data.toString().includes('PONG')) {
          socket.end();
          resolve('Redis PONG');
        } else if (data.toString().startsWith('-')) reject(new Error(data.toString().trim()));
      });
    });
  },
};

let failed = false;
for (const [name, check] of Object.entries(checks)) {
  const url = process.env[name] ?? '';
  if (url === '') {
    console.error(`check-urls: ${name} is not set`);
    failed = true;
    continue;
  }
  try {
    console.log(`check-urls: ${name} ok (${await check(url)})`);
  } catch (err) {
    console.error(`check-urls: ${name} cannot be used: ${err.message}`);
    failed = true;
  }
}
process.exit(failed ? 1 : 0);
