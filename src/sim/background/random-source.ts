import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';

/**
 * The background market's only source of randomness: one seeded generator drawn in a fixed
 * order, so a seed replays the same market step for step.
 */
export class RandomSource {
  readonly #rng: ReturnType<typeof xoroshiro128plus>;

  constructor(seed: number) {
    this.#rng = xoroshiro128plus(seed);
  }

  /** Uniform in [0, 1). */
  uniform(): number {
    return uniformFloat64(this.#rng);
  }

  /** Standard normal (Box-Muller; one draw of the pair is enough here). */
  gaussian(): number {
    const u1 = 1 - this.uniform();
    const u2 = this.uniform();
    return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
  }

  /** Poisson-distributed count with mean `lambda` (Knuth; lambda is small per step). */
  poisson(lambda: number): number {
    if (lambda <= 0) return 0;
    const limit = Math.exp(-lambda);
    let k = 0;
    let p = this.uniform();
    while (p > limit && k < 1000) {
      k += 1;
      p *= this.uniform();
    }
    return k;
  }
}
