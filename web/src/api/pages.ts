import { http, type Query } from './http';
import type { Page } from './types';

/** Every item of a paged list: the server's pages followed to the end (lists are rarely long). */
export async function allPages<T, K extends string>(url: string, key: K, query: Query = {}): Promise<T[]> {
  const all: T[] = [];
  let pageToken = '';
  do {
    const page = await http.get<Page & Record<K, T[]>>(url, { ...query, limit: 100, pageToken });
    all.push(...page[key]);
    pageToken = page.nextPageToken;
  } while (pageToken);
  return all;
}
