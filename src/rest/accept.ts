// The Accept header as webob (1.8) reads it for Placement: which of the offered media types a
// client accepts, in its order of preference (AcceptValidHeader.acceptable_offers). An invalid
// header, like none, accepts everything; a media range with parameters matches only an offer with
// the same parameters.

const OWS = '[ \\t]*';
const TOKEN = "[!#$%&'*+\\-.^_`|~0-9A-Za-z]+";
const QUOTED_STRING = '"(?:(?:[\\t \\x21\\x23-\\x5b\\x5d-\\x7e\\x80-\\xff])|(?:\\\\[\\t \\x21-\\x7e\\x80-\\xff]))*"';
const PARAMETER = `${TOKEN}=(?:(?:${TOKEN})|(?:${QUOTED_STRING}))`;
const QVALUE = '(?:0(?:\\.[0-9]{0,3})?)|(?:1(?:\\.0{0,3})?)';
const WEIGHT = `${OWS};${OWS}[qQ]=(${QVALUE})`;
const MEDIA_RANGE = `((?:${TOKEN}/${TOKEN}))((?:${OWS};${OWS}(?![qQ]=)${PARAMETER})*)`;
const ACCEPT_EXT = `${OWS};${OWS}${TOKEN}(?:=(?:(?:${TOKEN})|(?:${QUOTED_STRING})))?`;
const ELEMENT = `${MEDIA_RANGE}(?:${WEIGHT}((?:${ACCEPT_EXT})*))?`;
const VALID = new RegExp(`^(?:(?:$)|(?:(?:,|(?:${ELEMENT}))(?:${OWS},(?:${OWS}${ELEMENT})?)*)$)`);
const ELEMENTS = new RegExp(ELEMENT, 'g');
const PARAMETERS = new RegExp(`${OWS};${OWS}(${TOKEN})=(${TOKEN}|${QUOTED_STRING})`, 'g');

interface MediaRange {
  type: string;
  subtype: string;
  params: string;
  q: number;
}

const unquote = (value: string) => (value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1).replace(/\\(?![\\])/g, '').replace(/\\\\/g, '\\') : value);

/** The parameters of a media range, lower-cased names, as one comparable string. */
const paramsKey = (segment: string) => [...segment.matchAll(PARAMETERS)].map(([, name, value]) => `${name.toLowerCase()}=${unquote(value)}`).join(';');

const parsedHeaders = new Map<string, MediaRange[] | null>();

/** The media ranges of a header, or null when it is invalid (then everything is acceptable). */
function parse(header: string): MediaRange[] | null {
  let ranges = parsedHeaders.get(header);
  if (ranges !== undefined) return ranges;
  if (!VALID.test(header)) ranges = null;
  else {
    ranges = [...header.matchAll(ELEMENTS)].map((m) => {
      const [type, subtype] = m[1].toLowerCase().split('/');
      return { type, subtype, params: paramsKey(m[2]), q: m[3] ? Number(m[3]) : 1 };
    });
  }
  // Clients send a handful of distinct headers; past that, nothing more is kept.
  if (parsedHeaders.size < 256) parsedHeaders.set(header, ranges);
  return ranges;
}

/** Whether the header is present and valid: only then does Placement refuse a request it cannot answer in a wanted type. */
export const isValidAccept = (header: string | undefined): header is string => header !== undefined && parse(header) !== null;

/** The offers (parameterless media types) the header accepts, most wanted first; all of them when it is absent or invalid. */
export function acceptableOffers(header: string | undefined, offers: readonly string[]): string[] {
  const ranges = header === undefined ? null : parse(header);
  if (ranges === null) return [...offers];
  const chosen: { offer: string; q: number; index: number }[] = [];
  offers.forEach((offer, index) => {
    const [type, subtype] = offer.toLowerCase().split('/');
    let best: { q: number; specificity: number } | null = null;
    for (const range of ranges) {
      let specificity: number;
      if (range.type === type && range.subtype === subtype) {
        if (range.params !== '') continue;
        specificity = 3;
      } else if (range.subtype === '*' && range.type === type) specificity = 2;
      else if (range.type === '*' && range.subtype === '*') specificity = 1;
      else continue;
      if (best && specificity <= best.specificity) continue;
      best = { q: range.q, specificity };
    }
    if (best && best.q > 0) chosen.push({ offer, q: best.q, index });
  });
  return chosen.sort((a, b) => b.q - a.q || a.index - b.index).map((c) => c.offer);
}
