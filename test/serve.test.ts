// The README's start command: serve loads the demo cloud into an empty database and prints the GraphiQL address.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { tempDbFile } from './helpers.js';

describe('placement-gql serve --demo', () => {
  it('loads the demo cloud, prints the GraphiQL address, and answers GraphQL over HTTP', async () => {
    const dbFile = tempDbFile();
    const port = String(20000 + Math.floor(Math.random() * 20000));
    const server = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve', '--demo', '--db', dbFile, '--port', port], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      let output = '';
      let errors = '';
      server.stderr.on('data', (chunk) => (errors += chunk));
      await new Promise<void>((resolve, reject) => {
        server.stdout.on('data', (chunk) => {
          output += chunk;
          if (output.includes('GraphiQL: ')) resolve();
        });
        server.on('exit', (code) => reject(new Error(`server exited with ${code}:\n${output}${errors}`)));
      });
      expect(output).toContain('Loaded the demo cloud');
      const address = output.match(/GraphiQL: (\S+)/)![1];
      expect(address).toBe(`http://127.0.0.1:${port}/graphql`);
      const page = await fetch(address, { headers: { accept: 'text/html' } });
      expect(await page.text()).toContain('query Dashboard');
      const answer = await fetch(address, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ resourceProviders { totalCount } }' }) });
      expect(await answer.json()).toEqual({ data: { resourceProviders: { totalCount: 33 } } });
    } finally {
      server.kill('SIGTERM');
    }
  });
});
