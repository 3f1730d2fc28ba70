/** A seeded pseudo-random sequence in [0, 1) (a linear congruential generator): the same seed, the same steps. */
export function seededRandom(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648;
  };
}
