#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""refdesign_py.py SOURCE_DIR - the Python binding's copies of the reference
design's constants match the headers they copy.

python/hellofpga/regs.py holds the user BAR of refdesign/hf_user_regs.h:
each of its integer constants NAME must be the header's HF_NAME, each of its
one-argument functions NAME(ch) the header's HF_USER_NAME(ch) for every
channel.  python/hellofpga/pattern.py holds the frame format of
refdesign/hf_stream_pattern.h: each of its public integer constants NAME
must be HF_STREAM_NAME, and the pattern's hash constants (the hex literals
of hf_stream_mix() and hf_stream_word()) must all be in it.  Prints every
mismatch and exits 1; 0 when all match.  Needs no NumPy: pattern.py is
parsed, not imported.
"""
import ast
import os
import re
import runpy
import sys

DEFINE = re.compile(r'^#define\s+(\w+)(?:\((\w+)\))?\s+(.*?)\s*(?:/\*.*)?$')
SUFFIX = re.compile(r'\b(0[xX][0-9a-fA-F]+|\d+)[uU]?[lL]*\b')


def c_defines(path):
    """Object-like macros as ints, function-like ones as (param, expr)."""
    values, funcs = {}, {}
    with open(path, encoding='utf-8') as f:
        for line in f:
            m = DEFINE.match(line.strip())
            if not m or not m.group(3):
                continue
            name, param, expr = m.groups()
            expr = SUFFIX.sub(r'\1', expr)
            if param:
                funcs[name] = (param, expr)
                continue
            try:
                values[name] = int(eval(expr, {'__builtins__': {}}, values))
            except Exception:  # not an integer expression (a guard)
                pass
    return values, funcs


def c_call(funcs, values, name, arg):
    param, expr = funcs[name]
    scope = dict(values)
    scope[param] = arg
    return int(eval(expr, {'__builtins__': {}}, scope))


def c_function_hex(path, names):
    """Hex literals above 0xffff in the bodies of the inline functions."""
    text = open(path, encoding='utf-8').read()
    found = set()
    for n in names:
        m = re.search(r'\b%s\([^)]*\)\s*\{(.*?)\n\}' % n, text, re.S)
        if not m:
            raise SystemExit('refdesign_py: no %s() in %s' % (n, path))
        found |= {int(h, 16) for h in re.findall(r'0x([0-9a-fA-F]+)',
                                                 m.group(1))
                  if int(h, 16) > 0xffff}
    return found


def py_int_constants(path):
    """Module-level NAME = <int literal> of a Python file, unimported."""
    tree = ast.parse(open(path, encoding='utf-8').read(), path)
    out = {}
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1 and
                isinstance(node.targets[0], ast.Name) and
                isinstance(node.value, ast.Constant) and
                type(node.value.value) is int):
            out[node.targets[0].id] = node.value.value
    return out, tree


def main(argv):
    if len(argv) != 2:
        print(__doc__.split('\n')[0], file=sys.stderr)
        return 2
    src = argv[1]
    regs_h = os.path.join(src, 'refdesign', 'hf_user_regs.h')
    pat_h = os.path.join(src, 'refdesign', 'hf_stream_pattern.h')
    regs_py = os.path.join(src, 'python', 'hellofpga', 'regs.py')
    pat_py = os.path.join(src, 'python', 'hellofpga', 'pattern.py')
    bad = []
    checked = 0

    values, funcs = c_defines(regs_h)
    regs = runpy.run_path(regs_py)
    for name, v in sorted(regs.items()):
        if name.startswith('_') or not name.isupper():
            continue
        c = 'HF_' + name
        if callable(v):
            c = 'HF_USER_' + name
            if c not in funcs:
                bad.append('regs.py %s(): no %s(ch) in %s' % (name, c, regs_h))
                continue
            for ch in range(4):
                checked += 1
                want = c_call(funcs, values, c, ch)
                if v(ch) != want:
                    bad.append('regs.py %s(%d) = %#x, %s(%d) = %#x' %
                               (name, ch, v(ch), c, ch, want))
        elif type(v) is int:
            checked += 1
            if c not in values:
                bad.append('regs.py %s: no %s in %s' % (name, c, regs_h))
            elif v != values[c]:
                bad.append('regs.py %s = %#x, %s = %#x' %
                           (name, v, c, values[c]))

    values, _ = c_defines(pat_h)
    consts, tree = py_int_constants(pat_py)
    for name, v in sorted(consts.items()):
        if name.startswith('_'):
            continue
        checked += 1
        c = 'HF_STREAM_' + name
        if c not in values:
            bad.append('pattern.py %s: no %s in %s' % (name, c, pat_h))
        elif v != values[c]:
            bad.append('pattern.py %s = %#x, %s = %#x' %
                       (name, v, c, values[c]))
    py_ints = {n.value for n in ast.walk(tree)
               if isinstance(n, ast.Constant) and type(n.value) is int}
    for h in sorted(c_function_hex(pat_h, ('hf_stream_mix',
                                           'hf_stream_word'))):
        checked += 1
        if h not in py_ints:
            bad.append('pattern.py: no %#x (the pattern hash in %s)' %
                       (h, pat_h))

    for b in bad:
        print('refdesign_py: ' + b)
    if bad:
        print('refdesign_py: %d of %d constants differ from the headers' %
              (len(bad), checked))
        return 1
    print('refdesign_py: %d constants match the headers' % checked)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
