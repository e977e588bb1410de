// One interface for every text encoder the engine uses.

export interface EncoderInfo {
  /** Stable identifier that changes whenever vectors would change (model file hash, config). */
  id: string;
  /** Human name shown in the UI and CLI, honest about what the model is. */
  name: string;
  dim: number;
  /** One sentence: what kind of model this is. */
  description: string;
}

export interface Encoder extends EncoderInfo {
  /** Embeds texts; vectors are L2-normalised, one per input, in input order. */
  embed(texts: string[]): Promise<Float32Array[]>;
  dispose(): Promise<void>;
}
