// A small helper to write ONNX models from TypeScript with onnx-proto (a devDependency: used by the build script,
// the tests and the benchmark, never by the runtime). Encoding is deterministic: the same graph gives the same bytes.

import onnxProto from 'onnx-proto';

const { onnx } = onnxProto;

export const DT = {
  FLOAT: 1,
  UINT8: 2,
  INT8: 3,
  INT32: 6,
  INT64: 7,
} as const;
export type DataType = (typeof DT)[keyof typeof DT];

type AttrValue = number | number[] | string | { tensor: onnxProto.onnx.ITensorProto } | { float: number } | { floats: number[] };

export type TensorData = Float32Array | Int8Array | Uint8Array | Int32Array | BigInt64Array;

function rawBytes(data: TensorData): Uint8Array {
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength).slice();
}

/** A TensorProto holding `data` as little-endian raw bytes. */
export function tensor(name: string, dataType: DataType, dims: number[], data: TensorData): onnxProto.onnx.ITensorProto {
  const expected = dims.reduce((a, b) => a * b, 1);
  if (data.length !== expected) throw new Error(`tensor ${name}: ${data.length} values for dims [${dims}]`);
  return { name, dataType, dims, rawData: rawBytes(data) };
}

function attribute(name: string, v: AttrValue): onnxProto.onnx.IAttributeProto {
  const T = onnx.AttributeProto.AttributeType;
  if (typeof v === 'number') return { name, type: T.INT, i: v };
  if (typeof v === 'string') return { name, type: T.STRING, s: new TextEncoder().encode(v) };
  if (Array.isArray(v)) return { name, type: T.INTS, ints: v };
  if ('tensor' in v) return { name, type: T.TENSOR, t: v.tensor };
  if ('float' in v) return { name, type: T.FLOAT, f: v.float };
  return { name, type: T.FLOATS, floats: v.floats };
}

function valueInfo(name: string, elemType: DataType, dims: Array<number | string>): onnxProto.onnx.IValueInfoProto {
  return {
    name,
    type: {
      tensorType: {
        elemType,
        shape: { dim: dims.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d })) },
      },
    },
  };
}

export class GraphBuilder {
  private nodes: onnxProto.onnx.INodeProto[] = [];
  private inits: onnxProto.onnx.ITensorProto[] = [];
  private inputs: onnxProto.onnx.IValueInfoProto[] = [];
  private outputs: onnxProto.onnx.IValueInfoProto[] = [];
  private counter = 0;

  constructor(private readonly graphName: string) {}

  input(name: string, elemType: DataType, dims: Array<number | string>): string {
    this.inputs.push(valueInfo(name, elemType, dims));
    return name;
  }

  output(name: string, elemType: DataType, dims: Array<number | string>): string {
    this.outputs.push(valueInfo(name, elemType, dims));
    return name;
  }

  init(name: string, dataType: DataType, dims: number[], data: TensorData): string {
    this.inits.push(tensor(name, dataType, dims, data));
    return name;
  }

  /** Adds a node; returns its (first) output name. Pass `out` to name the output. */
  node(op: string, inputs: string[], attrs: Record<string, AttrValue> = {}, out?: string): string {
    const output = out ?? `${op.toLowerCase()}_${this.counter++}`;
    this.nodes.push({
      opType: op,
      name: `${op}_${this.nodes.length}`,
      input: inputs,
      output: [output],
      attribute: Object.entries(attrs).map(([k, v]) => attribute(k, v)),
    });
    return output;
  }

  /** Serialises the model (default opset 13, IR version 7). */
  toBytes(opts: { opset?: number; irVersion?: number; producer?: string; docString?: string } = {}): Uint8Array {
    const model = onnx.ModelProto.create({
      irVersion: opts.irVersion ?? 7,
      producerName: opts.producer ?? 'opencoder',
      docString: opts.docString ?? '',
      opsetImport: [{ domain: '', version: opts.opset ?? 13 }],
      graph: {
        name: this.graphName,
        node: this.nodes,
        initializer: this.inits,
        input: this.inputs,
        output: this.outputs,
      },
    });
    return onnx.ModelProto.encode(model).finish();
  }
}
