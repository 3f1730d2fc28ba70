/**
 * A flag's key proposed from its name: lower case, blanks become "-", accents lose their marks,
 * and anything but letters, digits, "-" and "_" is dropped ("Don't show" → "dont-show"). Flipt's
 * rule also allows ",", but a proposed key is better without. The user may type any key instead.
 */
export function flagKeyFromName(name: string): string {
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
