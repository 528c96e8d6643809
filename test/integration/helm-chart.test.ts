/**
 * The Helm chart (deploy/helm/zoekt-mcp), without a cluster or a container engine: what can be
 * checked here is checked here.
 *   - `helm lint --strict` and `helm template`, with Helm 3 and Helm 4 (built from the Go module
 *     proxy at pinned versions), for the default values and three other sets; both render the
 *     same objects.
 *   - Every rendered object decoded strictly into the Go type the API server decodes it into
 *     (test/support/k8s-validate: k8s.io/api at the version its go.mod pins; a field the type
 *     does not have, or a value of the wrong type, is an error). Chosen over kubeconform because
 *     its JSON schemas are not installable here, and over the API server's semantic validation,
 *     which cannot be imported as a library: the wiring that validation would check is asserted
 *     below instead.
 *   - The wiring: ZOEKT_URL names exactly the StatefulSet's pods, probes, the Secret, selectors.
 *   - The rendered pods' containers run as ordinary processes on loopback: three Zoekt shards,
 *     each with its indexer over a split of git mirrors of the fixtures, and two adapter
 *     replicas; one client walks a search across both replicas with one cursor, while a shard
 *     stops and comes back.
 * Not checked: scheduling, the images themselves, DNS, the NetworkPolicies' enforcement, and the
 * Secret's lookup on upgrade (`helm template` cannot read a cluster).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, posix } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import type { CodeSearchOutput } from '../../src/search/code.js';
import { dockerfileStages, indexerShard, namedStage, type Instruction } from '../support/dockerfile.js';
import { connectStreamable, raw, startAdapter, type Adapter } from '../support/http.js';
import { call, ok, type Connected } from '../support/mcp.js';
import { READINESS_TIMEOUT_MS } from '../../src/zoekt/client.js';
import { FIXTURES, git, listeningPort, ROOT, TOOLS_DIR, ZOEKT_BIN } from '../support/zoekt.js';

const CHART = join(ROOT, 'deploy/helm/zoekt-mcp');
const VALIDATE_DIR = join(ROOT, 'test/support/k8s-validate');
const VALIDATE = join(TOOLS_DIR, 'k8s-validate', 'k8s-validate');
const HELMS = /^HELM_VERSIONS="([^"]+)"$/m
  .exec(readFileSync(join(VALIDATE_DIR, 'helm.env'), 'utf8'))![1]!
  .split(' ')
  .map((v) => [`Helm ${v}`, join(TOOLS_DIR, 'helm', v, 'helm')] as const);
/** The Kubernetes version of the k8s.io/api types the objects are decoded into. */
const KUBE_VERSION = /^\s*k8s\.io\/api v0\.(\d+)\.(\d+)$/m
  .exec(readFileSync(join(VALIDATE_DIR, 'go.mod'), 'utf8'))!
  .slice(1)
  .join('.')
  .replace(/^/, '1.');
const NS = 'search';
const RELEASE = 'zm';
const POD_INDEX = "metadata.labels['apps.kubernetes.io/pod-index']";

/* eslint-disable @typescript-eslint/no-explicit-any -- rendered objects are checked by their kinds' Go types, above; here they are read. */
type K8s = { apiVersion: string; kind: string; metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> }; spec?: any; data?: Record<string, string> };
type Container = { name: string; image: string; command?: string[]; args?: string[]; env?: { name: string; value?: string; valueFrom?: any }[]; ports?: { name: string; containerPort: number }[]; readinessProbe?: any; livenessProbe?: any; lifecycle?: any; securityContext?: any; volumeMounts?: { name: string; mountPath: string }[] };
/* eslint-enable @typescript-eslint/no-explicit-any */

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'zoekt-mcp-helm-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

function helm(bin: string, args: string[]) {
  const r = spawnSync(bin, args, { encoding: 'utf8', timeout: 60_000, env: { PATH: process.env.PATH ?? '', HOME: work, HELM_CACHE_HOME: join(work, 'helm-cache'), HELM_CONFIG_HOME: join(work, 'helm-config'), HELM_DATA_HOME: join(work, 'helm-data') } });
  expect(r.error).toBeUndefined();
  return r;
}

let valuesFiles = 0;
function valuesFile(values: object): string {
  const file = join(work, `values-${valuesFiles++}.json`);
  writeFileSync(file, JSON.stringify(values));
  return file;
}

function template(bin: string, values: object) {
  return helm(bin, ['template', RELEASE, CHART, '--namespace', NS, '--kube-version', KUBE_VERSION, '-f', valuesFile(values)]);
}

function render(values: object, bin: string = HELMS[HELMS.length - 1]![1]): { text: string; objects: K8s[] } {
  const r = template(bin, values);
  expect(r.status, r.stderr).toBe(0);
  const objects = parseAllDocuments(r.stdout)
    .map((d) => d.toJS() as K8s | null)
    .filter((o): o is K8s => o !== null);
  return { text: r.stdout, objects };
}

function validate(text: string): { kind: string; name: string; error?: string }[] {
  const r = spawnSync(VALIDATE, { input: text, encoding: 'utf8', timeout: 30_000 });
  expect(r.error).toBeUndefined();
  expect(r.stderr).toBe('');
  return r.stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { kind: string; name: string; error?: string });
}

const only = (objects: K8s[], kind: string): K8s => {
  const found = objects.filter((o) => o.kind === kind);
  expect(found.map((o) => o.metadata.name), kind).toHaveLength(1);
  return found[0]!;
};
const named = (objects: K8s[], kind: string, name: string): K8s => {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  expect(found, `${kind} ${name}`).toBeDefined();
  return found!;
};
const containers = (workload: K8s): Container[] => workload.spec.template.spec.containers as Container[];
const container = (workload: K8s, name: string): Container => {
  const c = containers(workload).find((x) => x.name === name);
  expect(c, `${workload.metadata.name}: container ${name}`).toBeDefined();
  return c!;
};
const env = (c: Container, name: string) => c.env?.find((e) => e.name === name);
const envValue = (c: Container, name: string): string => {
  const e = env(c, name);
  expect(e?.value, `${c.name}: ${name}`).toBeTypeOf('string');
  return e!.value!;
};
/** Whether a label selector's matchLabels select pods with these labels. */
const selects = (matchLabels: Record<string, string>, labels: Record<string, string>) => Object.keys(matchLabels).length > 0 && Object.entries(matchLabels).every(([k, v]) => labels[k] === v);
const podLabels = (workload: K8s): Record<string, string> => workload.spec.template.metadata.labels as Record<string, string>;
const portOf = (c: Container, name: string | number): number => (typeof name === 'number' ? name : c.ports!.find((p) => p.name === name)!.containerPort);
const decode = (b64: string) => Buffer.from(b64, 'base64').toString('utf8');

