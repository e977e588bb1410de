// The RepoExec skip path: a reference that imports a module the interpreter lacks is found (here
// by pretending botocore is absent), and its skip reason names the module, the Debian package and
// the apt-get command, so a fresh clone without python3-botocore skips that one task with a reason.

import { describe, expect, it } from 'vitest';
import { defaultPython } from '../../main/validate/sandbox.ts';
import { missingModules, skipReason } from './missing-modules.ts';

const python = defaultPython();
const rows = [
  { id: 'RepoExec/91', source: 'def is_botocore():\n    import botocore\n    return True\n' },
  { id: 'RepoExec/1', source: 'import json\nfrom os import path\nfrom . import sibling\n\ndef f(x):\n    return json.dumps(x)\n' },
  { id: 'RepoExec/2', source: 'import oc_no_such_module_17.sub\n\ndef g():\n    return 1\n' },
];

describe('missing modules of benchmark references', () => {
  it('finds a module the interpreter cannot import, and one it is told to treat as absent', () => {
    const found = missingModules(rows, python, ['botocore']);
    expect([...found]).toEqual([
      ['RepoExec/91', ['botocore']],
      ['RepoExec/2', ['oc_no_such_module_17']],
    ]);
  });

  it('leaves out references whose imports all resolve (standard library, relative imports)', () => {
    expect(missingModules(rows, python).has('RepoExec/1')).toBe(false);
  });

  it('says which task is skipped, what it needs and the command that installs it', () => {
    const reason = skipReason('RepoExec/91', ['botocore'], python);
    expect(reason).toContain('RepoExec/91 skipped');
    expect(reason).toContain(`imports botocore, which ${python} cannot import`);
    expect(reason).toContain('apt-get install python3-botocore');
  });

  it('names the interpreter it could not run', () => {
    expect(() => missingModules(rows, '/nonexistent/python3')).toThrow(/cannot run \/nonexistent\/python3/);
  });
});
