// Builds the React UI into dist/renderer. `base: './'` keeps every asset path relative, and every script is a
// classic (non-module) one: Chromium refuses module scripts and `crossorigin` stylesheets from file:// (origin
// "null"), so the same index.html loads from the browser-mode server and from a file:// URL.
//
// The code is split all the same (see classic-chunks.ts): the parts no first screen needs (renderer/src/lazy/chunks/,
// the charts first) are entries of their own, code they share with the main bundle (React, the store, the
// components) lives in shared chunks that index.html loads up front, and a lazy part's own scripts are added to the
// page by a small loader when the part is first shown. Each chunk is CommonJS wrapped in a function that registers
// itself under its script's URL, so nothing depends on module scripts or on the page's origin.

import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { classicChunks, readLazyChunks } from './classic-chunks.ts';

const root = fileURLToPath(new URL('.', import.meta.url));
const lazyChunks = readLazyChunks(fileURLToPath(new URL('./src/lazy/chunks/', import.meta.url)));

export default defineConfig({
  root,
  base: './',
  plugins: [react(), classicChunks(lazyChunks)],
  build: {
    outDir: fileURLToPath(new URL('../dist/renderer', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    chunkSizeWarningLimit: 1500,
    modulePreload: false,
    cssCodeSplit: false,
    rolldownOptions: {
      input: { index: fileURLToPath(new URL('./index.html', import.meta.url)), ...lazyChunks.entries },
      preserveEntrySignatures: 'exports-only',
    },
  },
  server: { host: '127.0.0.1', fs: { allow: [fileURLToPath(new URL('..', import.meta.url))] } },
});