const VALUE_SETS: [string, object][] = [
  ['the defaults', {}],
  ['one shard, no autoscaler', { shards: 1, adapter: { autoscaling: { enabled: false }, replicas: 2 } }],
  [
    'five shards with an Ingress, NetworkPolicies and a ServiceMonitor',
    {
      shards: 5,
      ingress: { enabled: true, className: 'nginx', hosts: ['mcp.example.com'], tls: [{ secretName: 'mcp-tls', hosts: ['mcp.example.com'] }] },
      networkPolicy: { enabled: true, clients: [{ namespaceSelector: { matchLabels: { 'zoekt-mcp-client': 'true' } } }] },
      metrics: { serviceMonitor: { enabled: true } },
      indexer: { mirrors: ['https://github.com/sourcegraph/zoekt.git', 'https://github.com/golang/go.git'] },
    },
  ],
  ['an existing Secret and ConfigMap', { auth: { existingSecret: 'team-mcp-auth', tokenKey: 'token', cursorSecretKey: 'cursor' }, indexer: { existingConfigMap: 'team-repos', configMapKey: 'repos.txt' } }],
  [
    'OAuth sign-in with repositories per team, and a ServiceMonitor with a client of its own',
    {
      auth: {
        oauth: {
          issuers: ['https://login.example.com/realms/dev'],
          publicUrl: 'https://mcp.example.com',
          reposClaim: 'groups',
          repos: { 'team-b': ['github.com/acme/b-*'], 'team-a': ['github.com/acme/a-*', 'github.com/acme/shared'] },
        },
      },
      metrics: {
        serviceMonitor: {
          enabled: true,
          oauth2: { clientId: { secret: { name: 'prom-oauth', key: 'id' } }, clientSecret: { name: 'prom-oauth', key: 'secret' }, tokenUrl: 'https://login.example.com/realms/dev/token', scopes: ['zoekt:read'] },
        },
      },
    },
  ],
  ['a Weaviate server for the definitions index, with NetworkPolicies', { weaviate: { enabled: true }, networkPolicy: { enabled: true, clients: [{ namespaceSelector: { matchLabels: { 'zoekt-mcp-client': 'true' } } }] } }],
];
const OAUTH = VALUE_SETS[4]![1];
const WEAVIATE = VALUE_SETS[5]![1];
const FIVE = VALUE_SETS[2]![1];
const EXISTING = VALUE_SETS[3]![1];

describe.each(HELMS)('%s', (_name, bin) => {
  it.each(VALUE_SETS)('lints strictly and renders objects that decode strictly: %s', (_set, values) => {
    const lint = helm(bin, ['lint', '--strict', CHART, '--namespace', NS, '--kube-version', KUBE_VERSION, '-f', valuesFile(values)]);
    expect(lint.status, `${lint.stdout}${lint.stderr}`).toBe(0);
    expect(lint.stdout).toContain('0 chart(s) failed');
    expect(lint.stdout).not.toMatch(/\[(WARNING|ERROR)\]/);
    const { text, objects } = render(values, bin);
    const checked = validate(text);
    expect(checked.filter((c) => c.error)).toEqual([]);
    expect(checked.map((c) => `${c.kind}/${c.name}`)).toEqual(objects.map((o) => `${o.apiVersion}/${o.kind}/${o.metadata.name}`));
    for (const kind of ['StatefulSet', 'Deployment', 'Service', 'PodDisruptionBudget', 'ServiceAccount']) expect(objects.some((o) => o.kind === kind), kind).toBe(true);
  });

  it('refuses values it cannot honour, with a message that names them', () => {
    const refused: [object, RegExp][] = [
      [{ adapter: { replicaz: 3 } }, /additional properties 'replicaz' not allowed/],
      [{ shards: 0 }, /\/shards.*minimum/],
      [{ adapter: { autoscaling: { enabled: false }, replicas: 1 } }, /\/adapter\/replicas.*minimum/],
      [{ adapter: { autoscaling: { minReplicas: 4, maxReplicas: 3 } } }, /maxReplicas \(3\) must be at least minReplicas \(4\)/],
      [{ ingress: { enabled: true } }, /ingress\.hosts must name at least one host/],
      [{ adapter: { terminationGracePeriodSeconds: 12 } }, /terminationGracePeriodSeconds \(12\) must be at least adapter\.preStopSleepSeconds \(5\) \+ 10/],
      [{ indexer: { interval: 0 } }, /\/indexer\/interval.*minimum/],
      // A zero sleep needs a feature gate that is off in Kubernetes 1.32.
      [{ adapter: { preStopSleepSeconds: 0 } }, /\/adapter\/preStopSleepSeconds.*minimum/],
      // zoekt-mcp compares Host headers with names, not patterns.
      [{ ingress: { enabled: true, hosts: ['*.example.com'] } }, /\/ingress\/hosts\/0.*does not match pattern/],
      [{ auth: { oauth: { issuers: ['https://login.example.com'] } } }, /auth\.oauth\.publicUrl must be set with auth\.oauth\.issuers/],
      [{ auth: { oauth: { issuers: ['https://login.example.com'], publicUrl: 'https://mcp.example.com', reposClaim: 'groups' } } }, /auth\.oauth\.reposClaim needs auth\.oauth\.repos/],
      [{ auth: { oauth: { issuers: ['https://login.example.com'], publicUrl: 'https://mcp.example.com' } }, metrics: { serviceMonitor: { enabled: true } } }, /metrics\.serviceMonitor\.oauth2 must be set with auth\.oauth\.issuers/],
      [{ auth: { oauth: { issuers: ['login.example.com'] } } }, /\/auth\/oauth\/issuers\/0.*does not match pattern/],
      [{ auth: { oauth: { issuers: ['https://login.example.com'], publicUrl: 'https://mcp.example.com', clientId: 'zoekt-mcp' } } }, /auth\.oauth\.clientId needs auth\.existingSecret/],
    ];
    for (const [values, says] of refused) {
      const r = template(bin, values);
      expect(r.status, JSON.stringify(values)).not.toBe(0);
      expect(r.stderr, JSON.stringify(values)).toMatch(says);
    }
  });
});

