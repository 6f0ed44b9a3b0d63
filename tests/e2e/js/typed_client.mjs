// The official Kubernetes JavaScript client (@kubernetes/client-node, from the npm registry:
// scripts/setup.sh installs it here) against `hpaplus sim`, as a second typed client beside the
// Python one: it lists and pages, reads, scales through /scale, watches, reads Nodes and `top`
// figures, discovers, reads tables and logs, deletes with each propagation policy and applies
// server-side. Prints one line per check; any error ends it with exit code 1.
// Usage: node typed_client.mjs KUBECONFIG
import * as k8s from '@kubernetes/client-node';
import fetch from 'node-fetch'; // the client's own fetch (it honours the kubeconfig's TLS agent)

const kc = new k8s.KubeConfig();
kc.loadFromFile(process.argv[2]);
const core = kc.makeApiClient(k8s.CoreV1Api);
const apps = kc.makeApiClient(k8s.AppsV1Api);
const namespace = 'default';
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const mergePatch = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);
const applyPatch = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.ServerSideApply);

async function eventually(what, check) {
  for (let i = 0; i < 100; ++i) {
    const value = await check();
    if (value) return value;
    await sleep(200);
  }
  throw new Error(`timed out waiting for ${what}`);
}

const pods = (await core.listNamespacedPod({ namespace, labelSelector: 'app=web' })).items;
const status = pods[0].status.containerStatuses[0];
console.log('pods', pods.length, status.ready);
console.log('imageID', status.imageID);
console.log('containerID', status.containerID);
const pod = pods[0];
const owner = pod.metadata.ownerReferences[0];
console.log('owner', owner.kind, owner.name === `web-${pod.metadata.labels['pod-template-hash']}`);
console.log('defaults', pod.spec.restartPolicy, pod.spec.dnsPolicy,
  pod.spec.terminationGracePeriodSeconds, pod.spec.schedulerName,
  pod.spec.containers[0].imagePullPolicy);
const deployments = (await apps.listNamespacedDeployment({ namespace })).items;
console.log('deployments', JSON.stringify(deployments.map((d) => d.metadata.name)));
const available = deployments[0].status.conditions.find((c) => c.type === 'Available');
console.log('deployment condition', available.status, available.lastUpdateTime !== undefined,
  'lastProbeTime' in available && available.lastProbeTime !== undefined);
const sets = (await apps.listNamespacedReplicaSet({ namespace })).items;
console.log('replicasets', JSON.stringify(sets.map((r) => r.metadata.ownerReferences[0].kind)));
const db = await apps.readNamespacedStatefulSet({ name: 'db', namespace });
console.log('statefulset', db.spec.podManagementPolicy,
  db.status.updateRevision === db.status.currentRevision);
console.log('statefulset scale',
  (await apps.readNamespacedStatefulSetScale({ name: 'db', namespace })).status.selector);
const autoscaling = kc.makeApiClient(k8s.AutoscalingV1Api);
const hpas = (await autoscaling.listNamespacedHorizontalPodAutoscaler({ namespace })).items;
console.log('hpas', JSON.stringify(hpas.map((h) => h.metadata.name)),
  hpas[0].spec.targetCPUUtilizationPercentage);
const ns = await core.readNamespace({ name: namespace });
console.log('namespace', ns.status.phase, JSON.stringify(ns.spec.finalizers));

// Pages of one pod each, through limit/continue, with the remaining count.
const names = [];
let token;
const remaining = [];
do {
  const page = await core.listNamespacedPod({
    namespace, labelSelector: 'app=web', limit: 1, _continue: token,
  });
  names.push(...page.items.map((p) => p.metadata.name));
  remaining.push(page.metadata.remainingItemCount ?? '-');
  token = page.metadata._continue;
} while (token);
console.log('paged', names.length, new Set(names).size);
const unselected = await core.listNamespacedPod({ namespace, limit: 1 });
console.log('remainingItemCount', unselected.metadata.remainingItemCount > 0);

// Scale through /scale, then watch from the list's resourceVersion for the pod that adds.
const since = (await core.listNamespacedPod({ namespace, labelSelector: 'app=web' }))
  .metadata.resourceVersion;
await apps.patchNamespacedDeploymentScale(
  { name: 'web', namespace, body: { spec: { replicas: 3 } } }, mergePatch);
console.log('scaled',
  (await apps.readNamespacedDeploymentScale({ name: 'web', namespace })).spec.replicas);
const added = await new Promise((resolve, reject) => {
  let request;
  new k8s.Watch(kc).watch(`/api/v1/namespaces/${namespace}/pods`,
    { resourceVersion: since, labelSelector: 'app=web', timeoutSeconds: 20 },
    (type, pod) => {
      if (type === 'ADDED') {
        resolve(pod.metadata.name); // before abort(), which calls the done callback at once
        request?.abort();
      }
    },
    (err) => (err && err.name !== 'AbortError' ? reject(err) : resolve(null)))
    .then((r) => { request = r; }, reject);
});
console.log('watched ADDED', added !== null);

// The node the pods run on, and `top` from the metrics API.
const nodes = (await core.listNode()).items;
const node = nodes[0];
const ready = node.status.conditions.find((c) => c.type === 'Ready');
console.log('node', nodes.length, ready.status, node.status.allocatable.cpu !== undefined,
  node.status.nodeInfo.kubeletVersion);
