/** Bundles the console into `outDir` (dist/console by default) and answers the directory. */
export function buildConsole(outDir?: string): Promise<string>;
