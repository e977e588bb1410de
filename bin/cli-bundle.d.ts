// Types of cli-bundle.js (plain JavaScript, so that the `opencoder` command loads it without compiling anything).

export function loadCliMain(root?: string, env?: NodeJS.ProcessEnv): Promise<(argv: string[]) => Promise<number>>;
