// The Node HTTP side of the server: the body limit counted as bytes arrive, whatever the framing.
// A Content-Length is checked by the limits plugin before parsing; a chunked body has none, so
// without this a client could make the server buffer any amount before a refusal.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';

export interface BodyLimited {
  (request: IncomingMessage, response: ServerResponse): unknown;
  limits: { maxBodyBytes: number };
  metrics: { refuse(limit: string): void };
}

export function nodeListener(server: BodyLimited): RequestListener {
  const max = server.limits.maxBodyBytes;
  return (request, response) => {
    if (request.headers['content-length'] === undefined && request.method !== 'GET' && request.method !== 'HEAD') {
      let received = 0;
      const count = (chunk: Buffer) => {
        received += chunk.length;
        if (received <= max || response.headersSent) return;
        request.off('data', count);
        server.metrics.refuse('maxBodyBytes');
        const body = JSON.stringify({ errors: [{ message: `Request body of more than ${max} bytes exceeds the limit maxBodyBytes = ${max}.`, extensions: { code: 'LIMIT_EXCEEDED', limit: 'maxBodyBytes' } }] });
        response.writeHead(413, { 'content-type': 'application/json', connection: 'close' });
        // Stop reading: the rest of the body is never buffered.
        response.end(body, () => request.destroy());
      };
      request.on('data', count);
    }
    return server(request, response);
  };
}
