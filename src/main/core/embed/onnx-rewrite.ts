// A field-level ONNX (protobuf) rewriter: reads a model's graph nodes and initializers, lets a caller replace them,
// and writes the model back with every field it did not touch copied byte for byte (unknown and newer fields
// included). protobufjs (maintained, already what onnxruntime-web decodes ONNX with) does the wire format; this file
// only names the few onnx.proto fields we read. Field numbers: https://github.com/onnx/onnx/blob/main/onnx/onnx.proto
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, normalize, sep } from 'node:path';
import protobuf from 'protobufjs/minimal.js';
import type { Long } from 'protobufjs/minimal.js';

const { Reader, Writer } = protobuf;

export type RawField = { field: number; wire: number; raw: Uint8Array; payload?: Uint8Array };

// int64 comes back as a number, or as a Long when the `long` package is found (not in every bundle): both handled.
const toNumber = (v: number | Long): number => (typeof v === 'number' ? v : protobuf.util.LongBits.from(v).toNumber());

/** The top-level fields of one message, in order, each with its exact bytes (tag included). */
export function fieldsOf(buf: Uint8Array): RawField[] {
  const r = Reader.create(buf);
  const out: RawField[] = [];
  while (r.pos < r.len) {
    const start = r.pos;
    const tag = r.uint32();
    const field = tag >>> 3;
    const wire = tag & 7;
    let payload: Uint8Array | undefined;
    if (wire === 2) {
      const len = r.uint32();
      if (r.pos + len > r.len) throw new Error(`truncated protobuf field ${field}`);
      payload = buf.subarray(r.pos, r.pos + len);
      r.pos += len;
    } else {
      r.skipType(wire);
    }
    out.push({ field, wire, raw: buf.subarray(start, r.pos), payload });
  }
  return out;
}

function varintOf(f: RawField): number {
  const r = Reader.create(f.raw);
  r.uint32();
  return toNumber(r.int64());
}

const text = (b: Uint8Array | undefined): string => new TextDecoder().decode(b ?? new Uint8Array());

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

// TensorProto.DataType values used here.
export const DataType = { FLOAT: 1, UINT8: 2, INT8: 3, INT32: 6, INT64: 7, FLOAT16: 10 } as const;

export type AttributeInfo = { name: string; i?: number; raw: RawField };

export type NodeInfo = {
  inputs: string[];
  outputs: string[];
  name: string;
  opType: string;
  domain: string;
  attributes: AttributeInfo[];
  // Every field, for rewriting a node while keeping what we do not read (doc strings, metadata).
  fields: RawField[];
};

export function parseNode(payload: Uint8Array): NodeInfo {
  const fields = fieldsOf(payload);
  const node: NodeInfo = { inputs: [], outputs: [], name: '', opType: '', domain: '', attributes: [], fields };
  for (const f of fields) {
    if (f.field === 1) node.inputs.push(text(f.payload));
    else if (f.field === 2) node.outputs.push(text(f.payload));
    else if (f.field === 3) node.name = text(f.payload);
    else if (f.field === 4) node.opType = text(f.payload);
    else if (f.field === 7) node.domain = text(f.payload);
    else if (f.field === 5) {
      const attr: AttributeInfo = { name: '', raw: f };
      for (const a of fieldsOf(f.payload!)) {
        if (a.field === 1) attr.name = text(a.payload);
        else if (a.field === 3) attr.i = varintOf(a);
      }
      node.attributes.push(attr);
    }
  }
  return node;
}

export type IntAttribute = { name: string; i: number };

/** The names of a graph's outputs (GraphProto.output = 12, ValueInfoProto.name = 1). */
export function graphOutputs(model: OnnxModel): string[] {
  return model.graphFields
    .filter((f) => f.field === 12)
    .map((f) => text(fieldsOf(f.payload!).find((v) => v.field === 1)?.payload));
}

/** A NodeProto: inputs, outputs, name, op type, integer attributes, domain. */
export function encodeNode(n: { inputs: string[]; outputs: string[]; name: string; opType: string; domain?: string; attributes?: IntAttribute[] }): Uint8Array {
  const w = Writer.create();
  for (const i of n.inputs) w.uint32((1 << 3) | 2).string(i);
  for (const o of n.outputs) w.uint32((2 << 3) | 2).string(o);
  w.uint32((3 << 3) | 2).string(n.name);
  w.uint32((4 << 3) | 2).string(n.opType);
  for (const a of n.attributes ?? []) {
    // AttributeProto: name = 1, i = 3, type = 20 (INT = 2).
    w.uint32((5 << 3) | 2).fork().uint32((1 << 3) | 2).string(a.name).uint32(3 << 3).int64(a.i).uint32(20 << 3).int32(2).ldelim();
  }
  if (n.domain) w.uint32((7 << 3) | 2).string(n.domain);
  return w.finish();
}

/** The same node reading other inputs; every other field kept as it was. */
export function withInputs(node: NodeInfo, inputs: readonly string[]): Uint8Array {
  const w = Writer.create();
  for (const i of inputs) w.uint32((1 << 3) | 2).string(i);
  return concat([w.finish(), ...node.fields.filter((f) => f.field !== 1).map((f) => f.raw)]);
}

