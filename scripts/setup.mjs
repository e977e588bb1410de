#!/usr/bin/env node
// The setup step `npm install` runs (package.json "postinstall"): it finds the system packages OpenCoder needs that
// npm cannot install (scripts/system-packages.mjs), and
//   - as root on a machine with apt-get, installs them and says what it installed;
//   - otherwise prints the one command that installs them.
// OPENCODER_SKIP_SYSTEM_SETUP=1 leaves the system alone (it still says what is missing).
// It never fails `npm install`: what is still missing is named here, and again by every test that needs it.

import { spawnSync } from 'node:child_process';
import { SKIP_ENV, SYSTEM_PACKAGES, installCommand, missingSystemPackages } from './system-packages.mjs';

const say = (line) => console.log(`opencoder setup: ${line}`);
const describe = (list) => list.map((p) => `  - ${p.pkg}: ${p.why}`).join('\n');

function aptInstall(pkgs) {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  say('apt-get update');
  const update = spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  if (update.status !== 0) return `apt-get update exited with ${update.status ?? update.signal}`;
  say(`apt-get install ${pkgs.join(' ')}`);
  const install = spawnSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...pkgs], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env,
  });
  return install.status === 0 ? null : `apt-get install exited with ${install.status ?? install.signal}`;
}

function main() {
  if (process.platform !== 'linux') {
    say(`${process.platform}: the system packages are Debian's; the sandbox runs in its weak mode here (see the README)`);
    return;
  }
  const missing = missingSystemPackages();
  if (missing.length === 0) {
    say(`system packages present: ${SYSTEM_PACKAGES.map((p) => p.pkg).join(', ')}`);
    return;
  }
  const names = missing.map((p) => p.pkg);
  const root = process.getuid?.() === 0;
  const apt = spawnSync('/bin/sh', ['-c', 'command -v apt-get'], { stdio: 'ignore' }).status === 0;
  if (process.env[SKIP_ENV]) {
    say(`${SKIP_ENV} is set: not installing the missing system packages:\n${describe(missing)}\nTo install them: ${installCommand(names, root)}`);
    return;
  }
  if (!root || !apt) {
    say(`missing system packages (the tests that need them are skipped and counted):\n${describe(missing)}`);
    say(apt ? `install them with:\n  ${installCommand(names, root)}` : 'install their equivalents with your package manager');
    return;
  }
  say(`installing the missing system packages (${SKIP_ENV}=1 skips this):\n${describe(missing)}`);
  const failed = aptInstall(names);
  const still = names.filter((pkg) => {
    // Probe again: the install may have provided what was missing.
    const entry = SYSTEM_PACKAGES.find((p) => p.pkg === pkg);
    return !entry.present();
  });
  const installed = names.filter((pkg) => !still.includes(pkg));
  if (installed.length > 0) say(`installed: ${installed.join(', ')}`);
  if (still.length > 0) say(`still missing${failed ? ` (${failed})` : ''}: ${still.join(', ')} — run: ${installCommand(still, root)}`);
}

try {
  main();
} catch (err) {
  // A setup problem must not cost the analyst the node modules npm has just installed.
  say(`could not check the system packages: ${err instanceof Error ? err.message : String(err)}`);
}
