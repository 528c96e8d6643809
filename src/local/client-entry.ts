/**
 * The MCP client entry that starts the local serve command the way it was started: its
 * repositories (`--repo`, as absolute paths) and the variables it read, so that copying it serves
 * the same code from the same index, not the default list.
 */
import { isAbsolute, resolve } from 'node:path';
import { SERVE_ENV } from './serve-env.js';

/** Variables of the serve command whose values are paths, made absolute for the client. */
const PATH_VARIABLES = new Set<string>([SERVE_ENV.repos.env, SERVE_ENV.data.env, SERVE_ENV.tools.env]);

export function clientEntry(serveScript: string, repos: readonly string[], env: NodeJS.ProcessEnv, cwd: string): { mcpServers: { zoekt: { command: string; args: string[]; env?: Record<string, string> } } } {
  const abs = (p: string) => (isAbsolute(p) ? p : resolve(cwd, p));
  const args = [serveScript, ...repos.flatMap((r) => ['--repo', abs(r)])];
  const vars: Record<string, string> = {};
  for (const spec of Object.values(SERVE_ENV)) {
    const v = env[spec.env];
    if (v !== undefined && v !== '') vars[spec.env] = PATH_VARIABLES.has(spec.env) ? abs(v) : v;
  }
  return { mcpServers: { zoekt: { command: 'bash', args, ...(Object.keys(vars).length ? { env: vars } : {}) } } };
}