describe('the objects', () => {
  it('are the same whichever Helm renders them (but for the random values drawn for a new Secret)', () => {
    const masked = (objects: K8s[]) => objects.map((o) => (o.kind === 'Secret' ? { ...o, data: Object.keys(o.data ?? {}) } : o));
    for (const [, values] of VALUE_SETS) {
      const [first, ...rest] = HELMS.map(([, bin]) => masked(render(values, bin).objects));
      for (const other of rest) expect(other).toEqual(first);
    }
  });

  it('the strict decoding catches unknown fields and values of the wrong type', () => {
    const deployment = only(render({}).objects, 'Deployment');
    const bad = (mutate: (d: K8s) => void) => {
      const copy = structuredClone(deployment);
      mutate(copy);
      return validate(JSON.stringify(copy))[0]!.error;
    };
    expect(bad(() => {})).toBeUndefined();
    expect(bad((d) => (d.spec.replica = 2))).toMatch(/unknown field "replica"/);
    expect(bad((d) => (containers(d)[0]!.ports![0]!.containerPort = 'http' as unknown as number))).toMatch(/containerPort/);
    expect(bad((d) => (d.spec.template.spec.containers[0].readinessProbe.httpGet.paths = '/readyz'))).toMatch(/unknown field "paths"/);
  });

  it.each([1, 2, 3, 5, 12])("ZOEKT_URL names exactly the StatefulSet's pods through its headless Service (%i shards)", (shards) => {
    const { objects } = render({ shards });
    const sts = only(objects, 'StatefulSet');
    expect(sts.spec.replicas).toBe(shards);
    const svc = named(objects, 'Service', sts.spec.serviceName as string);
    expect(svc.spec.clusterIP).toBe('None');
    expect(selects(svc.spec.selector, podLabels(sts))).toBe(true);
    const zoekt = container(sts, 'zoekt-webserver');
    const port = svc.spec.ports[0];
    expect(portOf(zoekt, port.targetPort)).toBe(port.port);
    const expected = Array.from({ length: shards }, (_, i) => `http://${sts.metadata.name}-${i}.${svc.metadata.name}.${NS}.svc.cluster.local:${port.port}`);
    expect(envValue(container(only(objects, 'Deployment'), 'zoekt-mcp'), 'ZOEKT_URL').split(',')).toEqual(expected);
    // Each pod indexes its own share: every shards-th repository from its pod index.
    const indexer = container(sts, 'indexer');
    expect(envValue(indexer, 'SHARD_COUNT')).toBe(String(shards));
    expect(env(indexer, 'SHARD')).toBeUndefined();
    expect(env(indexer, 'SHARD_INDEX')?.valueFrom).toEqual({ fieldRef: { fieldPath: POD_INDEX } });
    // A long release name still gives a StatefulSet of 52 characters at most: its pods carry a
    // controller-revision-hash label of its name and 11 more, and a label value is 63 at most.
    const long = render({ shards, fullnameOverride: 'x'.repeat(63) }).objects;
    const longSts = only(long, 'StatefulSet');
    expect(longSts.metadata.name.length).toBeLessThanOrEqual(52);
    expect(longSts.metadata.name.length).toBeGreaterThan(40);
    expect(envValue(container(only(long, 'Deployment'), 'zoekt-mcp'), 'ZOEKT_URL').split(',')[shards - 1]).toBe(`http://${longSts.metadata.name}-${shards - 1}.${longSts.spec.serviceName}.${NS}.svc.cluster.local:${port.port}`);
  });

  it('points probes at the ports the processes listen on: the adapter on ZOEKT_MCP_PORT, Zoekt on its -listen port', () => {
    const { objects } = render({ adapter: { port: 8080 }, zoekt: { port: 7070 } });
    const adapter = container(only(objects, 'Deployment'), 'zoekt-mcp');
    const listens = Number(envValue(adapter, 'ZOEKT_MCP_PORT'));
    expect(listens).toBe(8080);
    expect(adapter.readinessProbe.httpGet.path).toBe('/readyz');
    expect(adapter.livenessProbe.httpGet.path).toBe('/healthz');
    // /readyz waits for each shard at most READINESS_TIMEOUT_MS: a shard that hangs must not time
    // out every replica's probe at once.
    expect(adapter.readinessProbe.timeoutSeconds * 1000).toBeGreaterThan(READINESS_TIMEOUT_MS);
    for (const probe of [adapter.readinessProbe, adapter.livenessProbe]) expect(portOf(adapter, probe.httpGet.port)).toBe(listens);
    const zoekt = container(only(objects, 'StatefulSet'), 'zoekt-webserver');
    const listen = zoekt.args![zoekt.args!.indexOf('-listen') + 1]!;
    expect(listen).toBe(':7070');
    expect(zoekt.args).toContain('-rpc');
    expect(zoekt.readinessProbe.httpGet.path).toBe('/readyz');
    expect(portOf(zoekt, zoekt.readinessProbe.httpGet.port)).toBe(7070);
    // Alive while it accepts connections, so loading a large index does not get it restarted.
    expect(zoekt.livenessProbe.httpGet).toBeUndefined();
    expect(portOf(zoekt, zoekt.livenessProbe.tcpSocket.port)).toBe(7070);
    const svc = named(objects, 'Service', only(objects, 'Deployment').metadata.name);
    expect(portOf(adapter, svc.spec.ports[0].targetPort)).toBe(8080);
  });

  it('takes the token and the cursor key from the Secret and never inlines them', () => {
    const { text, objects } = render(FIVE);
    const secret = only(objects, 'Secret');
    expect(secret.metadata.annotations?.['helm.sh/resource-policy']).toBe('keep');
    const token = decode(secret.data!['auth-token']!);
    const cursor = decode(secret.data!['cursor-secret']!);
    for (const value of [token, cursor]) expect(value).toMatch(/^[A-Za-z0-9]{48}$/);
    expect(token).not.toBe(cursor);
    const withoutSecret = text.replace(/^kind: Secret$[\s\S]*?^---$/m, '');
    for (const value of [token, cursor, secret.data!['auth-token']!]) expect(withoutSecret).not.toContain(value);
    const adapter = container(only(objects, 'Deployment'), 'zoekt-mcp');
    expect(env(adapter, 'ZOEKT_MCP_AUTH_TOKEN')).toEqual({ name: 'ZOEKT_MCP_AUTH_TOKEN', valueFrom: { secretKeyRef: { name: secret.metadata.name, key: 'auth-token' } } });
    expect(env(adapter, 'ZOEKT_MCP_CURSOR_SECRET')).toEqual({ name: 'ZOEKT_MCP_CURSOR_SECRET', valueFrom: { secretKeyRef: { name: secret.metadata.name, key: 'cursor-secret' } } });
    expect(only(objects, 'ServiceMonitor').spec.endpoints[0].authorization).toEqual({ type: 'Bearer', credentials: { name: secret.metadata.name, key: 'auth-token' } });

    const existing = render({ ...EXISTING, metrics: { serviceMonitor: { enabled: true } } }).objects;
    expect(existing.some((o) => o.kind === 'Secret')).toBe(false);
    const theirs = container(only(existing, 'Deployment'), 'zoekt-mcp');
    expect(env(theirs, 'ZOEKT_MCP_AUTH_TOKEN')?.valueFrom).toEqual({ secretKeyRef: { name: 'team-mcp-auth', key: 'token' } });
    expect(env(theirs, 'ZOEKT_MCP_CURSOR_SECRET')?.valueFrom).toEqual({ secretKeyRef: { name: 'team-mcp-auth', key: 'cursor' } });
    expect(only(existing, 'ServiceMonitor').spec.endpoints[0].authorization.credentials).toEqual({ name: 'team-mcp-auth', key: 'token' });
    // ...and the mirror list from the ConfigMap named, read by the indexer from the file it mounts.
    expect(existing.some((o) => o.kind === 'ConfigMap')).toBe(false);
    const sts = only(existing, 'StatefulSet');
    const volume = sts.spec.template.spec.volumes.find((v: { configMap?: { name: string } }) => v.configMap);
    expect(volume.configMap.name).toBe('team-repos');
    const mount = container(sts, 'indexer').volumeMounts!.find((m) => m.name === volume.name)!;
    expect(envValue(container(sts, 'indexer'), 'MIRROR_URLS_FILE')).toBe(posix.join(mount.mountPath, 'repos.txt'));
  });

  it('signs in through the issuers instead of the static token, with a table zoekt-mcp reads as given', async () => {
    const { objects } = render(OAUTH);
    const adapter = container(only(objects, 'Deployment'), 'zoekt-mcp');
    expect(env(adapter, 'ZOEKT_MCP_AUTH_TOKEN')).toBeUndefined();
    expect(env(adapter, 'ZOEKT_MCP_CURSOR_SECRET')?.valueFrom).toBeDefined();
    const given = Object.fromEntries((adapter.env ?? []).filter((e) => e.value !== undefined).map((e) => [e.name, e.value!]));
    expect(given).toMatchObject({
      ZOEKT_MCP_OAUTH_ISSUER: 'https://login.example.com/realms/dev',
      ZOEKT_MCP_PUBLIC_URL: 'https://mcp.example.com',
      ZOEKT_MCP_OAUTH_SCOPE: 'zoekt:read',
      ZOEKT_MCP_OAUTH_REPOS_CLAIM: 'groups',
    });
    // The server's own option parsing takes what the chart wrote.
    const { loadConfig } = await import('../../src/config.js');
    const out = loadConfig([], { ...given, ZOEKT_MCP_ALLOWED_HOSTS: 'mcp.example.com' });
    if (out.kind !== 'run') throw new Error(JSON.stringify(out));
    expect(out.config.http?.oauth).toEqual({
      issuers: ['https://login.example.com/realms/dev'],
      scope: 'zoekt:read',
      reposClaim: 'groups',
      reposMap: [
        { value: 'team-a', globs: ['github.com/acme/a-*', 'github.com/acme/shared'] },
        { value: 'team-b', globs: ['github.com/acme/b-*'] },
      ],
    });
    expect(env(adapter, 'ZOEKT_MCP_OAUTH_CLIENT_ID')).toBeUndefined();
    // The adapter's own client for introspection: its secret from the Secret named, never inlined.
    const introspecting = container(
      only(render({ auth: { existingSecret: 'team-mcp-auth', oauth: { ...(OAUTH as { auth: { oauth: object } }).auth.oauth, clientId: 'zoekt-mcp', clientSecretKey: 'introspection' } } }).objects, 'Deployment'),
      'zoekt-mcp',
    );
    expect(envValue(introspecting, 'ZOEKT_MCP_OAUTH_CLIENT_ID')).toBe('zoekt-mcp');
    expect(env(introspecting, 'ZOEKT_MCP_OAUTH_CLIENT_SECRET')?.valueFrom).toEqual({ secretKeyRef: { name: 'team-mcp-auth', key: 'introspection' } });
    const endpoint = only(objects, 'ServiceMonitor').spec.endpoints[0];
    expect(endpoint.authorization).toBeUndefined();
    expect(endpoint.oauth2).toEqual((OAUTH as { metrics: { serviceMonitor: { oauth2: object } } }).metrics.serviceMonitor.oauth2);
  });

  it('NetworkPolicies: only the adapter reaches the shards, and only the Ingress controller, the clients named and Prometheus reach the adapter', () => {
    const { objects } = render(FIVE);
    const sts = only(objects, 'StatefulSet');
    const deployment = only(objects, 'Deployment');
    const policies = objects.filter((o) => o.kind === 'NetworkPolicy');
    expect(policies).toHaveLength(2);
    const guarding = (workload: K8s) => policies.filter((p) => selects(p.spec.podSelector.matchLabels, podLabels(workload)));
    const [shards] = guarding(sts);
    const [adapters] = guarding(deployment);
    expect(guarding(sts)).toHaveLength(1);
    expect(guarding(deployment)).toHaveLength(1);
    expect(shards).not.toBe(adapters);
    for (const p of policies) expect(p.spec.policyTypes).toEqual(['Ingress']);
    // Shards: from the adapter's pods only, to Zoekt's port.
    expect(shards!.spec.ingress).toHaveLength(1);
    const from = shards!.spec.ingress[0].from;
    expect(from).toHaveLength(1);
    expect(Object.keys(from[0])).toEqual(['podSelector']);
    expect(selects(from[0].podSelector.matchLabels, podLabels(deployment))).toBe(true);
    expect(selects(from[0].podSelector.matchLabels, podLabels(sts))).toBe(false);
    expect(portOf(container(sts, 'zoekt-webserver'), shards!.spec.ingress[0].ports[0].port)).toBe(6070);
    // Adapter: the Ingress controller's namespace, the clients' namespace label, Prometheus' namespace.
    expect(adapters!.spec.ingress).toHaveLength(1);
    expect(adapters!.spec.ingress[0].from).toEqual([
      { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } }, podSelector: {} },
      { namespaceSelector: { matchLabels: { 'zoekt-mcp-client': 'true' } } },
      { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } }, podSelector: {} },
    ]);
    expect(portOf(container(deployment, 'zoekt-mcp'), adapters!.spec.ingress[0].ports[0].port)).toBe(3000);
    // With nobody named, nobody gets in (rather than everybody).
    const closed = render({ networkPolicy: { enabled: true } }).objects.filter((o) => o.kind === 'NetworkPolicy');
    expect(closed.find((p) => p.metadata.name === deployment.metadata.name)!.spec.ingress).toEqual([]);
    expect(render({}).objects.some((o) => o.kind === 'NetworkPolicy')).toBe(false);
  });

  it('Weaviate for the definitions index: one node on a volume, which the adapters search and the indexers push to, reached by them only', () => {
    const { objects } = render(WEAVIATE);
    const deployment = only(objects, 'Deployment');
    const sets = objects.filter((o) => o.kind === 'StatefulSet');
    expect(sets).toHaveLength(2);
    const weaviate = sets.find((o) => o.metadata.labels?.['app.kubernetes.io/component'] === 'weaviate')!;
    const shards = sets.find((o) => o !== weaviate)!;
    expect(weaviate.spec.replicas).toBe(1);
    const svc = named(objects, 'Service', weaviate.spec.serviceName as string);
    expect(selects(svc.spec.selector, podLabels(weaviate))).toBe(true);
    expect(selects(svc.spec.selector, podLabels(shards))).toBe(false);
    const server = container(weaviate, 'weaviate');
    const port = svc.spec.ports[0];
    expect(portOf(server, port.targetPort)).toBe(port.port);
    // It listens where the Service sends, and is ready when its own readiness endpoint says so.
    expect(server.args).toEqual(['--host', '0.0.0.0', '--port', String(port.port), '--scheme', 'http']);
    expect(server.readinessProbe.httpGet).toEqual({ path: '/v1/.well-known/ready', port: 'weaviate' });
    expect(portOf(server, server.livenessProbe.httpGet.port)).toBe(port.port);
    const url = `http://${svc.metadata.name}.${NS}.svc.cluster.local:${port.port}`;
    expect(envValue(container(deployment, 'zoekt-mcp'), 'ZOEKT_MCP_DEFINITIONS_URL')).toBe(url);
    expect(envValue(container(shards, 'indexer'), 'ZOEKT_MCP_DEFINITIONS_URL')).toBe(url);
    expect(envValue(container(shards, 'indexer'), 'DEFINITIONS_DIR')).toBe('/data/index/definitions');
    // One Raft node whose name survives a restart; vectors come from zoekt-mcp, none made inside.
    expect(env(server, 'CLUSTER_HOSTNAME')?.valueFrom).toEqual({ fieldRef: { fieldPath: 'metadata.name' } });
    expect(env(server, 'CLUSTER_ADVERTISE_ADDR')?.valueFrom).toEqual({ fieldRef: { fieldPath: 'status.podIP' } });
    expect(envValue(server, 'RAFT_BOOTSTRAP_EXPECT')).toBe('1');
    expect(envValue(server, 'DEFAULT_VECTORIZER_MODULE')).toBe('none');
    // The data on a volume of its own, where PERSISTENCE_DATA_PATH says.
    const data = envValue(server, 'PERSISTENCE_DATA_PATH');
    expect(server.volumeMounts).toContainEqual({ name: 'data', mountPath: data });
    expect(weaviate.spec.volumeClaimTemplates.map((c: K8s) => c.metadata.name)).toEqual(['data']);
    expect(weaviate.spec.volumeClaimTemplates[0].spec.resources.requests.storage).toBe('10Gi');
    const ephemeral = render({ weaviate: { enabled: true, persistence: { enabled: false } } }).objects.find((o) => o.kind === 'StatefulSet' && o.metadata.name === weaviate.metadata.name)!;
    expect(ephemeral.spec.volumeClaimTemplates).toBeUndefined();
    expect(ephemeral.spec.template.spec.volumes).toContainEqual({ name: 'data', emptyDir: {} });
    // The image is the version the tests run (scripts/install-weaviate.sh builds it).
    const pinned = /^WEAVIATE_VERSION=v(\S+)$/m.exec(readFileSync(join(ROOT, 'scripts/install-weaviate.sh'), 'utf8'))![1]!;
    expect(server.image).toBe(`cr.weaviate.io/semitechnologies/weaviate:${pinned}`);
    expect(server.securityContext).toEqual({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, runAsNonRoot: true, capabilities: { drop: ['ALL'] } });
    expect(weaviate.spec.template.spec.automountServiceAccountToken).toBe(false);
    // Only the adapters and the shard pods (their indexers) reach it.
    const guarding = objects.filter((o) => o.kind === 'NetworkPolicy' && selects(o.spec.podSelector.matchLabels, podLabels(weaviate)));
    expect(guarding).toHaveLength(1);
    const rule = guarding[0]!.spec.ingress;
    expect(rule).toHaveLength(1);
    expect(rule[0].from).toHaveLength(2);
    expect(rule[0].from.map((f: { podSelector: { matchLabels: Record<string, string> } }) => [deployment, shards].findIndex((w) => selects(f.podSelector.matchLabels, podLabels(w))))).toEqual([0, 1]);
    expect(portOf(server, rule[0].ports[0].port)).toBe(port.port);
    // Off by default: nothing of it, and no definitions URL.
    const plain = render({}).objects;
    expect(plain.some((o) => o.metadata.labels?.['app.kubernetes.io/component'] === 'weaviate')).toBe(false);
    expect(env(container(only(plain, 'Deployment'), 'zoekt-mcp'), 'ZOEKT_MCP_DEFINITIONS_URL')).toBeUndefined();
  });

  it('scales the adapter on CPU from 2 replicas, and disruption budgets select each part', () => {
    const { objects } = render({});
    const deployment = only(objects, 'Deployment');
    const sts = only(objects, 'StatefulSet');
    const hpa = only(objects, 'HorizontalPodAutoscaler');
    expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: deployment.metadata.name });
    expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(2);
    expect(hpa.spec.metrics).toEqual([{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } }]);
    // The autoscaler owns the replica count; a CPU target needs a CPU request.
    expect(deployment.spec.replicas).toBeUndefined();
    expect(container(deployment, 'zoekt-mcp')).toHaveProperty('resources.requests.cpu');
    const pdbs = objects.filter((o) => o.kind === 'PodDisruptionBudget');
    expect(pdbs).toHaveLength(2);
    const pdbOf = (w: K8s) => pdbs.filter((p) => selects(p.spec.selector.matchLabels, podLabels(w)));
    expect(pdbOf(deployment)).toHaveLength(1);
    expect(pdbOf(sts)).toHaveLength(1);
    expect(pdbOf(deployment)[0]!.spec.minAvailable).toBe(1);
    expect(pdbOf(sts)[0]!.spec.maxUnavailable).toBe(1);
    for (const w of [deployment, sts]) expect(selects(w.spec.selector.matchLabels, podLabels(w))).toBe(true);
    const fixed = render({ adapter: { autoscaling: { enabled: false }, replicas: 3 } }).objects;
    expect(only(fixed, 'Deployment').spec.replicas).toBe(3);
    expect(fixed.some((o) => o.kind === 'HorizontalPodAutoscaler')).toBe(false);
  });

  it('runs every container as non-root on a read-only root, without a service-account token', () => {
    const { objects } = render({});
    expect(only(objects, 'ServiceAccount')).toHaveProperty('automountServiceAccountToken', false);
    for (const workload of [only(objects, 'Deployment'), only(objects, 'StatefulSet')]) {
      const pod = workload.spec.template.spec;
      expect(pod.automountServiceAccountToken).toBe(false);
      expect(pod.serviceAccountName).toBe(only(objects, 'ServiceAccount').metadata.name);
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
      expect(pod.securityContext.runAsUser).toBeGreaterThan(0);
      for (const c of containers(workload)) {
        expect(c.securityContext, c.name).toEqual({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, runAsNonRoot: true, capabilities: { drop: ['ALL'] } });
        expect(c.image, c.name).toMatch(/:[\w.-]+$/);
      }
    }
    // Zoekt's image is pinned as in docker/compose.yaml; the images built here default to this version.
    const compose = readFileSync(join(ROOT, 'docker/compose.yaml'), 'utf8');
    expect(compose).toContain(container(only(objects, 'StatefulSet'), 'zoekt-webserver').image);
    const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    expect(readFileSync(join(CHART, 'Chart.yaml'), 'utf8')).toMatch(new RegExp(`^appVersion: "${version.replace(/\./g, '\\.')}"$`, 'm'));
    expect(container(only(objects, 'Deployment'), 'zoekt-mcp').image).toBe(`zoekt-mcp:${version}`);
    expect(container(only(objects, 'StatefulSet'), 'indexer').image).toBe(`zoekt-mcp-indexer:${version}`);
  });

  it('stops the adapter gracefully: the endpoint is gone before SIGTERM, and in-flight calls finish within the grace period', () => {
    for (const [grace, sleep] of [[30, 5], [60, 10], [15, 5], [11, 1]] as const) {
      const deployment = only(render({ adapter: { terminationGracePeriodSeconds: grace, preStopSleepSeconds: sleep } }).objects, 'Deployment');
      expect(deployment.spec.template.spec.terminationGracePeriodSeconds).toBe(grace);
      const adapter = container(deployment, 'zoekt-mcp');
      expect(adapter.lifecycle).toEqual({ preStop: { sleep: { seconds: sleep } } });
      const drain = Number(envValue(adapter, 'ZOEKT_MCP_SHUTDOWN_TIMEOUT_MS'));
      expect(drain).toBeGreaterThan(0);
      expect(sleep * 1000 + drain).toBeLessThan(grace * 1000);
    }
  });

  it('serves the Ingress hosts: each is an allowed Host of the adapter, routed to its Service', () => {
    const { objects } = render(FIVE);
    const ingress = only(objects, 'Ingress');
    const svc = named(objects, 'Service', only(objects, 'Deployment').metadata.name);
    const allowed = envValue(container(only(objects, 'Deployment'), 'zoekt-mcp'), 'ZOEKT_MCP_ALLOWED_HOSTS').split(',');
    expect(ingress.spec.rules.map((r: { host: string }) => r.host)).toEqual(['mcp.example.com']);
    expect(allowed).toEqual([svc.metadata.name, `${svc.metadata.name}.${NS}`, `${svc.metadata.name}.${NS}.svc`, `${svc.metadata.name}.${NS}.svc.cluster.local`, '$(POD_IP)', 'mcp.example.com']);
    // $(POD_IP), for Prometheus, which scrapes by the pod's address, is defined before it is used.
    const adapter = container(only(objects, 'Deployment'), 'zoekt-mcp');
    const names = adapter.env!.map((e) => e.name);
    expect(env(adapter, 'POD_IP')?.valueFrom).toEqual({ fieldRef: { fieldPath: 'status.podIP' } });
    expect(names.indexOf('POD_IP')).toBeLessThan(names.indexOf('ZOEKT_MCP_ALLOWED_HOSTS'));
    const backend = ingress.spec.rules[0].http.paths[0].backend.service;
    expect(backend.name).toBe(svc.metadata.name);
    expect(svc.spec.ports.map((p: { name: string }) => p.name)).toContain(backend.port.name);
    expect(ingress.spec.ingressClassName).toBe('nginx');
    expect(ingress.spec.tls).toEqual([{ secretName: 'mcp-tls', hosts: ['mcp.example.com'] }]);
  });
});

