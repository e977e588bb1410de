// The contract names engine data types with `import type`; following them, the type checker reaches engine
// modules that import Node built-ins. The renderer has no Node types (it must not use Node), so those imports
// are declared opaque here. Nothing of them is bundled: type imports are erased.
declare module 'node:crypto';
