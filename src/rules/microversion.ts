// Placement's microversions (1.0 to 1.39) and how it reads the one a client asks for
// (microversion_parse 1.0.1): `latest`, none (the oldest, 1.0), and Python int() on each side of
// the first dot, so ' 1.05' is 1.5; a version that is no X.Y is a 400, one out of range a 406.
import { pyInt, pyRepr } from './python.js';

export const LATEST_MINOR = 39;
export const MIN_VERSION = '1.0';
export const MAX_VERSION = `1.${LATEST_MINOR}`;

export type Negotiated = { minor: number } | { status: 400 | 406; message: string };

/** The minor of the version asked for (null: none asked), or Placement's refusal (its text after "Invalid microversion: "). */
export function negotiateVersion(asked: string | null): Negotiated {
  const text = asked === null ? MIN_VERSION : asked === 'latest' ? MAX_VERSION : asked;
  const dot = text.indexOf('.');
  const parts = dot < 0 ? [text] : [text.slice(0, dot), text.slice(dot + 1)];
  const numbers: bigint[] = [];
  for (const part of parts) {
    const n = pyInt(part);
    if (n === null) return { status: 400, message: `invalid version string: ${text}; invalid literal for int() with base 10: ${pyRepr(part)}` };
    numbers.push(n);
  }
  if (numbers.length === 1) return { status: 400, message: `invalid version string: ${text}; Version.__new__() missing 1 required positional argument: 'minor'` };
  const [major, minor] = numbers;
  if (major !== 1n || minor < 0n || minor > BigInt(LATEST_MINOR)) return { status: 406, message: `Unacceptable version header: ${text}` };
  return { minor: Number(minor) };
}
