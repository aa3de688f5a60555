import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import ts from 'typescript';
import { parseAllDocuments } from 'yaml';
import { loadRuntimeConfig } from '../../src/runtime/settings.ts';

/**
 * The Kubernetes manifests in deploy/kubernetes, checked offline against the Kubernetes API's own
 * schemas as the npm package kubernetes-models ships them: each object's JSON-schema validator
 * (types, required fields, enums), and — because those schemas allow unknown fields, which the
 * API server would drop or reject — the same objects type-checked as object literals against the
 * package's generated interfaces, where a misspelt or misplaced field is an error. Then what no
 * schema can say: the objects fit together (selectors, ports, probes, secrets, the scale targets)
 * and the settings they pass are ones the service accepts.
 */
const ROOT = new URL('../../', import.meta.url).pathname;
const DIR = join(ROOT, 'deploy/kubernetes');

type Manifest = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
} & Record<
  string,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- manifests are read as plain JSON
  any
>;

function loadManifests(): { file: string; manifest: Manifest }[] {
  const loaded: { file: string; manifest: Manifest }[] = [];
  for (const file of readdirSync(DIR).filter(
    (name) => name.endsWith('.yaml') && name !== 'kustomization.yaml',
  )) {
    for (const document of parseAllDocuments(readFileSync(join(DIR, file), 'utf8'))) {
      assert.deepEqual(document.errors, [], `${file}: YAML errors`);
      const manifest = document.toJS() as Manifest | null;
      if (manifest) loaded.push({ file, manifest });
    }
  }
  return loaded;
}

/** kubernetes-models' module for an object: `kubernetes-models/<group/version>/<Kind>`. */
const modelModule = (manifest: Manifest) => `kubernetes-models/${manifest.apiVersion}/${manifest.kind}`;

