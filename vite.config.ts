/**
 * One config, three builds chosen by --mode (see package.json "build"):
 * - runtime: IIFE `dist/runtime/rail.js`, defines window.Rail; served at {js_url}/v1/.
 * - frame:   Preact app, base /frame/, into dist/frame/ (external hashed scripts only: the frame's CSP is script-src 'self').
 * - loader:  ESM `loader/dist/index.js` plus `.d.ts` from tsc (loader/tsconfig.build.json).
 * The demo merchant page (demo/index.html) needs no build: the server reads it and fills in its placeholders.
 * `vite` (serve) runs the frame app with HMR.
 */
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import preact from '@preact/preset-vite';
import { defineConfig, transformWithEsbuild, type Plugin, type UserConfig } from 'vite';

const ROOT = fileURLToPath(new URL('.', import.meta.url));
const at = (path: string) => resolve(ROOT, path);

// Browsers with modulepreload, constructable stylesheets and private class fields.
const TARGET = ['chrome111', 'edge111', 'firefox114', 'safari16.4'];

/** Vite keeps whitespace in ES library output; the loader ships minified anyway (its budget is 1.2 KB gzip). */
function minifyEsLibrary(): Plugin {
  return {
    name: 'rail-minify-es-library',
    apply: 'build',
    // generateBundle runs after every renderChunk, including Vite's own transpile pass that re-prints whitespace.
    async generateBundle(_options, bundle) {
      for (const chunk of Object.values(bundle)) {
        if (chunk.type !== 'chunk') continue;
        chunk.code = (await transformWithEsbuild(chunk.code, chunk.fileName, { minify: true, format: 'esm', target: TARGET })).code;
      }
    },
  };
}

/** Emits the loader's declaration files with tsc once the bundle is written. */
function loaderTypes(): Plugin {
  return {
    name: 'rail-loader-types',
    apply: 'build',
    closeBundle() {
      execFileSync(process.execPath, [at('node_modules/typescript/bin/tsc'), '-p', at('loader/tsconfig.build.json')], { stdio: 'inherit' });
    },
  };
}

/**
 * Prefresh hot-swaps Preact components only. An edit to a plain module of the frame (the payment model, i18n,
 * validation) is otherwise "accepted" by a module that exports a class and changes nothing on screen, because
 * main.tsx built the model from the old code. Such an edit reloads the frame document instead: the merchant page
 * keeps its state, and penpal's handshake runs again on the element's channel.
 */
export function reloadFrameOnModuleEdit(): Plugin {
  return {
    name: 'rail-frame-reload-on-module-edit',
    apply: 'serve',
    handleHotUpdate({ file, modules, server }) {
      if (modules.length === 0 || !/\.m?[jt]s$/.test(file)) return;
      server.ws.send({ type: 'full-reload', path: '*' });
      return [];
    },
  };
}

/**
 * The frame document runs a small boot script that starts the API calls and then imports the frame app (a dynamic
 * chunk, frame/src/main.tsx). The document names that chunk in a modulepreload link, so the browser fetches the app in parallel with
 * the boot script instead of after it.
 */
export function preloadFrameApp(): Plugin {
  return {
    name: 'rail-frame-preload-app',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(_html, context) {
        // The app chunk only: the other dynamic chunks are the locales' messages, of which a frame loads one (boot.ts).
        const chunks = Object.values(context.bundle ?? {}).filter((chunk) => chunk.type === 'chunk' && chunk.isDynamicEntry && chunk.facadeModuleId === at('frame/src/main.tsx'));
        if (chunks.length !== 1) throw new Error(`expected one frame app chunk (frame/src/main.tsx), found ${chunks.length}`);
        return chunks.map((chunk) => ({
          tag: 'link',
          attrs: { rel: 'modulepreload', crossorigin: true, href: `/frame/${chunk.fileName}` },
          injectTo: 'head' as const,
        }));
      },
    },
  };
}

/** Where frame/index.html takes the inline head script (an HTML comment, so the dev server's document has none). */
export const EARLY_LOAD_MARKER = /<!-- rail:early-load\b[^>]*-->/;

/**
 * Inlines frame/src/early-load.ts, bundled as a classic script, at the marker: it starts the load request as the
 * parser reaches it, before the stylesheet and the modules. The js listener allows it by its hash (script-src).
 */
