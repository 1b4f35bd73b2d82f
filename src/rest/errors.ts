// Placement's error answers, as webob renders its HTTP exceptions with Placement's JSON formatter:
// {"errors": [{"status", "title", "detail", "code", "request_id"}]}, where detail is webob's
// explanation of the status, a blank line and Placement's own text; or an HTML page or plain text
// when the client's Accept header prefers them.
import { acceptableOffers } from './accept.js';
import { pyJsonDumps } from '../rules/python-json.js';
import { MAX_VERSION, MIN_VERSION } from '../rules/microversion.js';

/** The statuses Placement answers with, their titles and webob's explanations (whitespace collapsed as webob does). */
const STATUSES: Record<number, { title: string; explanation?: string; template?: string }> = {
  400: { title: 'Bad Request', explanation: 'The server could not comply with the request since it is either malformed or otherwise incorrect.' },
  401: {
    title: 'Unauthorized',
    explanation:
      'This server could not verify that you are authorized to access the document you requested. Either you supplied the wrong credentials (e.g., bad password), or your browser does not understand how to supply the credentials required.',
  },
  403: { title: 'Forbidden', explanation: 'Access was denied to this resource.' },
  404: { title: 'Not Found', explanation: 'The resource could not be found.' },
  405: { title: 'Method Not Allowed', template: 'The method ${REQUEST_METHOD} is not allowed for this resource. <br /><br />\n${detail}' },
  406: { title: 'Not Acceptable', template: 'The resource could not be generated that was acceptable to your browser\n(content of type ${HTTP_ACCEPT}. <br /><br />\n${detail}' },
  409: { title: 'Conflict', explanation: 'There was a conflict when trying to complete your request.' },
  413: { title: 'Request Entity Too Large', explanation: 'The body of your request was too large for this server.' },
  415: { title: 'Unsupported Media Type', template: 'The request media type ${CONTENT_TYPE} is not supported by this server.\n<br /><br />\n${detail}' },
  500: { title: 'Internal Server Error', explanation: 'The server has either erred or is incapable of performing the requested operation.' },
  503: { title: 'Service Unavailable', explanation: 'The server is currently unavailable. Please try again at a later time.' },
};

/** Placement's error code when none is more precise (errors.DEFAULT). */
export const DEFAULT_CODE = 'placement.undefined_code';

export interface PlacementErrorOptions {
  /** Placement's error code (shown from microversion 1.23). */
  code?: string;
  /**
   * Raised past Placement's handler function (routing, the content-length check, a policy refusal,
   * an unknown provider the handler does not catch): webob's microversion middleware then adds the
   * openstack-api-version header but not `vary`.
   */
  outsideHandler?: boolean;
  headers?: [string, string][];
}

/** An HTTP error as Placement raises it: the status and Placement's own text (webob's detail). */
export class PlacementError extends Error {
  readonly code: string;
  readonly outsideHandler: boolean;
  readonly headers: [string, string][];
  constructor(
    readonly status: number,
    readonly detail: string,
    options: PlacementErrorOptions = {},
  ) {
    super(detail);
    this.code = options.code ?? DEFAULT_CODE;
    this.outsideHandler = options.outsideHandler ?? false;
    this.headers = options.headers ?? [];
  }
}

/** What webob's templates read of the request (its WSGI environ). */
export interface ErrorEnviron {
  method: string;
  /** The Accept header as Placement's request log leaves it (absent or * / * become application/json). */
  accept: string;
  /** The Content-Type header, 'None' when there was none. */
  contentType: string;
  /** The microversion's minor once negotiated; null before (no code, and a 406 names the versions). */
  minor: number | null;
  requestId: string;
}

const ENVIRON_KEYS = { REQUEST_METHOD: 'method', HTTP_ACCEPT: 'accept', CONTENT_TYPE: 'contentType' } as const;

/** webob's strip_tags: newlines become spaces, <br> a newline, other tags and comments go. */
export const stripTags = (value: string) =>
  value
    .replace(/\n/g, ' ')
    .replace(/\r/g, '')
    .replace(/<br.*?>/gis, '\n')
    .replace(/<!--|-->/g, '')
    .replace(/<.*?>/gs, '');

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#x27;' };
/** webob's html_escape: html.escape with quotes, then non-ASCII as decimal character references. */
const htmlEscape = (value: string) => value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]).replace(/[^\x00-\x7f]/gu, (c) => `&#${c.codePointAt(0)};`);

/** The text webob builds from the status's template (its _make_body). */
function makeBody(status: number, detail: string, environ: ErrorEnviron, escape: (s: string) => string): string {
  const { explanation, template } = STATUSES[status];
  if (template) {
    return template.replace(/\$\{(\w+)\}/g, (whole, name: string) => {
      if (name === 'detail') return escape(detail);
      const key = ENVIRON_KEYS[name as keyof typeof ENVIRON_KEYS];
      return key ? escape(environ[key]) : whole;
    });
  }
  return `${escape(explanation!)}<br /><br />\n${escape(detail)}\n\n`;
}

export const statusLine = (status: number) => `${status} ${STATUSES[status].title}`;

/** The body and content type of an error answer, as webob chooses them from the Accept header. */
export function errorBody(error: PlacementError, environ: ErrorEnviron): { contentType: string; body: string } {
  const offer = acceptableOffers(environ.accept, ['text/html', 'application/json'])[0];
  const { status, detail } = error;
  if (offer === 'text/html') {
    const body = makeBody(status, detail, environ, htmlEscape);
    const line = statusLine(status);
    return {
      contentType: 'text/html; charset=UTF-8',
      body: `<html>\n <head>\n  <title>${line}</title>\n </head>\n <body>\n  <h1>${line}</h1>\n  ${body}\n </body>\n</html>`,
    };
  }
  if (offer === 'application/json') {
    const entry: Record<string, string | number> = { status, title: STATUSES[status].title, detail: stripTags(makeBody(status, detail, environ, (s) => s)) };
    if (environ.minor !== null && environ.minor >= 23) entry.code = error.code;
    entry.request_id = environ.requestId;
    if (status === 406 && environ.minor === null) Object.assign(entry, { max_version: MAX_VERSION, min_version: MIN_VERSION });
    return { contentType: 'application/json', body: pyJsonDumps({ errors: [entry] }) };
  }
  return { contentType: 'text/plain; charset=UTF-8', body: `${statusLine(status)}\n\n${stripTags(makeBody(status, detail, environ, (s) => s))}` };
}

/** noauth2's refusal of a request without a token: webob's own JSON format, outside Placement's (no errors[]). */
export function unauthorizedBody(environ: ErrorEnviron): { contentType: string; body: string } {
  const offer = acceptableOffers(environ.accept, ['text/html', 'application/json'])[0];
  const error = new PlacementError(401, '');
  if (offer === 'application/json') {
    return { contentType: 'application/json', body: pyJsonDumps({ message: makeBody(401, '', environ, (s) => s), code: statusLine(401), title: 'Unauthorized' }) };
  }
  return errorBody(error, environ);
}

/** Placement's words for an invalid change the domain refused: its first problem, as Placement names it where it does. */
export const firstReason = (error: { issues: { message: string; placement?: string }[] }) => error.issues[0].placement ?? error.issues[0].message;
