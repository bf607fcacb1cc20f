// Precompresses the built client files once, at build time: a .br (brotli, quality 11) and a .gz (gzip -9) beside
// every text file of dist/runtime and dist/frame, which the js listener serves on Accept-Encoding
// (server/src/http/static-files.ts). Usage: node scripts/compress-dist.mjs [DIST]
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const COMPRESSIBLE = /\.(js|mjs|css|html|svg|json|map|txt)$/;

export function compressFile(path) {
  const bytes = readFileSync(path);
  writeFileSync(`${path}.br`, brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } }));
  writeFileSync(`${path}.gz`, gzipSync(bytes, { level: 9 }));
}

function walk(dir, out) {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (COMPRESSIBLE.test(entry)) out.push(path);
  }
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dist = process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
  const files = ['runtime', 'frame', 'loader'].flatMap((part) => {
    try {
      return walk(join(dist, part), []);
    } catch {
      return [];
    }
  });
  for (const file of files) compressFile(file);
  console.log(`compressed ${files.length} files (.br, .gz) under ${dist}`);
}
