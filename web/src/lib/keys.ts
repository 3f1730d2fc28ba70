/**
 * A key proposed from a name (namespaces, flags, segments): lower case, accents lose their marks,
 * blanks become "-", anything else outside Flipt's key characters is dropped ("Beta (EU) Users"
 * → "beta-eu-users", "Don't show" → "dont-show"). Flipt's rule (`^[-_,A-Za-z0-9]+$`) also
 * allows ",", but a proposed key is better without. The user may type any key instead; the
 * server checks it. Forms propose it with `useKeyFromName` (components/name-key-fields.tsx).
 */
export function keyFromName(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .trim()
    .replace(/\s+/g, '-')
    .replace(/[^a-z0-9_-]/g, '')
    .replace(/-{2,}/g, '-')
    .replace(/^-+|-+$/g, '');
}
