/** Types of check-packages.mjs for its test. */
export function versionProblems(root?: string): string[];
export function workspacePackages(root?: string): { dir: string; json: { name: string; version: string; [field: string]: unknown } }[];
