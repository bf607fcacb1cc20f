/**
 * Names what a V8 CPU profile's frame ran when it ran in the server's bundle. Production runs one file,
 * dist/server/server.cjs, with its npm dependencies (hono, kysely, zod, pino, pg) bundled in, so a profile names all
 * of them by that one file; through the bundle's source map (dist/server/server.cjs.map, which the build writes) a
 * frame is the npm package or the folder of Rail's sources it was built from. Used by the bench's profile under load
 * (process-metrics.ts summarizeProfile) and by bench/start-profile.ts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';

/** A profile node's frame, as --cpu-prof writes it (0-based line and column). */
export interface ProfileFrame {
  functionName: string;
  url: string;
  lineNumber?: number;
  columnNumber?: number;
}

/** The npm package a path or URL lies in (`zod`, `@hono/node-server`), or undefined outside node_modules. */
export function packageOf(path: string): string | undefined {
  return /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1];
}

/**
 * Who owns a repository-relative source path: an npm package, or `rail <folder>` for Rail's own sources
 * (`rail server/src/storage`, `rail protocol`).
 */
export function ownerOfSource(source: string): string {
  const pkg = packageOf(source);
  if (pkg !== undefined) return pkg;
  const parts = source.split('/');
  const folder = parts[0] === 'server' && parts[1] === 'src' ? parts.slice(0, parts.length > 3 ? 3 : 2).join('/') : parts[0];
  return `rail ${folder}`;
}

/** The source maps of the bundles frames ran in, read once per bundle; none for code that is not a bundle. */
export class BundleSources {
  readonly #maps = new Map<string, SourceMap | null>();

  /** The repository-relative source a frame of a mapped bundle ran, or undefined (not a bundle, or not mapped). */
  sourceOf(frame: ProfileFrame): string | undefined {
    if (!frame.url.endsWith('.cjs') || frame.lineNumber === undefined || frame.columnNumber === undefined) return undefined;
    const map = this.#mapOf(frame.url);
    if (map === null) return undefined;
    const entry = map.findEntry(frame.lineNumber, frame.columnNumber) as { originalSource?: string };
    // A frame at a position no mapping covers (the bundle's own wrapper, which runs every module's top level) has none.
    return entry.originalSource?.replace(/^.*?\/(?=(node_modules|server|protocol|scripts)\/)/, '');
  }

  /** ownerOfSource of the frame's source, or undefined where sourceOf has none. */
  ownerOf(frame: ProfileFrame): string | undefined {
    const source = this.sourceOf(frame);
    return source === undefined ? undefined : ownerOfSource(source);
  }

  #mapOf(url: string): SourceMap | null {
    let map = this.#maps.get(url);
    if (map === undefined) {
      const path = `${url.replace(/^file:\/\//, '')}.map`;
      map = existsSync(path) ? new SourceMap(JSON.parse(readFileSync(path, 'utf8')) as ConstructorParameters<typeof SourceMap>[0]) : null;
      this.#maps.set(url, map);
    }
    return map;
  }
}
