/**
 * Splits one of our migration scripts into statements, for databases whose driver runs one
 * statement at a time (mysql2 without `multipleStatements`, which we keep off) or where each
 * DDL statement should run on its own (CockroachDB). Enough for our own files, not for any SQL:
 * `--` comments are dropped, and a statement ends with a `;` at the end of a line. No string
 * literal in our migrations spans lines or contains `--` or a `;` before a line break.
 */
export function splitStatements(script: string): string[] {
  const statements: string[] = [];
  let current: string[] = [];
  for (const raw of script.split('\n')) {
    const line = raw.replace(/--.*$/, '').trimEnd();
    if (line.trim() === '') continue;
    current.push(line);
    if (line.endsWith(';')) {
      statements.push(current.join('\n').slice(0, -1).trim());
      current = [];
    }
  }
  const rest = current.join('\n').trim();
  if (rest !== '') statements.push(rest);
  return statements.filter((s) => s !== '');
}