/** Type errors of the manifests written as typed object literals (excess property checks included). */
export function strictTypeErrors(manifests: { file: string; manifest: Manifest }[]): string[] {
  const checkFile = join(DIR, '__manifests_check__.ts');
  const source = manifests
    .map(({ manifest }, index) => {
      const type = `import('${modelModule(manifest)}').I${manifest.kind}`;
      return `export const m${index}: ${type} = ${JSON.stringify(manifest, null, 2)};`;
    })
    .join('\n');
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, language, ...rest) =>
    name === checkFile ? ts.createSourceFile(name, source, language) : getSourceFile(name, language, ...rest);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => name === checkFile || fileExists(name);
  const program = ts.createProgram([checkFile], options, host);
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const where =
      diagnostic.file && diagnostic.start !== undefined
        ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start)
        : undefined;
    const exportIndex = where
      ? (
          source
            .split('\n')
            .slice(0, where.line + 1)
            .join('\n')
            .match(/export const m(\d+)/g) ?? []
        ).at(-1)
      : undefined;
    const index = exportIndex ? Number(exportIndex.replace('export const m', '')) : -1;
    const owner = manifests[index];
    return `${owner ? `${owner.file} ${owner.manifest.kind}/${owner.manifest.metadata.name}` : '?'}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
  });
}

const byKind = (manifests: Manifest[], kind: string) =>
  manifests.filter((manifest) => manifest.kind === kind);
const named = (manifests: Manifest[], kind: string, name: string) => {
  const found = manifests.find((manifest) => manifest.kind === kind && manifest.metadata.name === name);
  assert.ok(found, `${kind}/${name} exists`);
  return found;
};
const selects = (selector: Record<string, string>, labels: Record<string, string> | undefined) =>
  Object.entries(selector).every(([key, value]) => labels?.[key] === value);

describe('Kubernetes manifests (deploy/kubernetes)', () => {
  const loaded = loadManifests();
  const manifests = loaded.map((entry) => entry.manifest);

  test('every object validates against its Kubernetes JSON schema', async () => {
    assert.ok(manifests.length >= 10, 'the manifests were found');
    for (const { file, manifest } of loaded) {
      const models = (await import(modelModule(manifest))) as Record<
        string,
        new (data: unknown) => { validate(): void }
      >;
      const Model = models[manifest.kind];
      assert.ok(Model, `${file}: kubernetes-models has ${manifest.apiVersion} ${manifest.kind}`);
      assert.doesNotThrow(
        () => new Model(manifest).validate(),
        `${file}: ${manifest.kind}/${manifest.metadata.name}`,
      );
    }
  });

  test('no object has a field its type does not define', () => {
    assert.deepEqual(strictTypeErrors(loaded), []);
  });

  test('the kustomization lists every manifest file', () => {
    const kustomization = parseAllDocuments(
      readFileSync(join(DIR, 'kustomization.yaml'), 'utf8'),
    )[0]!.toJS() as {
      resources: string[];
    };
    assert.deepEqual(kustomization.resources.sort(), [...new Set(loaded.map((entry) => entry.file))].sort());
  });

  test('the required pieces are there and fit together', () => {
    const api = named(manifests, 'Deployment', 'tributary-api');
    const worker = named(manifests, 'Deployment', 'tributary-worker');
    const job = named(manifests, 'Job', 'tributary-migrate');
    const secret = named(manifests, 'Secret', 'tributary');
    const config = named(manifests, 'ConfigMap', 'tributary');
    const service = named(manifests, 'Service', 'tributary');

    for (const workload of [api, worker, job]) {
      const pod = workload.spec.template;
      if (workload.kind === 'Deployment')
        assert.ok(
          selects(workload.spec.selector.matchLabels, pod.metadata.labels),
          `${workload.metadata.name} selects its pods`,
        );
      const [container] = pod.spec.containers;
      assert.equal(container.image, 'tributary', 'one image, set by the kustomization');
      // Non-root, read-only root filesystem, no privilege escalation, no capabilities.
      assert.equal(pod.spec.securityContext.runAsNonRoot, true);
      assert.equal(container.securityContext.readOnlyRootFilesystem, true);
      assert.equal(container.securityContext.allowPrivilegeEscalation, false);
      assert.deepEqual(container.securityContext.capabilities.drop, ['ALL']);
      // Settings come from the ConfigMap and the Secret, both of which exist.
      const sources = container.envFrom.map((entry: Record<string, { name: string }>) =>
        entry.configMapRef ? `ConfigMap/${entry.configMapRef.name}` : `Secret/${entry.secretRef!.name}`,
      );
      assert.deepEqual(sources.sort(), ['ConfigMap/tributary', 'Secret/tributary']);
      const writable = new Set(container.volumeMounts.map((mount: { mountPath: string }) => mount.mountPath));
      assert.ok(writable.has('/tmp'), `${workload.metadata.name}: /tmp is writable`);
    }
    assert.deepEqual(api.spec.template.spec.containers[0].args, ['serve', '--role', 'api']);
    assert.deepEqual(worker.spec.template.spec.containers[0].args, ['serve', '--role', 'worker']);
    assert.deepEqual(job.spec.template.spec.containers[0].args, ['migrate']);

    // The API's probes and the Service reach its named port; liveness is /health, readiness /ready.
    const apiContainer = api.spec.template.spec.containers[0];
    const port = apiContainer.ports.find((entry: { name: string }) => entry.name === 'http');
    assert.ok(port, 'the API container names its port http');
    assert.deepEqual(apiContainer.livenessProbe.httpGet, { path: '/health', port: 'http' });
    assert.deepEqual(apiContainer.readinessProbe.httpGet, { path: '/ready', port: 'http' });
    assert.equal(service.spec.ports[0].targetPort, 'http');
    assert.ok(
      selects(service.spec.selector, api.spec.template.metadata.labels),
      'the Service selects API pods',
    );
    assert.ok(!selects(service.spec.selector, worker.spec.template.metadata.labels), 'and not workers');
    assert.equal(String(config.data.PORT), String(port.containerPort));
    assert.equal(config.data.HOST, '0.0.0.0');
    assert.ok(
      selects({ 'app.kubernetes.io/component': 'api' }, api.spec.template.metadata.labels) &&
        config.data.DATA_DIR ===
          apiContainer.volumeMounts.find((mount: { name: string }) => mount.name === 'data').mountPath,
      'DATA_DIR is the mounted volume',
    );

    // The secrets every process needs, and nothing that works if deployed as committed.
    assert.deepEqual(Object.keys(secret.stringData).sort(), ['DATABASE_URL', 'ENCRYPTION_KEY']);
    assert.throws(
      () => loadRuntimeConfig({ ...config.data, ...secret.stringData }),
      /ENCRYPTION_KEY/,
      'the placeholder key is refused at start-up',
    );
    // With real secret values, the ConfigMap's settings are all accepted by the service.
    assert.doesNotThrow(() =>
      loadRuntimeConfig({
        ...config.data,
        DATABASE_URL: 'postgres://tributary:secret@postgres:5432/tributary',
        ENCRYPTION_KEY: 'ab'.repeat(32),
      }),
    );

    // One PDB and one HPA per Deployment, each aimed at it.
    for (const deployment of [api, worker]) {
      const labels = deployment.spec.template.metadata.labels;
      const budgets = byKind(manifests, 'PodDisruptionBudget').filter((pdb) =>
        selects(pdb.spec.selector.matchLabels, labels),
      );
      assert.equal(budgets.length, 1, `one PodDisruptionBudget for ${deployment.metadata.name}`);
      const scalers = byKind(manifests, 'HorizontalPodAutoscaler').filter(
        (hpa) =>
          hpa.spec.scaleTargetRef.kind === 'Deployment' &&
          hpa.spec.scaleTargetRef.name === deployment.metadata.name,
      );
      assert.equal(scalers.length, 1, `one HorizontalPodAutoscaler for ${deployment.metadata.name}`);
      assert.ok(scalers[0]!.spec.minReplicas >= 2, 'at least two replicas, so a PDB can let one go');
      // A scale target needs CPU requests for utilisation to mean anything.
      assert.ok(deployment.spec.template.spec.containers[0].resources.requests.cpu);
    }

    // Network policies: every Tributary pod is covered for ingress and egress; only the API's
    // port is open; egress to private ranges (the metadata service among them) is not.
    const policies = byKind(manifests, 'NetworkPolicy');
    for (const workload of [api, worker, job]) {
      const labels = workload.spec.template.metadata.labels;
      const applying = policies.filter((policy) => selects(policy.spec.podSelector.matchLabels, labels));
      const types = new Set(applying.flatMap((policy) => policy.spec.policyTypes));
      assert.deepEqual([...types].sort(), ['Egress', 'Ingress'], `${workload.metadata.name} is covered`);
      const openPorts = applying.flatMap((policy) =>
        (policy.spec.ingress ?? []).flatMap((rule: { ports: { port: number }[] }) =>
          rule.ports.map((entry) => entry.port),
        ),
      );
      assert.deepEqual(openPorts, workload === api ? [8080] : [], `${workload.metadata.name}: ingress ports`);
    }
    const publicEgress = policies
      .flatMap((policy) => policy.spec.egress ?? [])
      .flatMap((rule: { to?: { ipBlock?: { cidr: string; except?: string[] } }[] }) => rule.to ?? [])
      .map((peer: { ipBlock?: { except?: string[] } }) => peer.ipBlock?.except ?? []);
    assert.ok(
      publicEgress.length > 0 && publicEgress.every((except: string[]) => except.includes('169.254.0.0/16')),
    );
  });
});