export function inlineEarlyLoad(): Plugin {
  return {
    name: 'rail-frame-inline-early-load',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      async handler(html) {
        if (!EARLY_LOAD_MARKER.test(html)) throw new Error('frame/index.html has no <!-- rail:early-load --> marker');
        const { build } = await import('esbuild');
        const result = await build({ entryPoints: [at('frame/src/early-load.ts')], bundle: true, write: false, format: 'iife', minify: true, target: TARGET, legalComments: 'none' });
        const code = result.outputFiles[0]!.text.trim();
        if (/<\/script|<!--/i.test(code)) throw new Error('the inlined early-load script would end its <script> element early');
        return html.replace(EARLY_LOAD_MARKER, () => `<script>${code}</script>`);
      },
    },
  };
}

/**
 * Puts the frame's stylesheet into its document as a `<style>` element instead of a `<link>`. A warm mount reads each
 * file from the HTTP cache one after the other (some 4 ms each in a trace), and the app chunk came after the
 * stylesheet: without that read it arrives sooner. The js listener allows the element by the hash of its bytes (the
 * frame's CSP style-src names nothing else, server/src/http/js-app.ts).
 */
export function inlineFrameStylesheet(): Plugin {
  return {
    name: 'rail-frame-inline-stylesheet',
    apply: 'build',
    enforce: 'post',
    generateBundle(_options, bundle) {
      const html = bundle['index.html'];
      if (html?.type !== 'asset') throw new Error('the frame build has no index.html');
      const stylesheets = Object.values(bundle).filter((file) => file.type === 'asset' && file.fileName.endsWith('.css'));
      if (stylesheets.length !== 1) throw new Error(`expected one frame stylesheet, found ${stylesheets.length}`);
      const css = stylesheets[0]!;
      const source = String(css.type === 'asset' ? css.source : '');
      if (/<\/style/i.test(source)) throw new Error('the frame stylesheet would end its <style> element early');
      const document = String(html.source);
      const link = /<link rel="stylesheet"[^>]*>/.exec(document)?.[0];
      if (link === undefined || !link.includes(`href="/frame/${css.fileName}"`)) throw new Error(`index.html does not link ${css.fileName}`);
      html.source = document.replace(link, () => `<style>${source}</style>`);
      delete bundle[css.fileName];
    },
  };
}

/**
 * V8's explicit compile hint: a script that starts with this comment has all its functions compiled eagerly, on the
 * background thread that streams it, instead of lazily on the main thread at their first call. The frame's chunks
 * run nearly every function they hold before `ready`.
 */
export function eagerCompileHint(): Plugin {
  return {
    name: 'rail-eager-compile-hint',
    apply: 'build',
    enforce: 'post',
    generateBundle(_options, bundle) {
      for (const chunk of Object.values(bundle)) if (chunk.type === 'chunk') chunk.code = `//# allFunctionsCalledOnLoad\n${chunk.code}`;
    },
  };
}

function runtimeConfig(): UserConfig {
  return {
    publicDir: false,
    build: {
      target: TARGET,
      outDir: at('dist/runtime'),
      emptyOutDir: true,
      minify: 'esbuild',
      sourcemap: false,
      lib: {
        entry: at('runtime/src/index.ts'),
        formats: ['iife'],
        name: 'RailRuntime',
        fileName: () => 'rail.js',
      },
    },
  };
}

function frameConfig(): UserConfig {
  return {
    root: at('frame'),
    base: '/frame/',
    publicDir: false,
    plugins: [preact(), reloadFrameOnModuleEdit(), preloadFrameApp(), inlineEarlyLoad(), eagerCompileHint(), inlineFrameStylesheet()],
    build: {
      target: TARGET,
      outDir: at('dist/frame'),
      emptyOutDir: true,
      minify: 'esbuild',
      cssMinify: true,
      // Every target browser has modulepreload; the polyfill would only add bytes.
      modulePreload: { polyfill: false },
      assetsInlineLimit: 0,
    },
  };
}

function loaderConfig(): UserConfig {
  return {
    publicDir: false,
    plugins: [minifyEsLibrary(), loaderTypes()],
    build: {
      target: TARGET,
      outDir: at('loader/dist'),
      emptyOutDir: true,
      // minifyEsLibrary() minifies instead: Vite's own pass would re-add whitespace to ES library output.
      minify: false,
      lib: {
        entry: at('loader/src/index.ts'),
        formats: ['es'],
        fileName: () => 'index.js',
      },
    },
  };
}

export default defineConfig(({ mode }) => {
  switch (mode) {
    case 'runtime':
      return runtimeConfig();
    case 'loader':
      return loaderConfig();
    default:
      return frameConfig();
  }
});
