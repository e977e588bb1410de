// Public API of the generation layer.

export type * from './types.ts';
export { LlmError, ReplayMissError, redact, registerSecret, type LlmErrorKind } from './errors.ts';
export { Limiter, parseRetryAfter, resolveReliability, withRetries, RELIABILITY_DEFAULTS, type ReliabilityOptions } from './reliability.ts';
export { OpenAiBackend, isLocalUrl, isOfficialOpenAi, OPENAI_DEFAULT_BASE_URL, type OpenAiBackendOptions } from './openai-backend.ts';
export { GeminiBackend, toGeminiSchema, GEMINI_DEFAULT_BASE_URL, type GeminiBackendOptions } from './gemini-backend.ts';
export { OfflineBackend, OFFLINE_MODEL, proposeCandidates, adaptSimilar, delegateToApi, renameIdentifiers } from './offline-backend.ts';
export { ImportedBackend, loadSampleSets, type ImportedSample, type ImportedSampleSet } from './imported-backend.ts';
export { LlamaCppBackend, DEFAULT_CONTEXT_SIZE, DEFAULT_LLAMA_SEED, type LlamaCppBackendOptions } from './llama-cpp-backend.ts';
export {
  createBackend,
  backendSpecOfRecord,
  resolveApiKey,
  BACKEND_KINDS,
  DEFAULT_MODELS,
  type BackendKind,
  type BackendRecord,
  type BackendRuntime,
  type BackendSpec,
  type GeminiSpec,
  type ImportedSpec,
  type LlamaCppSpec,
  type OfflineSpec,
  type OpenAiSpec,
  type ReplaySpec,
} from './backends.ts';
export {
  PROMPT_VERSION,
  PROMPT_TEMPLATES,
  promptTemplatesRecord,
  buildGenerationPrompt,
  buildRepairPrompt,
  buildDecompositionPrompt,
  decompositionSchema,
  parseDecomposition,
  DecompositionError,
  traceLine,
  type BuiltPrompt,
  type PromptOptions,
  type RepairPromptInput,
  type StaticFinding,
} from './prompts.ts';
export { extractCode, dedent, type Extraction, type ExtractOptions } from './extract.ts';
export { groupCandidates, groupByKeys, normaliseCandidates, resolvePython, type NormalisedCode, type PythonOptions } from './normalise.ts';
export {
  measureGenerationUncertainty,
  summariseLogprobs,
  selfConsistency,
  groupEntropy,
  semanticVariance,
  aggregate,
  type UncertaintyOptions,
  type UncertaintyResult,
  type UncertaintyWeights,
} from './uncertainty.ts';
export { canonicalJson, requestHash, recordExchanges, ReplayBackend, type RecordOptions, type ReplayOptions } from './record.ts';
export {
  DEFAULT_PRICES,
  loadPriceTable,
  writeDefaultPriceTable,
  priceFor,
  costOf,
  sumCosts,
  estimateGeneration,
  estimateTokens,
  sumEstimates,
  CostLedger,
  PriceTableError,
  type CostEstimate,
  type ModelPrice,
  type PriceTable,
} from './cost.ts';
export {
  generateCandidates,
  generationRequest,
  repairCandidates,
  makeRepairer,
  sampleChoices,
  llmDecomposer,
  type GenerateOptions,
  type RepairRequestLike,
} from './generate.ts';