// ---------------------------------------------------------------- the rendered pods on loopback

/** A container of the Dockerfile's stage, as the image runs it: its ENTRYPOINT and ENV. */
function imageStage(target: 'runtime' | 'indexer'): { entrypoint: string[]; env: Record<string, string>; instructions: Instruction[] } {
  const all = dockerfileStages();
  const stage = target === 'indexer' ? namedStage(all, 'indexer')! : all[all.length - 1]!;
  const entrypoint = JSON.parse(stage.find((i) => i.cmd === 'ENTRYPOINT')!.args) as string[];
  const env: Record<string, string> = {};
  for (const i of stage.filter((x) => x.cmd === 'ENV')) for (const [, k, v] of i.args.matchAll(/([A-Z_][A-Z0-9_]*)=(\S*)/g)) env[k!] = v!;
  return { entrypoint, env, instructions: stage };
}

interface Pod {
  name: string;
  index: number;
  dirs: Record<string, string>;
}

/**
 * A pod's environment for one container, as the kubelet makes it: values as given, with
 * $(NAME) replaced by a variable defined before it; the pod's index and address (loopback
 * here) and Secret keys resolved.
 */
function resolveEnv(c: Container, pod: Pod, objects: K8s[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of c.env ?? []) {
    if (e.value !== undefined) out[e.name] = e.value.replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (m, name: string) => out[name] ?? m);
    else if (e.valueFrom?.fieldRef?.fieldPath === POD_INDEX) out[e.name] = String(pod.index);
    else if (e.valueFrom?.fieldRef?.fieldPath === 'status.podIP') out[e.name] = '127.0.0.1';
    else if (e.valueFrom?.secretKeyRef) out[e.name] = decode(named(objects, 'Secret', e.valueFrom.secretKeyRef.name).data![e.valueFrom.secretKeyRef.key]!);
    else throw new Error(`${c.name}: cannot resolve ${JSON.stringify(e)}`);
  }
  return out;
}

