/**
 * A census of the heap: how many objects it holds and their own sizes, from a V8 heap snapshot,
 * compiled code left out (the JIT compiling and dropping code as a run goes is nobody's object).
 * Unlike the heap spaces' used size, it counts objects, not pages: free space and fragmentation
 * are not in it, so two censuses taken around some work differ by what that work left alive.
 */
import { getHeapSnapshot } from 'node:v8';

export interface Census {
  objects: number;
  bytes: number;
}

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
  nodes: number[];
}

/** Takes a snapshot (run a full GC first: it counts what is reachable and what is not yet collected). */
export async function census(): Promise<Census> {
  let text = '';
  for await (const chunk of getHeapSnapshot()) text += chunk;
  const snap = JSON.parse(text) as Snapshot;
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const sizeAt = fields.indexOf('self_size');
  const code = types.indexOf('code');
  let objects = 0;
  let bytes = 0;
  for (let i = 0; i < snap.nodes.length; i += width) {
    if (snap.nodes[i + typeAt] === code) continue;
    objects++;
    bytes += snap.nodes[i + sizeAt] as number;
  }
  return { objects, bytes };
}
