// Offers engine-rendered files as downloads through Blob URLs (works in browsers and in Electron, whose shell
// decides where a download goes).

import { bytes } from '../../../main/model/format.ts';

export interface Download {
  name: string;
  mime: string;
  size: number;
  url: string;
}

export function makeDownload(file: { name: string; mime: string; content: string }): Download {
  const blob = new Blob([file.content], { type: file.mime || 'application/octet-stream' });
  return { name: safeName(file.name), mime: file.mime, size: blob.size, url: URL.createObjectURL(blob) };
}

export function triggerDownload(d: Download): void {
  const a = document.createElement('a');
  a.href = d.url;
  a.download = d.name;
  a.rel = 'noopener';
  a.style.display = 'none';
  document.body.appendChild(a);
  a.click();
  a.remove();
}

export function revoke(ds: Download[]): void {
  for (const d of ds) URL.revokeObjectURL(d.url);
}

/** A bare file name: no folders, no characters file systems refuse. */
export function safeName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? 'report';
  // eslint-disable-next-line no-control-regex -- control characters are among those file systems refuse
  const clean = base.replace(/[<>:"|?*\u0000-\u001f]/g, '_').trim();
  return clean || 'report';
}

/** A file size for the download list: the shared rule of main/model/format.ts. */
export const humanSize = (n: number): string => bytes(n);