/** A path of the container mapped to this pod's folder for the volume mounted there. */
function mapPath(c: Container, pod: Pod, path: string): string {
  const mount = (c.volumeMounts ?? []).filter((m) => path === m.mountPath || path.startsWith(`${m.mountPath}/`)).sort((a, b) => b.mountPath.length - a.mountPath.length)[0];
  return mount ? join(pod.dirs[mount.name]!, path.slice(mount.mountPath.length)) : path;
}

interface Running {
  child: ChildProcess;
  stderr: () => string;
  waitFor: (text: string) => Promise<void>;
  stop: () => Promise<number | null>;
}

function run(cmd: string, args: string[], envs: Record<string, string>): Running {
  const child = spawn(cmd, args, { env: envs, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  let stderr = '';
  const waiters: { text: string; resolve: () => void }[] = [];
  child.stderr!.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-20_000);
    for (const w of waiters.filter((x) => stderr.includes(x.text))) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  });
  const exited = once(child, 'exit');
  return {
    child,
    stderr: () => stderr,
    waitFor: (text) =>
      new Promise<void>((resolve, reject) => {
        if (stderr.includes(text)) return resolve();
        waiters.push({ text, resolve });
        void exited.then(() => reject(new Error(`${cmd} exited before "${text}": ${stderr}`)));
      }),
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const [code] = (await exited) as [number | null];
      return code;
    },
  };
}

