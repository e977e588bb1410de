export class IndexCancelledError extends Error {
  constructor() {
    super('Indexing was cancelled; what was finished is kept and the next run resumes from there.');
    this.name = 'IndexCancelledError';
  }
}