const metrics = new k8s.Metrics(kc);
const nodeTop = await k8s.topNodes(core);
console.log('top nodes', nodeTop.length, nodeTop[0].CPU.RequestTotal > 0);
const podTop = await eventually('pod metrics', async () => {
  const top = await k8s.topPods(core, metrics, namespace);
  return top.length > 0 ? top : null;
});
console.log('top pods', podTop.length > 0, podTop[0].CPU.CurrentUsage > 0);

// events.k8s.io/v1 reads the core Events.
const events = kc.makeApiClient(k8s.EventsV1Api);
await core.createNamespacedEvent({
  namespace,
  body: {
    metadata: { name: 'web.js' },
    involvedObject: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace },
    reason: 'Checked', message: 'from the JavaScript client', type: 'Normal',
  },
});
const event = await events.readNamespacedEvent({ name: 'web.js', namespace });
console.log('event', event.note, event.regarding.name);

// Discovery: the groups, and the core resources with the kubelet's subresources.
const groups = await kc.makeApiClient(k8s.ApisApi).getAPIVersions();
console.log('groups', ['apps', 'batch', 'scheduling.k8s.io', 'autoscaling']
  .every((g) => groups.groups.some((x) => x.name === g)));
const coreResources = await core.getAPIResources();
console.log('core resources', ['pods/log', 'pods/exec', 'pods/eviction', 'nodes/proxy']
  .every((n) => coreResources.resources.some((r) => r.name === n)));

// A table, as kubectl asks for one (this client has no call for it: its own fetch, its TLS).
const fetchOptions = await kc.applyToFetchOptions({ method: 'GET' });
fetchOptions.headers.set('Accept', 'application/json;as=Table;v=v1;g=meta.k8s.io');
const table = await (await fetch(
  `${kc.getCurrentCluster().server}/apis/apps/v1/namespaces/${namespace}/deployments`,
  fetchOptions)).json();
console.log('table', table.kind, table.columnDefinitions.map((c) => c.name).join(','),
  table.rows.length);

// Logs: what the kubelet saw of a container, the last line, and a wrong container refused.
const lastLine = await core.readNamespacedPodLog({ name: 'db-0', namespace, tailLines: 1 });
console.log('log', JSON.stringify(lastLine));
try {
  await core.readNamespacedPodLog({ name: 'db-0', namespace, container: 'nope' });
  console.log('log of nope read');
} catch (err) {
  const status = typeof err.body === 'string' ? JSON.parse(err.body) : err.body;
  console.log('log refused', err.code, status.message);
}

// Deletion propagation: Orphan leaves the ReplicaSet without its owner; Foreground deletes the
// dependents first and the owner last.
const replicaSetsOf = async (label) =>
  (await apps.listNamespacedReplicaSet({ namespace, labelSelector: label })).items;
await apps.deleteNamespacedDeployment({ name: 'web', namespace, propagationPolicy: 'Orphan' });
await eventually('the Deployment to go', async () =>
  (await apps.listNamespacedDeployment({ namespace })).items.every((d) => d.metadata.name !== 'web'));
const orphans = await replicaSetsOf('app=web');
console.log('orphaned', orphans.length, orphans.every((r) => !r.metadata.ownerReferences));
// (The answer is the object marked for deletion; this client types it as a Status, so the
// marks are checked by SimWorkload.DeletionPropagationOrphanAndForeground.)
await apps.deleteNamespacedStatefulSet({ name: 'db', namespace, propagationPolicy: 'Foreground' });
await eventually('the StatefulSet and its pods to go', async () =>
  (await core.listNamespacedPod({ namespace, labelSelector: 'app=db' })).items.length === 0 &&
  (await apps.listNamespacedStatefulSet({ namespace })).items.length === 0);
console.log('foreground done');

// A created pod answers with the status its registry sets (a typed client reads status.phase).
const bare = await core.createNamespacedPod({
  namespace, body: { metadata: { name: 'bare' }, spec: { containers: [{ name: 'app', image: 'nginx' }] } },
});
console.log('created pod', bare.status.phase, bare.status.qosClass);
await core.deleteNamespacedPod({ name: 'bare', namespace, gracePeriodSeconds: 0 });
// Server-side apply: creates, records the manager, refuses another manager's field unless forced.
const manifest = (replicas, env) => ({
  apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied', namespace }, data: { replicas, env },
});
const created = await core.patchNamespacedConfigMap(
  { name: 'applied', namespace, body: manifest('1', 'prod'), fieldManager: 'js-a' }, applyPatch);
console.log('applied', created.data.replicas,
  JSON.stringify(created.metadata.managedFields.map((m) => `${m.manager}:${m.operation}`)));
try {
  await core.patchNamespacedConfigMap(
    { name: 'applied', namespace, body: manifest('2', 'prod'), fieldManager: 'js-b' }, applyPatch);
  console.log('conflict none');
} catch (err) {
  const status = typeof err.body === 'string' ? JSON.parse(err.body) : err.body;
  console.log('conflict', err.code, status.message, status.details.causes[0].field);
}
const forced = await core.patchNamespacedConfigMap(
  { name: 'applied', namespace, body: manifest('2', 'prod'), fieldManager: 'js-b', force: true },
  applyPatch);
console.log('forced', forced.data.replicas,
  JSON.stringify(forced.metadata.managedFields.map((m) => m.manager).sort()));
