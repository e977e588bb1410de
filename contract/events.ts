// What the engine pushes and how a call fails: the events every transport forwards to the renderer, and the
// error every failed call answers (a code, one line for people, the offending fields), as schemas with their
// types inferred from them.

import { z } from 'zod';
import { JobInfoSchema } from './dto.ts';
import { ERROR_CODES } from '../main/model/errors.ts';

// ---- events -------------------------------------------------------------------------------------------------

export const EngineEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('job'), job: JobInfoSchema }),
  z.object({ type: z.literal('repos-changed') }),
  z.object({ type: z.literal('runs-changed') }),
  z.object({ type: z.literal('notice'), level: z.enum(['info', 'warning', 'error']), message: z.string() }),
]);
export type EngineEvent = z.infer<typeof EngineEventSchema>;

// ---- errors -------------------------------------------------------------------------------------------------

/** The engine's error vocabulary (main/model/errors.ts, where each code's meaning is written down). */
export const ErrorCodeSchema = z.enum(ERROR_CODES);
export type ErrorCode = z.infer<typeof ErrorCodeSchema>;

/** What a failed call answers: a code, one line for people, and for invalid input the offending fields. */
export const CallErrorSchema = z.object({
  code: ErrorCodeSchema,
  message: z.string(),
  issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  /** On `forbidden-path`: the folder that, once allowed (`repo.allow`), lets the same call go through. Absent when
   * no folder may be allowed there (the root, a system or secrets folder). */
  allow: z.string().optional(),
});
export type CallError = z.infer<typeof CallErrorSchema>;

/** Thrown by transports when a call fails. */
export class EngineCallError extends Error {
  constructor(readonly error: CallError) {
    super(error.message);
    this.name = 'EngineCallError';
  }
}
