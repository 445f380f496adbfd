// Minimal protobuf writer for the subset of onnx.proto (IR v8) that a small inference graph needs.
// Hand-written so that building a test model needs neither python3-onnx nor a protobuf dependency.
// Field numbers are those of https://github.com/onnx/onnx/blob/main/onnx/onnx.proto.

export const TensorType = { FLOAT: 1, UINT8: 2, INT64: 7 } as const;
export type TensorElemType = (typeof TensorType)[keyof typeof TensorType];

export type Tensor = {
  name: string;
  dims: number[];
  dataType: TensorElemType;
  // Little-endian bytes of the values, as ONNX raw_data expects.
  raw: Uint8Array;
};

export type Attribute =
  | { name: string; kind: 'int'; value: number }
  | { name: string; kind: 'ints'; value: number[] }
  | { name: string; kind: 'float'; value: number };

export type Node = {
  opType: string;
  inputs: string[];
  outputs: string[];
  name?: string;
  attributes?: Attribute[];
  // An operator outside the standard set, e.g. com.microsoft (listed in Model.domains).
  domain?: string;
};

// A dimension is a fixed size or a symbolic name such as "batch".
export type ValueInfo = { name: string; elemType: TensorElemType; shape: (number | string)[] };

export type Graph = {
  name: string;
  nodes: Node[];
  initializers: Tensor[];
  inputs: ValueInfo[];
  outputs: ValueInfo[];
};

export type Model = { graph: Graph; opset: number; irVersion: number; producer?: string; domains?: { domain: string; version: number }[] };

const WIRE_VARINT = 0;
const WIRE_I32 = 5;
const WIRE_LEN = 2;

class Writer {
  private chunks: Uint8Array[] = [];
  private size = 0;

  private push(bytes: Uint8Array): void {
    this.chunks.push(bytes);
    this.size += bytes.length;
  }

  varint(value: number): void {
    if (!Number.isSafeInteger(value)) throw new Error(`varint out of range: ${value}`);
    // BigInt because JS bitwise ops truncate to 32 bits, and protobuf writes a negative int64 as its
    // 64-bit two's complement (ten bytes).
    let v = BigInt.asUintN(64, BigInt(value));
    const out: number[] = [];
    while (v >= 0x80n) {
      out.push(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    out.push(Number(v));
    this.push(Uint8Array.from(out));
  }

  tag(field: number, wire: number): void {
    this.varint(field * 8 + wire);
  }

  int(field: number, value: number): void {
    this.tag(field, WIRE_VARINT);
    this.varint(value);
  }

  float(field: number, value: number): void {
    this.tag(field, WIRE_I32);
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, value, true);
    this.push(b);
  }

  bytes(field: number, value: Uint8Array): void {
    this.tag(field, WIRE_LEN);
    this.varint(value.length);
    this.push(value);
  }

  string(field: number, value: string): void {
    this.bytes(field, new TextEncoder().encode(value));
  }

  message(field: number, build: (w: Writer) => void): void {
    const inner = new Writer();
    build(inner);
    this.bytes(field, inner.finish());
  }

  finish(): Uint8Array {
    const out = new Uint8Array(this.size);
    let offset = 0;
    for (const c of this.chunks) {
      out.set(c, offset);
      offset += c.length;
    }
    return out;
  }
}

function writeTensor(w: Writer, t: Tensor): void {
  for (const d of t.dims) w.int(1, d);
  w.int(2, t.dataType);
  w.string(8, t.name);
  w.bytes(9, t.raw);
}

const ATTR_FLOAT = 1;
const ATTR_INT = 2;
const ATTR_INTS = 7;

function writeAttribute(w: Writer, a: Attribute): void {
  w.string(1, a.name);
  switch (a.kind) {
    case 'float':
      w.float(2, a.value);
      w.int(20, ATTR_FLOAT);
      break;
    case 'int':
      w.int(3, a.value);
      w.int(20, ATTR_INT);
      break;
    case 'ints':
      for (const v of a.value) w.int(8, v);
      w.int(20, ATTR_INTS);
      break;
  }
}

function writeNode(w: Writer, n: Node): void {
  for (const i of n.inputs) w.string(1, i);
  for (const o of n.outputs) w.string(2, o);
  if (n.name) w.string(3, n.name);
  w.string(4, n.opType);
  for (const a of n.attributes ?? []) w.message(5, (aw) => writeAttribute(aw, a));
  if (n.domain) w.string(7, n.domain);
}

function writeValueInfo(w: Writer, v: ValueInfo): void {
  w.string(1, v.name);
  // TypeProto.tensor_type(1) -> { elem_type(1), shape(2) -> { dim(1) -> { dim_value(1) | dim_param(2) } } }
  w.message(2, (tw) =>
    tw.message(1, (tt) => {
      tt.int(1, v.elemType);
      tt.message(2, (sw) => {
        for (const d of v.shape) {
          sw.message(1, (dw) => (typeof d === 'number' ? dw.int(1, d) : dw.string(2, d)));
        }
      });
    }),
  );
}

function writeGraph(w: Writer, g: Graph): void {
  for (const n of g.nodes) w.message(1, (nw) => writeNode(nw, n));
  w.string(2, g.name);
  for (const t of g.initializers) w.message(5, (tw) => writeTensor(tw, t));
  for (const i of g.inputs) w.message(11, (vw) => writeValueInfo(vw, i));
  for (const o of g.outputs) w.message(12, (vw) => writeValueInfo(vw, o));
}

export function encodeModel(m: Model): Uint8Array {
  const w = new Writer();
  w.int(1, m.irVersion);
  w.string(2, m.producer ?? 'contextpack-tiny-model');
  w.message(7, (gw) => writeGraph(gw, m.graph));
  // Default ("") domain = the standard ai.onnx operator set.
  w.message(8, (ow) => {
    ow.string(1, '');
    ow.int(2, m.opset);
  });
  for (const d of m.domains ?? []) {
    w.message(8, (ow) => {
      ow.string(1, d.domain);
      ow.int(2, d.version);
    });
  }
  return w.finish();
}

export function floatTensor(name: string, dims: number[], values: Float32Array): Tensor {
  const expected = dims.reduce((a, b) => a * b, 1);
  if (values.length !== expected) throw new Error(`tensor ${name}: ${values.length} values for dims ${dims}`);
  // Copy so the bytes are little-endian and independent of the caller's buffer offset.
  const raw = new Uint8Array(values.length * 4);
  const view = new DataView(raw.buffer);
  for (let i = 0; i < values.length; i++) view.setFloat32(i * 4, values[i]!, true);
  return { name, dims, dataType: TensorType.FLOAT, raw };
}

export function int64Tensor(name: string, dims: number[], values: number[]): Tensor {
  const raw = new Uint8Array(values.length * 8);
  const view = new DataView(raw.buffer);
  values.forEach((v, i) => view.setBigInt64(i * 8, BigInt(v), true));
  return { name, dims, dataType: TensorType.INT64, raw };
}
