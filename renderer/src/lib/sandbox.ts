// The sandbox mode in plain words, from the label every verdict carries (main/validate/sandbox.ts): what the app
// says once at start-up, and what the navigation's foot keeps saying in a word.

export interface SandboxSummary {
  mode: 'strong' | 'weak' | 'unavailable';
  /** A word or two for the navigation's foot. */
  short: string;
  /** One plain paragraph: which mode and what it means for the analyst. */
  message: string;
}

export function sandboxSummary(label: string): SandboxSummary {
  if (label.startsWith('strong:'))
    return {
      mode: 'strong',
      short: 'sandbox: strong',
      message:
        'Candidates run in the strong sandbox (bubblewrap): no network, a read-only system, no file of yours but the repository’s copy, an unprivileged user, and limits on time, memory and processes.',
    };
  if (label.startsWith('weak:')) {
    const reason = label.slice('weak:'.length).split(' — ')[0]!.trim();
    const asYou = /candidate runs as this user/.test(label);
    // As root, weak runs have a network namespace of their own (the engine's label says so).
    const noNetwork = /own network namespace/.test(label);
    return {
      mode: 'weak',
      short: 'sandbox: weak',
      message:
        `Candidates run in the weak sandbox (${reason}). Limits on time, memory, output and processes hold and each run gets a clean environment, ` +
        `but a candidate can read files on this machine${noNetwork ? ' (it has no network)' : ' and reach the network'}${asYou ? ', and it runs as you: it can change what your user can, the tests it is judged by included' : ''}. ` +
        (/chosen/.test(reason)
          ? 'Set the sandbox to auto in Settings for the strong sandbox where bubblewrap runs.'
          : /needs Linux/.test(reason)
            ? 'The strong sandbox needs Linux with bubblewrap.'
            : 'Install bubblewrap (apt-get install bubblewrap) for the strong sandbox.'),
    };
  }
  return {
    mode: 'unavailable',
    short: 'no sandbox',
    message: `No sandbox can run here (${label.replace(/^unavailable:\s*/, '')}): candidates cannot be validated until this is fixed.`,
  };
}
