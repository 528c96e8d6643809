import { describe, expect, it } from 'vitest';
import { clientEntry } from '../../src/local/client-entry.js';

describe('the client entry the terminal run prints', () => {
  it('repeats the --repo arguments as absolute paths and the variables the command read', () => {
    const entry = clientEntry('/opt/zm/scripts/serve.sh', ['proj', '/abs/other'], { ZOEKT_MCP_DATA: 'data', ZOEKT_PORT: '7000', HOME: '/home/u', ZOEKT_MCP_REPOS: '' }, '/work');
    expect(entry).toEqual({
      mcpServers: { zoekt: { command: 'bash', args: ['/opt/zm/scripts/serve.sh', '--repo', '/work/proj', '--repo', '/abs/other'], env: { ZOEKT_MCP_DATA: '/work/data', ZOEKT_PORT: '7000' } } },
    });
  });

  it('is the bare command when nothing was given', () => {
    expect(clientEntry('/s.sh', [], {}, '/w')).toEqual({ mcpServers: { zoekt: { command: 'bash', args: ['/s.sh'] } } });
  });
});