/** The same node with integer attributes replaced or added; every other field kept as it was. */
export function withIntAttributes(node: NodeInfo, attrs: readonly IntAttribute[]): Uint8Array {
  const names = new Set(attrs.map((a) => a.name));
  const kept = node.fields.filter((f) => !(f.field === 5 && names.has(node.attributes.find((a) => a.raw === f)?.name ?? '')));
  const added = attrs.map((a) =>
    Writer.create().uint32((5 << 3) | 2).fork().uint32((1 << 3) | 2).string(a.name).uint32(3 << 3).int64(a.i).uint32(20 << 3).int32(2).ldelim().finish(),
  );
  return concat([...kept.map((f) => f.raw), ...added]);
}

export type TensorInfo = {
  name: string;
  dims: number[];
  dataType: number;
  fields: RawField[];
  external?: { location: string; offset: number; length?: number };
  raw?: Uint8Array;
};

export function parseTensor(payload: Uint8Array): TensorInfo {
  const fields = fieldsOf(payload);
  const t: TensorInfo = { name: '', dims: [], dataType: 0, fields };
  let external = false;
  const entries: Record<string, string> = {};
  for (const f of fields) {
    if (f.field === 1) {
      if (f.wire === 2) {
        const r = Reader.create(f.payload!);
        while (r.pos < r.len) t.dims.push(toNumber(r.int64()));
      } else t.dims.push(varintOf(f));
    } else if (f.field === 2) t.dataType = varintOf(f);
    else if (f.field === 8) t.name = text(f.payload);
    else if (f.field === 9) t.raw = f.payload;
    else if (f.field === 14) external = varintOf(f) === 1;
    else if (f.field === 13) {
      let key = '';
      let value = '';
      for (const e of fieldsOf(f.payload!)) {
        if (e.field === 1) key = text(e.payload);
        else if (e.field === 2) value = text(e.payload);
      }
      entries[key] = value;
    }
  }
  if (external) {
    if (!entries.location) throw new Error(`initializer ${t.name} is external but names no location`);
    t.external = {
      location: entries.location,
      offset: Number(entries.offset ?? 0),
      length: entries.length === undefined ? undefined : Number(entries.length),
    };
  }
  return t;
}

/** A TensorProto holding its data inline (raw_data). */
export function encodeTensor(t: { name: string; dims: readonly number[]; dataType: number; raw: Uint8Array }): Uint8Array {
  const w = Writer.create();
  for (const d of t.dims) w.uint32(1 << 3).int64(d);
  w.uint32(2 << 3).int32(t.dataType);
  w.uint32((8 << 3) | 2).string(t.name);
  w.uint32((9 << 3) | 2).bytes(t.raw);
  return w.finish();
}

export type OnnxModel = {
  // ModelProto fields other than the graph, and GraphProto fields other than nodes and initializers, as they were.
  modelFields: RawField[];
  graphFields: RawField[];
  nodes: NodeInfo[];
  initializers: TensorInfo[];
  // Folder external data is resolved against (the model file's folder).
  dir: string;
};

export async function readOnnxModel(path: string): Promise<OnnxModel> {
  const buf = new Uint8Array(await readFile(path));
  const modelFields = fieldsOf(buf);
  const graph = modelFields.find((f) => f.field === 7);
  if (!graph?.payload) throw new Error(`${path} has no graph`);
  const graphFields = fieldsOf(graph.payload);
  return {
    modelFields,
    graphFields,
    nodes: graphFields.filter((f) => f.field === 1).map((f) => parseNode(f.payload!)),
    initializers: graphFields.filter((f) => f.field === 5).map((f) => parseTensor(f.payload!)),
    dir: dirname(path),
  };
}

/** An initializer's bytes, inline or from its external-data file (which must stay inside the model's folder). */
export async function tensorBytes(model: OnnxModel, t: TensorInfo, cache = new Map<string, Uint8Array>()): Promise<Uint8Array> {
  if (!t.external) return t.raw ?? new Uint8Array();
  const { location, offset, length } = t.external;
  if (isAbsolute(location) || normalize(location).split(sep).includes('..')) {
    throw new Error(`initializer ${t.name} points outside the model folder (${location})`);
  }
  let file = cache.get(location);
  if (!file) {
    file = new Uint8Array(await readFile(join(model.dir, location)));
    cache.set(location, file);
  }
  const end = length === undefined ? file.length : offset + length;
  if (end > file.length) throw new Error(`initializer ${t.name} reads past the end of ${location}`);
  return file.subarray(offset, end);
}

/** Writes nodes and initializers (already encoded) into the graph, keeping every other field in its place. */
export function encodeModel(model: OnnxModel, nodes: readonly Uint8Array[], initializers: readonly Uint8Array[]): Uint8Array {
  const lenField = (field: number, payload: Uint8Array): Uint8Array => Writer.create().uint32((field << 3) | 2).bytes(payload).finish();
  const graphParts: Uint8Array[] = [];
  let placedNodes = false;
  let placedInits = false;
  for (const f of model.graphFields) {
    if (f.field === 1) {
      if (!placedNodes) graphParts.push(...nodes.map((n) => lenField(1, n)));
      placedNodes = true;
    } else if (f.field === 5) {
      if (!placedInits) graphParts.push(...initializers.map((t) => lenField(5, t)));
      placedInits = true;
    } else graphParts.push(f.raw);
  }
  if (!placedNodes) graphParts.push(...nodes.map((n) => lenField(1, n)));
  if (!placedInits) graphParts.push(...initializers.map((t) => lenField(5, t)));
  const graph = concat(graphParts);
  return concat(model.modelFields.map((f) => (f.field === 7 ? lenField(7, graph) : f.raw)));
}
