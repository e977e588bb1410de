// A candidate never reaches a service of the machine: strong mode has no network, and weak mode as root runs each
// run in a network namespace of its own (loopback its own). A candidate that connects to a server on this machine's
// loopback (a queue's Redis, the app's server) reaches nothing, isolated or in-process, and a test that serves on
// its own loopback still works.

import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createValidator } from '../../main/validate/validator.ts';
import { detectSandbox } from '../../main/validate/sandbox.ts';
import { needsStrongSandbox } from '../helpers/system.ts';
import { templateTask } from './helpers.ts';

const STRONG = await needsStrongSandbox();
const ROOT = process.getuid?.() === 0;

let server: net.Server;
let port = 0;
const received: string[] = [];
beforeAll(async () => {
  server = net.createServer((sock) => sock.on('data', (d) => received.push(d.toString('latin1'))));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as net.AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

// Right, and hostile on the side: it tries to write a command to the host's loopback server before answering. Its
// own loopback works: it serves and reads a byte there.
const candidate = () => `def f(x):
    import socket
    try:
        s = socket.create_connection(("127.0.0.1", ${port}), timeout=2)
        s.sendall(b"SET pwned 1\\r\\n")
        s.close()
    except OSError:
        pass
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    c = socket.create_connection(srv.getsockname(), timeout=2)
    a, _ = srv.accept()
    c.sendall(b"1")
    got = a.recv(1)
    for sock in (a, c, srv):
        sock.close()
    return x + int(got)
`;

const modes = [...(ROOT ? (['weak'] as const) : []), ...(STRONG.skip ? [] : (['strong'] as const))];

describe.skipIf(modes.length === 0)('a candidate and the machine’s network', () => {
  it('weak mode as root has a network namespace of its own, and says so', async () => {
    const info = await detectSandbox({ mode: 'weak' });
    expect(info.network).toBe('none');
    expect(info.label).toMatch(/own network namespace/);
    expect(info.label).not.toMatch(/or network isolation/);
  });

  for (const mode of modes) {
    for (const isolation of ['isolated', 'in-process'] as const) {
      it(`${mode}, ${isolation}: a connection to the host's loopback reaches nothing; its own loopback works`, async () => {
        const v = await createValidator({ sandbox: { mode }, isolation });
        try {
          received.length = 0;
          const verdict = await v.validate(templateTask(`net/${mode}-${isolation}`), candidate());
          expect(verdict.status, verdict.reason + verdict.stderr).toBe('passed');
          expect(verdict.sandbox.strength).toBe(mode);
          expect(received).toEqual([]);
        } finally {
          v.close();
        }
      }, 120_000);
    }
  }
});
