/**
 * CRC-32 (IEEE, reflected 0xEDB88320) over the UTF-8 bytes of a string, in JavaScript: a table
 * loop beats zlib.crc32's native call for the short keys evaluation hashes (≈85 ns vs ≈185 ns).
 * `crc32Update` continues a running value, so a flag key's CRC is computed once per snapshot
 * and each evaluation hashes only the entity id.
 */

const TABLE = (() => {
  const table = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c;
  }
  return table;
})();

/** The running (pre-inverted) state; start from `CRC_START`, finish with `crc32Final`. */
export const CRC_START = -1;

export function crc32Update(state: number, s: string): number {
  let crc = state;
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i);
    if (c < 0x80) {
      crc = TABLE[(crc ^ c) & 0xff] ^ (crc >>> 8);
      continue;
    }
    // UTF-8 encode the code point; a lone surrogate becomes U+FFFD, as Go and Buffer do.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const low = s.charCodeAt(i + 1);
      if (low >= 0xdc00 && low <= 0xdfff) {
        c = 0x10000 + ((c - 0xd800) << 10) + (low - 0xdc00);
        i++;
      } else c = 0xfffd;
    } else if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
    if (c < 0x800) {
      crc = TABLE[(crc ^ (0xc0 | (c >> 6))) & 0xff] ^ (crc >>> 8);
    } else if (c < 0x10000) {
      crc = TABLE[(crc ^ (0xe0 | (c >> 12))) & 0xff] ^ (crc >>> 8);
      crc = TABLE[(crc ^ (0x80 | ((c >> 6) & 0x3f))) & 0xff] ^ (crc >>> 8);
    } else {
      crc = TABLE[(crc ^ (0xf0 | (c >> 18))) & 0xff] ^ (crc >>> 8);
      crc = TABLE[(crc ^ (0x80 | ((c >> 12) & 0x3f))) & 0xff] ^ (crc >>> 8);
      crc = TABLE[(crc ^ (0x80 | ((c >> 6) & 0x3f))) & 0xff] ^ (crc >>> 8);
    }
    crc = TABLE[(crc ^ (0x80 | (c & 0x3f))) & 0xff] ^ (crc >>> 8);
  }
  return crc;
}

export function crc32Final(state: number): number {
  return ~state >>> 0;
}

export function crc32(s: string): number {
  return crc32Final(crc32Update(CRC_START, s));
}

/** Variant bucket: crc32(flagKey + entityId) % 1000, from the flag key's running state. */
export function variantBucket(flagKeyState: number, entityId: string): number {
  return crc32Final(crc32Update(flagKeyState, entityId)) % 1000;
}

/** Boolean threshold value: crc32(entityId + flagKey) % 100 (note the reversed order). */
export function thresholdValue(entityId: string, flagKey: string): number {
  return crc32Final(crc32Update(crc32Update(CRC_START, entityId), flagKey)) % 100;
}

/** Cumulative bucket bounds of a rule's distributions: float32 width per distribution, truncated. */
export function bucketBounds(rollouts: number[]): number[] {
  const bounds: number[] = [];
  let total = 0;
  for (const r of rollouts) {
    total += Math.trunc(Math.fround(Math.fround(r) * 10));
    bounds.push(total);
  }
  return bounds;
}
