// The image's HEALTHCHECK: exit 0 when the server's /readyz answers 200 (it asks Zoekt), else 1.
// Runs beside the server in the container, so it reaches it on the loopback address.
const port = process.env.ZOEKT_MCP_PORT || '3000';
const url = `http://127.0.0.1:${port}/readyz`;
try {
  const res = await fetch(url, { signal: AbortSignal.timeout(4000) });
  const body = await res.text();
  process.stdout.write(`${res.status} ${body.slice(0, 500)}\n`);
  process.exit(res.ok ? 0 : 1);
} catch (err) {
  process.stdout.write(`${url}: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
