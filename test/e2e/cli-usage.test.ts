import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, pennon, tempDir } from '../support/cli';

/**
 * What the CLI says about how it is used (the built executable): help that lists every option
 * once, usage mistakes as usage errors (exit 2) with a way out, what a disabled boolean flag
 * answers, and one hint after the failures people meet most.
 */

describe('the CLI\'s usage, help and hints (the built CLI)', () => {
  let dir: string;
  let env: Record<string, string>;
  beforeAll(() => {
    dir = tempDir('pennon-usage-');
    env = { PENNON_DB_URL: `file:${join(dir, 'pennon.db')}` };
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('lists the global --config in every command\'s help, and each default once', async () => {
    for (const args of [['serve', '--help'], ['flag', 'import', '--help'], ['token', 'list', '--help']]) {
      const help = await pennon(args);
      expect(help.exitCode).toBe(0);
      expect(help.stdout).toMatch(/^ {2}--config <path> +configuration file/m);
    }
    const exportHelp = (await pennon(['flag', 'export', '--help'])).stdout;
    const namespaceOption = exportHelp.slice(exportHelp.indexOf('-n, --namespace'), exportHelp.indexOf('--all-namespaces'));
    expect(namespaceOption.match(/\(default:/g)).toEqual(['(default:']);
    expect(exportHelp).not.toContain('(default: [])');
  });

  it('suggests the nested command for a top-level typo of it', async () => {
    const validate = await pennon(['validate']);
    expect(validate.exitCode).toBe(2);
    expect(validate.stderr).toMatch(/^error: unknown command 'validate'\n\(Did you mean config validate\?\)\n/);
    const evalute = await pennon(['evalute']);
    expect([evalute.exitCode, evalute.stderr]).toEqual([2, "error: unknown command 'evalute'\n(Did you mean evaluate?)\n(run with --help for usage)"]);
  });

  it('refuses an --address without a scheme as a usage error, naming the fix', async () => {
    const commands = [
      ['evaluate', 'f', '-e', 'u'],
      ['token', 'list'],
      ['token', 'create', '--name', 'n'],
      ['token', 'delete', 'id'],
      ['flag', 'export'],
      ['flag', 'import', '-'],
    ];
    for (const args of commands) {
      const result = await pennon([...args, '--address', 'localhost:8080'], { env, input: '' });
      expect(result.exitCode, args.join(' ')).toBe(2);
      expect(result.stderr).toContain('"localhost:8080" is not an http:// or https:// URL (did you mean http://localhost:8080?)');
    }
    expect(existsSync(join(dir, 'pennon.db'))).toBe(false);
  });

  it('refuses an output file whose extension says no encoding it writes', async () => {
    const out = join(dir, 'out.txt');
    const result = await pennon(['flag', 'export', '-o', out], { env });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(`"${out}" does not end in .yml, .yaml or .json, which say what to write`);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('says what a disabled boolean flag answers, and why it answered otherwise', async () => {
    const file = join(dir, 'boolean.yml');
    writeFileSync(
      file,
      'flags:\n- key: dark\n  name: Dark\n  type: BOOLEAN_FLAG_TYPE\n  enabled: false\n  rollouts:\n  - segment:\n      key: pro\n      value: true\n' +
        'segments:\n- key: pro\n  name: Pro\n  match_type: ALL_MATCH_TYPE\n  constraints:\n  - {type: STRING_COMPARISON_TYPE, property: plan, operator: eq, value: pro}\n',
    );
    expect((await pennon(['flag', 'import', file], { env })).exitCode).toBe(0);
    const pro = await pennon(['evaluate', 'dark', '-e', 'u1', '-c', 'plan=pro'], { env });
    expect(pro.exitCode, pro.stderr).toBe(0);
    const lines = pro.stdout.split('\n');
    expect(lines[1]).toBe('flag dark (boolean, disabled: answers its default value false unless a rollout matches)');
    expect(lines).toContain('result: enabled=true reason=MATCH_EVALUATION_REASON segments=pro');
    const free = await pennon(['evaluate', 'dark', '-e', 'u1', '-c', 'plan=free'], { env });
    expect(free.stdout).toContain('result: enabled=false reason=DEFAULT_EVALUATION_REASON');

    // Importing the same file again: "not unique", then one hint naming the ways out.
    const again = await pennon(['flag', 'import', file], { env });
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toMatch(/^pennon: flag "default\/dark" is not unique [^\n]*\nhint: add --skip-existing to keep what already exists, or --drop to replace everything$/);
  });

  it('asks whether a server runs at an address that refuses the connection', async () => {
    const address = `http://127.0.0.1:${await freePort()}`;
    for (const args of [['evaluate', 'f', '-e', 'u'], ['flag', 'export'], ['token', 'list']]) {
      const result = await pennon([...args, '--address', address]);
      expect(result.exitCode, args.join(' ')).toBe(1);
      expect(result.stderr).toMatch(new RegExp(`^pennon: [^\\n]*cannot reach ${address.replace(/\./g, '\\.')}: ECONNREFUSED\\nhint: is a Pennon \\(or Flipt\\) server running at ${address.replace(/\./g, '\\.')}\\?$`));
    }
  });
});
