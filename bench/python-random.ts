// Python's `random.Random` (Mersenne Twister MT19937, CPython 3.x) for the calls the cloud generator makes:
// seeding with a string (version 2), random(), getrandbits(), choice() and choices(weights).
// The same seed gives the same sequence as CPython, so a generated cloud is byte for byte the one
// Python's generator writes.
import { createHash } from 'node:crypto';

const N = 624;
const M = 397;

export class PythonRandom {
  private readonly mt = new Uint32Array(N);
  private index = N + 1;

  constructor(seed: string) {
    // random.seed(str): a = int.from_bytes(s + sha512(s), 'big'); the C seeder splits |a| into
    // 32-bit words, least significant first, and calls init_by_array.
    const bytes = Buffer.from(seed, 'utf8');
    const all = Buffer.concat([bytes, createHash('sha512').update(bytes).digest()]);
    const key: number[] = [];
    for (let end = all.length; end > 0; end -= 4) {
      let word = 0;
      for (let i = Math.max(0, end - 4); i < end; i++) word = (word * 256 + all[i]) >>> 0;
      key.push(word);
    }
    while (key.length > 1 && key[key.length - 1] === 0) key.pop();
    this.initByArray(key);
  }

  private initGenrand(s: number) {
    const mt = this.mt;
    mt[0] = s >>> 0;
    for (let i = 1; i < N; i++) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = (Math.imul(1812433253, prev) + i) >>> 0;
    }
    this.index = N;
  }

  private initByArray(key: number[]) {
    const mt = this.mt;
    this.initGenrand(19650218);
    let i = 1;
    let j = 0;
    for (let k = Math.max(N, key.length); k > 0; k--) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = ((mt[i] ^ Math.imul(prev, 1664525)) + key[j] + j) >>> 0;
      i++;
      j++;
      if (i >= N) {
        mt[0] = mt[N - 1];
        i = 1;
      }
      if (j >= key.length) j = 0;
    }
    for (let k = N - 1; k > 0; k--) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = ((mt[i] ^ Math.imul(prev, 1566083941)) - i) >>> 0;
      i++;
      if (i >= N) {
        mt[0] = mt[N - 1];
        i = 1;
      }
    }
    mt[0] = 0x80000000;
  }

  private uint32(): number {
    const mt = this.mt;
    if (this.index >= N) {
      let kk = 0;
      for (; kk < N - M; kk++) {
        const y = (mt[kk] & 0x80000000) | (mt[kk + 1] & 0x7fffffff);
        mt[kk] = mt[kk + M] ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      for (; kk < N - 1; kk++) {
        const y = (mt[kk] & 0x80000000) | (mt[kk + 1] & 0x7fffffff);
        mt[kk] = mt[kk + (M - N)] ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      const y = (mt[N - 1] & 0x80000000) | (mt[0] & 0x7fffffff);
      mt[N - 1] = mt[M - 1] ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      this.index = 0;
    }
    let y = mt[this.index++];
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** random.random(): 53 random bits as a float in [0, 1). */
  random(): number {
    const a = this.uint32() >>> 5;
    const b = this.uint32() >>> 6;
    return (a * 67108864 + b) * (1 / 9007199254740992);
  }

  /** random.getrandbits(k) for k <= 32. */
  bits(k: number): number {
    return this.uint32() >>> (32 - k);
  }

  /** random.getrandbits(k) for any k: 32-bit words, least significant first. */
  bigBits(k: number): bigint {
    let out = 0n;
    for (let shift = 0n; k > 0; k -= 32, shift += 32n) {
      const word = k < 32 ? this.uint32() >>> (32 - k) : this.uint32();
      out |= BigInt(word) << shift;
    }
    return out;
  }

  /** random._randbelow(n) through getrandbits, as CPython does. */
  below(n: number): number {
    const k = 32 - Math.clz32(n);
    let r = this.bits(k);
    while (r >= n) r = this.bits(k);
    return r;
  }

  choice<T>(items: readonly T[]): T {
    return items[this.below(items.length)];
  }

  /** random.choices(population, weights)[0]: bisect_right on the cumulative weights. */
  weighted<T>(items: readonly T[], weights: readonly number[]): T {
    const cumulative: number[] = [];
    let sum = 0;
    for (const w of weights) cumulative.push((sum += w));
    const x = this.random() * sum;
    let lo = 0;
    let hi = items.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (x < cumulative[mid]) hi = mid;
      else lo = mid + 1;
    }
    return items[lo];
  }
}