describe('the rendered pods as processes on loopback', () => {
  const SHARDS = 3;
  const FIXTURE_REPOS = ['gosvc', 'pytools', 'rustlib', 'webapp', 'javaapp', 'csharplib'];
  const TERM = 'return';
  let objects: K8s[];
  let mirrorNames: string[];
  const pods: Pod[] = [];
  const zoekts: Running[] = [];
  const zoektPorts: number[] = [];
  const indexers: Running[] = [];
  const adapters: Adapter[] = [];
  const clients: Connected[] = [];
  /** repo:path of every file holding TERM (case-sensitive), read from the mirrored commits. */
  const truth = new Set<string>();
  /** The repositories of pod i, as the indexer splits them. */
  const share = (i: number) => mirrorNames.filter((name) => indexerShard(name, SHARDS) === i);

  /** A shard pod's zoekt-webserver container: its args with -listen on loopback and /data mapped. */
  async function startZoekt(i: number, port = 0): Promise<void> {
    const sts = only(objects, 'StatefulSet');
    const c = container(sts, 'zoekt-webserver');
    const [binary, ...args] = c.args!;
    const mapped = args.map((a, k) => (args[k - 1] === '-listen' ? `127.0.0.1:${port}` : mapPath(c, pods[i]!, a)));
    // Port 0 first (no race for a port between servers started at once), then the same port when
    // it comes back. zoekt-webserver's watchdog would poll 127.0.0.1:0 and quit, so it is off.
    const envs = { ...resolveEnv(c, pods[i]!, objects), PATH: process.env.PATH ?? '', ZOEKT_WATCHDOG_ERRORS: '0' };
    const z = run(join(ZOEKT_BIN, binary!), mapped, envs);
    for (let k = 0; k < 300 && !listeningPort(z.child.pid!); k++) await new Promise((r) => setTimeout(r, 50));
    zoektPorts[i] = listeningPort(z.child.pid!)!;
    expect(zoektPorts[i], z.stderr()).toBeGreaterThan(0);
    zoekts[i] = z;
  }

  async function waitReady(url: string, path: string, repos?: number): Promise<void> {
    for (let k = 0; k < 600; k++) {
      try {
        const r = await fetch(`${url}${path}`);
        if (r.ok) {
          if (repos === undefined) return;
          const list = (await (await fetch(`${url}/api/list`, { method: 'POST', body: '{"Q":""}' })).json()) as { List?: { Repos?: unknown[] } };
          if ((list.List?.Repos?.length ?? 0) >= repos) return;
        }
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`${url}${path} never became ready`);
  }

  beforeAll(async () => {
    // Git mirrors of some fixtures, as a team would list its repositories' URLs.
    const remote = join(work, 'remote');
    mirrorNames = [];
    const urls: string[] = [];
    for (const name of FIXTURE_REPOS) {
      const src = join(work, 'src', name);
      cpSync(join(FIXTURES, name), src, { recursive: true });
      git(src, 'init', '-q', '-b', 'main');
      git(src, 'add', '-A');
      git(src, 'commit', '-q', '-m', name);
      git(work, 'clone', '-q', '--bare', src, join(remote, `${name}.git`));
      urls.push(`file://${join(remote, `${name}.git`)}`);
      mirrorNames.push(join(remote, name).replace(/^\//, ''));
      for (const path of git(src, 'ls-files', '-z').split('\0').filter(Boolean)) {
        if (readFileSync(join(src, path), 'utf8').includes(TERM)) truth.add(`${join(remote, name).replace(/^\//, '')}:${path}`);
      }
    }
    // Clients reach the replicas here by their address, 127.0.0.1: the pod IP the chart allows.
    objects = render({ shards: SHARDS, indexer: { mirrors: urls } }).objects;
    const sts = only(objects, 'StatefulSet');
    const configMap = only(objects, 'ConfigMap');
    for (let i = 0; i < SHARDS; i++) {
      const pod: Pod = { name: `${sts.metadata.name}-${i}`, index: i, dirs: {} };
      for (const v of [...sts.spec.template.spec.volumes, ...sts.spec.volumeClaimTemplates.map((t: K8s) => ({ name: t.metadata.name }))] as { name: string; configMap?: { name: string } }[]) {
        const dir = join(work, pod.name, v.name);
        mkdirSync(dir, { recursive: true });
        if (v.configMap) for (const [key, value] of Object.entries(named(objects, 'ConfigMap', v.configMap.name).data!)) writeFileSync(join(dir, key), value);
        pod.dirs[v.name] = dir;
      }
      pods.push(pod);
    }
    expect(Object.keys(configMap.data!)).toEqual(['urls']);

    // Each pod: its indexer (the image's entry point, docker/indexer.sh) and its zoekt-webserver.
    const indexerImage = imageStage('indexer');
    for (const pod of pods) {
      const c = container(sts, 'indexer');
      expect(c.command ?? c.args).toBeUndefined();
      const envs = { ...indexerImage.env, ...resolveEnv(c, pod, objects) };
      for (const [k, v] of Object.entries(envs)) envs[k] = mapPath(c, pod, v);
      // /opt/zoekt-mcp in the image is this checkout; the image's PATH holds Zoekt and Node.
      const home = indexerImage.env.ZOEKT_MCP_HOME!;
      envs.ZOEKT_MCP_HOME = ROOT;
      // The container has no /repos; this machine might.
      envs.REPOS_DIR = join(work, 'no-repos');
      envs.PATH = [ZOEKT_BIN, dirname(process.execPath), process.env.PATH ?? ''].join(delimiter);
      const [sh, script] = indexerImage.entrypoint;
      expect(script).toBe(`${home}/indexer.sh`);
      expect(indexerImage.instructions).toContainEqual({ cmd: 'WORKDIR', args: home });
      expect(indexerImage.instructions).toContainEqual({ cmd: 'COPY', args: 'docker/indexer.sh ./' });
      const indexer = run(sh!, [join(ROOT, 'docker/indexer.sh')], envs);
      indexers.push(indexer);
      await startZoekt(pod.index);
    }
    await Promise.all(indexers.map((x) => x.waitFor('round done, 0 failure(s)')));
    await Promise.all(zoektPorts.map((port, i) => waitReady(`http://127.0.0.1:${port}`, container(sts, 'zoekt-webserver').readinessProbe.httpGet.path, share(i).length)));

    // Two adapter replicas: the image's entry point with the Deployment's environment; the
    // shards' DNS names are their loopback addresses here, and it binds loopback, not 0.0.0.0.
    const deployment = only(objects, 'Deployment');
    const runtime = imageStage('runtime');
    expect(runtime.entrypoint).toEqual(['node', '/app/dist/cli.js']);
    const c = container(deployment, 'zoekt-mcp');
    for (let r = 0; r < 2; r++) {
      const envs = { ...runtime.env, ...resolveEnv(c, { name: `adapter-${r}`, index: r, dirs: {} }, objects) };
      envs.ZOEKT_URL = envs.ZOEKT_URL!.split(',').map((u) => {
        const host = new URL(u).hostname;
        const i = pods.findIndex((p) => host.startsWith(`${p.name}.`));
        expect(i, u).toBeGreaterThanOrEqual(0);
        return `http://127.0.0.1:${zoektPorts[i]}`;
      }).join(',');
      expect(envs.ZOEKT_MCP_HOST).toBe('0.0.0.0');
      envs.ZOEKT_MCP_HOST = '127.0.0.1';
      envs.ZOEKT_MCP_PORT = '0';
      adapters.push(await startAdapter({ zoektUrl: envs.ZOEKT_URL, argv: [], env: envs }));
    }
    const token = decode(only(objects, 'Secret').data!['auth-token']!);
    for (const a of adapters) clients.push(await connectStreamable(a.url, { Authorization: `Bearer ${token}` }));
  }, 240_000);

  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    for (const a of adapters) await a.stop();
    for (const x of [...indexers, ...zoekts]) await x?.stop();
  });

  it('each indexer mirrors and indexes its share: the repositories whose name hashes to its pod index', async () => {
    expect(mirrorNames).toHaveLength(FIXTURE_REPOS.length);
    for (const [i, port] of zoektPorts.entries()) {
      const list = (await (await fetch(`http://127.0.0.1:${port}/api/list`, { method: 'POST', body: '{"Q":""}' })).json()) as { List: { Repos: { Repository: { Name: string } }[] | null } };
      expect((list.List.Repos ?? []).map((r) => r.Repository.Name).sort(), indexers[i]!.stderr()).toEqual(share(i).sort());
    }
  });

  it('answers the probes on the paths and ports the pod spec names', async () => {
    const c = container(only(objects, 'Deployment'), 'zoekt-mcp');
    for (const a of adapters) {
      for (const probe of [c.readinessProbe, c.livenessProbe]) {
        const r = await raw(`${a.url}${probe.httpGet.path}`, { headers: { host: `10.1.2.3:${new URL(a.url).port}` } });
        expect(r.status, `${probe.httpGet.path}: ${r.text}`).toBe(200);
      }
      expect((await raw(`${a.url}/readyz`)).json()).toMatchObject({ status: 'ready' });
      // Prometheus scrapes /metrics by the pod's address (here 127.0.0.1), with the token.
      const port = new URL(a.url).port;
      const token = decode(only(objects, 'Secret').data!['auth-token']!);
      const metrics = await raw(`${a.url}/metrics`, { headers: { host: `127.0.0.1:${port}`, authorization: `Bearer ${token}` } });
      expect(metrics.status, metrics.text).toBe(200);
      expect(metrics.text).toContain('zoekt_mcp_tool_call_duration_seconds');
      expect((await raw(`${a.url}/metrics`, { headers: { host: `127.0.0.1:${port}` } })).status).toBe(401);
    }
  });

  it('accepts the Service names as Host and refuses others', async () => {
    const svc = named(objects, 'Service', only(objects, 'Deployment').metadata.name).metadata.name;
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
    const token = decode(only(objects, 'Secret').data!['auth-token']!);
    const post = (host: string) => raw(`${adapters[0]!.url}/mcp`, { method: 'POST', body, headers: { host, authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' } });
    expect((await post(`${svc}.${NS}.svc.cluster.local:3000`)).status).toBe(200);
    expect((await post(`${svc}:3000`)).status).toBe(200);
    expect((await post('attacker.example')).status).toBe(403);
  });

  async function walk(contextLines: number, via: (page: number) => Connected, onPage?: (page: number, out: CodeSearchOutput) => Promise<void>): Promise<CodeSearchOutput[]> {
    const pages: CodeSearchOutput[] = [];
    let cursor: string | undefined;
    for (let p = 0; p < 50; p++) {
      const out = ok<CodeSearchOutput>(await call(via(p).client, 'search_code', { query: TERM, case_sensitive: 'yes', limit: 3, context_lines: contextLines, ...(cursor ? { cursor } : {}) }));
      pages.push(out);
      await onPage?.(p, out);
      if (!out.next_cursor) break;
      cursor = out.next_cursor;
    }
    return pages;
  }
  const files = (pages: CodeSearchOutput[]) => pages.flatMap((p) => p.results.map((r) => `${r.repo}:${r.path}`));

  it('one cursor walks a search across both replicas: every file holding the term, once', async () => {
    expect(truth.size).toBeGreaterThan(9);
    const pages = await walk(0, (p) => clients[p % 2]!);
    expect(pages.length).toBeGreaterThan(3);
    for (const page of pages) expect(page.partial).toBeUndefined();
    const seen = files(pages);
    expect(new Set(seen).size).toBe(seen.length);
    expect(new Set(seen)).toEqual(truth);
    expect(pages[pages.length - 1]!.stats.complete).toBe(true);
  });

  it('a shard stopped mid-walk makes pages partial, naming it; back, the walk is complete again', async () => {
    // The shard holding the most repositories (names carry the test's temporary folder, so the
    // split differs from run to run).
    const down = [0, 1, 2].sort((a, b) => share(b).length - share(a).length)[0]!;
    const downUrl = `http://127.0.0.1:${zoektPorts[down]}`;
    const theirs = share(down);
    expect(theirs.length).toBeGreaterThan(0);
    const partial: CodeSearchOutput[] = [];
    // A search neither replica has answered yet (the other walk's pages are in their caches),
    // so the second page asks the shards.
    await walk(
      1,
      (p) => clients[p % 2]!,
      async (p, out) => {
        if (p === 0) {
          expect(out.partial).toBeUndefined();
          await zoekts[down]!.stop();
        } else if (p === 1) {
          partial.push(out);
          // Its pod comes back on its volume, at the same address.
          await startZoekt(down, zoektPorts[down]);
          await waitReady(downUrl, '/healthz', theirs.length);
        }
      },
    );
    expect(partial).toHaveLength(1);
    expect(partial[0]!.stats.complete).toBe(false);
    expect(partial[0]!.partial?.reason).toContain(downUrl);
    expect(partial[0]!.partial?.reason).toContain(theirs[0]);
    for (const r of partial[0]!.results) expect(theirs).not.toContain(r.repo);
    // Complete again, from either replica.
    const again = await walk(1, (p) => clients[(p + 1) % 2]!);
    for (const page of again) expect(page.partial).toBeUndefined();
    expect(new Set(files(again))).toEqual(truth);
  });

  it('on SIGTERM, adapters and indexers exit 0 within the grace period', async () => {
    const deployment = only(objects, 'Deployment');
    const grace = deployment.spec.template.spec.terminationGracePeriodSeconds as number;
    const started = Date.now();
    for (const a of adapters) {
      await a.stop();
      expect(await a.exited).toEqual({ code: 0, signal: null });
    }
    for (const x of indexers) expect(await x.stop(), x.stderr()).toBe(0);
    expect(Date.now() - started).toBeLessThan(grace * 1000);
  });
});
