import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
const t0 = performance.now();
const transport = new StdioClientTransport({ command: 'bash', args: ['/work/main/scripts/serve.sh'], env: { PATH: (process.env.PP ?? '') + process.env.PATH, HOME: '/tmp', ZOEKT_MCP_TOOLS_DIR: '/work/main/.tools', ZOEKT_MCP_DATA: '/tmp/lr/data', ZOEKT_PORT: '0', ZOEKT_MCP_LINGER_MS: '0', ZOEKT_MCP_LOG_LEVEL: 'warn', ZOEKT_MCP_REPOS: '/tmp/lr/repo', ...(process.env.NO ? {} : { NODE_OPTIONS: '--cpu-prof --cpu-prof-dir=/tmp/prof2' }) }, stderr: 'inherit' });
const client = new Client({ name: 't', version: '1' });
await client.connect(transport);
console.log('connected', (performance.now() - t0).toFixed(0));
for (let i = 0; i < 20; i++) {
  const r = await client.callTool({ name: 'search_code', arguments: { query: 'export' } });
  const text = r.content[0].text;
  if (!/not yet|indexing|building/i.test(text.slice(0, 300)) && !r.isError) { console.log('answered', i, (performance.now() - t0).toFixed(0), text.slice(0, 100)); break; }
  await new Promise((r) => setTimeout(r, 500));
}
await client.close();
await new Promise((r) => setTimeout(r, 1500));
