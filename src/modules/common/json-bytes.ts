// A large JSON answer written as bytes into one growing buffer. Answers that run to megabytes are
// made of a few kinds of repeated text (a provider's key, an amount, a summary): kept as bytes, each is
// copied in once per use, where an array of strings joined (and then encoded for the socket) copied
// every byte three times and cost more per piece than per byte.

/** ASCII text as bytes, for pieces kept and reused (names, uuids and JSON punctuation are ASCII). */
export const asciiBytes = (text: string): Buffer => Buffer.from(text, 'latin1');

export class JsonBytes {
  private buffer: Buffer;
  private at = 0;

  constructor(expectedBytes = 64 * 1024) {
    this.buffer = Buffer.allocUnsafe(expectedBytes);
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

  /** The answer so far (a view of the buffer, not a copy). */
  done(): Buffer {
    return this.buffer.subarray(0, this.at);
  }

  private grow(needed: number): void {
    const bigger = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.at + needed));
    this.buffer.copy(bigger, 0, 0, this.at);
    this.buffer = bigger;
  }
}
