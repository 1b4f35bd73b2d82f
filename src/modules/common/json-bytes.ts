// A large JSON answer written as bytes into one growing buffer. Answers that run to megabytes are
// made of a few kinds of repeated text (a provider's key, an amount, a summary): kept as bytes, each is
// copied in once per use, where an array of strings joined (and then encoded for the socket) copied
// every byte three times and cost more per piece than per byte.

/** ASCII text as bytes, for pieces kept and reused (names, uuids and JSON punctuation are ASCII). */
export const asciiBytes = (text: string): Buffer => Buffer.from(text, 'latin1');

/**
 * Buffers of answers already sent, for the next answers. A fresh buffer of megabytes per answer is
 * memory outside V8's heap, and V8 answers such allocations by collecting garbage: at 10,000 roots,
 * three young collections and a full one per large answer, about a third of its time.
 */
const spare: Buffer[] = [];
/** Buffers made here (answers' buffers may be handed back only once, and only these). */
const ours = new WeakSet<ArrayBufferLike>();
/** Smaller buffers come from Node's own pool. */
const SPARE_FROM = 64 * 1024;
/** Spare buffers kept: one for the answer being written while the last one is still being sent. */
const MAX_SPARE = 2;
/** Larger buffers are not kept: one huge answer does not hold its memory for later ones. */
export const MAX_SPARE_BYTES = 64 * 1024 * 1024;

/** A buffer of at least `size` bytes: the smallest spare one that is large enough, or a new one. */
function take(size: number): Buffer {
  let best = -1;
  for (let i = 0; i < spare.length; i++) if (spare[i].length >= size && (best < 0 || spare[i].length < spare[best].length)) best = i;
  if (best >= 0) return spare.splice(best, 1)[0];
  const made = Buffer.allocUnsafeSlow(size);
  ours.add(made.buffer);
  return made;
}

/** Gives a buffer back for later answers; the largest MAX_SPARE are kept. */
function giveBack(buffer: Buffer): void {
  if (buffer.length > MAX_SPARE_BYTES || spare.some((b) => b.buffer === buffer.buffer)) return;
  spare.push(buffer);
  spare.sort((a, b) => b.length - a.length);
  spare.length = Math.min(spare.length, MAX_SPARE);
}

/**
 * Hands back an answer's bytes (from `done()`) once they are sent and nothing reads them any more:
 * its buffer then serves a later answer. Any other buffer is left alone.
 */
export function answerSent(bytes: Buffer): void {
  if (ours.has(bytes.buffer)) giveBack(Buffer.from(bytes.buffer));
}

/** Kept pieces are copied into slabs of this size: one allocation per slab, where a buffer per piece cost more than writing it. */
const SLAB_BYTES = 64 * 1024;
let slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
let slabAt = 0;

/** A copy of bytes to keep (a memoized piece of JSON), most often a view of a shared slab. */
export function keptCopy(bytes: Uint8Array): Buffer {
  if (bytes.length > SLAB_BYTES / 8) return Buffer.from(bytes);
  if (slabAt + bytes.length > SLAB_BYTES) {
    slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
    slabAt = 0;
  }
  const kept = slab.subarray(slabAt, slabAt + bytes.length);
  kept.set(bytes);
  slabAt += bytes.length;
  return kept;
}

export class JsonBytes {
  private buffer: Buffer;
  private at = 0;

  constructor(expectedBytes = SPARE_FROM) {
    this.buffer = expectedBytes >= SPARE_FROM ? take(expectedBytes) : Buffer.allocUnsafe(expectedBytes);
  }

  /** Copies kept bytes in. */
  bytes(piece: Uint8Array): void {
    if (this.at + piece.length > this.buffer.length) this.grow(piece.length);
    this.buffer.set(piece, this.at);
    this.at += piece.length;
  }

  /** One ASCII character (punctuation). */
  char(code: number): void {
    if (this.at === this.buffer.length) this.grow(1);
    this.buffer[this.at++] = code;
  }

  /** Text made for this answer only, as UTF-8. */
  text(value: string): void {
    if (this.at + value.length * 3 > this.buffer.length) this.grow(value.length * 3);
    this.at += this.buffer.write(value, this.at);
  }

  /** Starts again, empty (a scratch writer reused for many pieces). */
  reset(): this {
    this.at = 0;
    return this;
  }

  /** The answer so far (a view of the buffer, not a copy). */
  done(): Buffer {
    return this.buffer.subarray(0, this.at);
  }

  private grow(needed: number): void {
    const size = Math.max(this.buffer.length * 2, this.at + needed);
    const bigger = size >= SPARE_FROM ? take(size) : Buffer.allocUnsafe(size);
    this.buffer.copy(bigger, 0, 0, this.at);
    if (ours.has(this.buffer.buffer)) giveBack(this.buffer);
    this.buffer = bigger;
  }
}
