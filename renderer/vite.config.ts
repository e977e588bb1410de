// Builds the React UI into dist/renderer. `base: './'` keeps every asset path relative, and the bundle is one
// classic (non-module) script: Chromium refuses module scripts and `crossorigin` stylesheets from file://
// (origin "null"), so the same index.html loads from the browser-mode server and from a file:// URL.

import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

/** Rewrites the built index.html: `<script type="module" crossorigin>` → `<script defer>`, no `crossorigin`. */
function classicScript(): Plugin {
  return {
    name: 'opencoder-classic-script',
    apply: 'build',
    enforce: 'post',
    transformIndexHtml: {
      order: 'post',
      handler(html) {
        return html
          .replace(/<script type="module" crossorigin src=/g, '<script defer src=')
          .replace(/<script type="module" src=/g, '<script defer src=')
          .replace(/<link rel="stylesheet" crossorigin href=/g, '<link rel="stylesheet" href=')
          .replace(/<link rel="modulepreload"[^>]*>\s*/g, '');
      },
    },
  };
}

export default defineConfig({
  root,
  base: './',
  plugins: [react(), classicScript()],
  build: {
    outDir: fileURLToPath(new URL('../dist/renderer', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    chunkSizeWarningLimit: 1500,
    modulePreload: false,
    cssCodeSplit: false,
    rolldownOptions: {
      output: { format: 'iife', codeSplitting: false },
    },
  },
  server: { host: '127.0.0.1', fs: { allow: [fileURLToPath(new URL('..', import.meta.url))] } },
});
