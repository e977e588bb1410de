#!/usr/bin/env python3
"""Extracts (docstring summary, code without docstring) pairs from the local Python standard library.

Used only to evaluate / tune the default hashing encoder (scripts/eval-default-encoder.ts); nothing it
produces is committed. Output: JSON lines {"module", "name", "query", "code"} on stdout.

usage: python3 scripts/extract-stdlib-functions.py [STDLIB_DIR] > /tmp/stdlib-functions.jsonl
"""
import ast
import json
import os
import sys
import sysconfig

root = sys.argv[1] if len(sys.argv) > 1 else sysconfig.get_paths()["stdlib"]
skip_dirs = {"test", "tests", "idlelib", "lib2to3", "site-packages", "ensurepip", "turtledemo", "__pycache__"}

for dirpath, dirnames, filenames in os.walk(root):
    dirnames[:] = sorted(d for d in dirnames if d not in skip_dirs)
    for fn in sorted(filenames):
        if not fn.endswith(".py"):
            continue
        path = os.path.join(dirpath, fn)
        try:
            src = open(path, encoding="utf-8").read()
            tree = ast.parse(src)
        except Exception:
            continue
        lines = src.splitlines()
        module = os.path.relpath(path, root)
        for node in ast.walk(tree):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            doc = ast.get_docstring(node)
            if not doc or node.name.startswith("__"):
                continue
            summary = doc.strip().split("\n\n")[0].replace("\n", " ").strip()
            if len(summary.split()) < 3:
                continue
            body = node.body
            first = body[0]
            rest = body[1:]
            if not rest:
                continue
            # def line(s) up to the docstring, then the body after the docstring
            head = lines[node.lineno - 1 : first.lineno - 1]
            tail = lines[rest[0].lineno - 1 : node.end_lineno]
            code = "\n".join(head + tail)
            if len(code) < 80:
                continue
            print(json.dumps({"module": module, "name": node.name, "query": summary, "code": code}))
