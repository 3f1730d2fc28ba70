/**
 * Fuzzy matching for the command palette: every word of the query must appear in the text,
 * as a substring (best at the start or at a word's start) or else as a subsequence ("chkout"
 * finds "checkout"). The score orders results — an exact key above a prefix above a substring
 * above scattered letters, a shorter text first among equals — and `positions` are the matched
 * characters, for highlighting.
 */
export interface FuzzyMatch {
  score: number;
  positions: number[];
}

/** Characters after which a new word starts: `new-checkout`, `team_a`, `Change theme: dark`. */
const SEPARATOR = /[\s\-_.:/,()]/;

function wordStart(text: string, at: number): boolean {
  return at === 0 || SEPARATOR.test(text[at - 1]);
}

export function fuzzyMatch(query: string, text: string): FuzzyMatch | null {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return { score: 0, positions: [] };
  const lower = text.toLowerCase();
  let score = 0;
  const positions = new Set<number>();
  for (const word of words) {
    const found = matchWord(word, lower);
    if (!found) return null;
    score += found.score;
    for (const p of found.positions) positions.add(p);
  }
  if (lower === query.trim().toLowerCase()) score += 100;
  // Among equals, the shorter text is the closer match.
  score -= lower.length / 100;
  return { score, positions: [...positions].sort((a, b) => a - b) };
}

function matchWord(word: string, text: string): FuzzyMatch | null {
  // A substring: prefer the occurrence at a word's start.
  let best = -1;
  for (let at = text.indexOf(word); at !== -1; at = text.indexOf(word, at + 1)) {
    if (best === -1) best = at;
    if (wordStart(text, at)) {
      best = at;
      break;
    }
  }
  if (best !== -1) {
    const score = best === 0 ? 60 : wordStart(text, best) ? 45 : 30;
    return { score: score + word.length, positions: range(best, word.length) };
  }
  // A subsequence: letters in order, scored by how many sit together or start words.
  const positions: number[] = [];
  let score = 0;
  let from = 0;
  for (const ch of word) {
    const found = text.indexOf(ch, from);
    if (found === -1) return null;
    const previous = positions[positions.length - 1];
    score += previous === found - 1 ? 3 : wordStart(text, found) ? 2 : 0;
    positions.push(found);
    from = found + 1;
  }
  return { score, positions };
}

function range(start: number, length: number): number[] {
  return Array.from({ length }, (_, i) => start + i);
}
