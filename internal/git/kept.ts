/**
 * A map that forgets its oldest entries past a budget: a count of entries, or a total weight
 * (what an entry holds, say the objects of a decoded file). For what never goes stale — Git
 * objects are immutable —, so the only question is how much to keep.
 */
export class Kept<V> {
  private readonly map = new Map<string, { value: V; weight: number }>();
  private total = 0;

  constructor(
    private readonly max: number,
    private readonly weightOf: (value: V) => number = () => 1,
  ) {}

  get(key: string): V | undefined {
    return this.map.get(key)?.value;
  }

  set(key: string, value: V): void {
    const weight = this.weightOf(value);
    // Heavier than the whole budget: not kept at all, rather than emptying the map for it.
    if (weight > this.max) return;
    this.delete(key);
    this.map.set(key, { value, weight });
    this.total += weight;
    while (this.total > this.max) this.delete(this.map.keys().next().value!);
  }

  private delete(key: string): void {
    const entry = this.map.get(key);
    if (!entry) return;
    this.map.delete(key);
    this.total -= entry.weight;
  }
}
