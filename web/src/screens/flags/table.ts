import type { Flag } from '../../api/types';

/**
 * The flags list's search and sort columns. Sorting and paging are components/table-tools'
 * (in the browser, as Flipt's UI does: the list is loaded whole, so all three are instant).
 */

/** Flags whose key, name or description holds every word of `search` (any case). */
export function filterFlags(list: Flag[], search: string): Flag[] {
  const words = search.trim().toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return list;
  return list.filter((f) => {
    const text = `${f.key}\n${f.name}\n${f.description}`.toLowerCase();
    return words.every((w) => text.includes(w));
  });
}

export const FLAG_COLUMNS = {
  key: (f: Flag) => f.key,
  name: (f: Flag) => f.name,
  description: (f: Flag) => f.description,
  enabled: (f: Flag) => (f.enabled ? 1 : 0),
  type: (f: Flag) => f.type,
  created: (f: Flag) => Date.parse(f.createdAt) || 0,
  updated: (f: Flag) => Date.parse(f.updatedAt) || 0,
};

export type FlagColumn = keyof typeof FLAG_COLUMNS;

export const HEADERS: { by: FlagColumn; label: string }[] = [
  { by: 'key', label: 'Key' },
  { by: 'name', label: 'Name' },
  { by: 'description', label: 'Description' },
  { by: 'enabled', label: 'Evaluation' },
  { by: 'type', label: 'Type' },
  { by: 'created', label: 'Created' },
  { by: 'updated', label: 'Updated' },
];
