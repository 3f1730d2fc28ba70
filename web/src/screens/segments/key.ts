/**
 * A segment's key proposed from its name, as the flag form proposes a flag's: lower case, blanks
 * become "-", accents lose their marks, anything but letters, digits, "-" and "_" is dropped
 * ("Beta (EU) users" → "beta-eu-users"). The user may type any key instead; the server checks it.
 */
export function segmentKeyFromName(name: string): string {
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
