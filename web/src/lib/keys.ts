/**
 * Flipt's key rule (namespaces, flags, segments): `^[-_,A-Za-z0-9]+$`. The server checks it;
 * forms only use `keyFromName` to propose a key while the user has not typed one.
 */
export function keyFromName(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '');
}
