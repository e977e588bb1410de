import { OpenCoderError } from '../model/errors.ts';

export class IndexCancelledError extends OpenCoderError {
  constructor() {
    super('cancelled', 'Indexing was cancelled; what was finished is kept and the next run resumes from there.');
  }
}
