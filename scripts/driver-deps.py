#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""driver-deps.py [-r] [--layers HEADER] [DIR] - the file-level call graph of C files.

For every DIR/*.c (default: driver/ beside this script; with -r also those
of DIR's subfolders, named by their path under DIR), finds the functions
and variables it defines for other files (top-level definitions that are not
static) and the identifiers it uses; a file that uses what another one
defines imports that file.  A .c file included by a .c file (engine.c
includes core/xdma_*.c) counts as part of it.  Prints each file's
imports with the names it uses, then the files in layers (a file imports
only files of lower layers), or, when the imports form cycles, the files
that import each other and a shortest cycle through each of them with the
names behind every edge, and exits 1.

With --layers, HEADER writes the layer order down, one comment line per
layer ("layer N: a.c sub/b.c ..."): every file of DIR must be in one layer,
and a file may import only files of lower layers; an import of the same or
a higher layer is printed as "upward" and exits 1.

Text-based (comments, strings and character literals removed, braces
counted): it sees what the preprocessor would see with every #if branch
taken, and names made by token pasting are not found.

Exit status: 0 no cycle (and no upward import), 1 cycle or upward import,
2 usage error.
"""
import os
import re
import sys

TOKEN = re.compile(r'[A-Za-z_][A-Za-z0-9_]*|\S')
KEYWORDS = {
    'if', 'for', 'while', 'switch', 'return', 'sizeof', 'do', 'else',
    'case', 'goto', 'typeof', '__typeof__', 'defined',
}


def strip(text):
    """Text without comments, string and character literals (newlines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append('\n' * text.count('\n', i, j) or ' ')
            i = j
        elif text.startswith('//', i):
            j = text.find('\n', i)
            i = n if j < 0 else j
        elif c in '"\'':
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == '\\' else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def c_includes(path, text):
    """.c files a file includes with #include "...c", resolved."""
    found = []
    for m in re.finditer(r'^\s*#\s*include\s+"([^"]+\.c)"', text, re.M):
        p = os.path.normpath(os.path.join(os.path.dirname(path), m.group(1)))
        if os.path.isfile(p):
            found.append(p)
    return found


def split_preprocessor(text):
    """(code, macro bodies): directives removed from the code (continuation
    lines too); the bodies of #define, whose identifiers are uses, apart."""
    code, macros = [], []
    cont = keep = False
    for line in text.split('\n'):
        s = line.rstrip('\\') if line.endswith('\\') else line
        if cont:
            (macros if keep else code).append(s if keep else '')
        elif s.lstrip().startswith('#'):
            m = re.match(r'\s*#\s*define\s+\w+(\([^)]*\))?', s)
            keep = bool(m)
            if m:
                macros.append(s[m.end():])
            code.append('')
        else:
            code.append(s)
        cont = line.endswith('\\')
    return '\n'.join(code), '\n'.join(macros)


def top_level(tokens):
    """Split tokens into top-level chunks, each a declaration or definition."""
    chunks = []
    cur = []
    depth = 0
    for t in tokens:
        cur.append(t)
        if t == '{':
            depth += 1
        elif t == '}':
            depth -= 1
            if depth == 0:
                chunks.append(cur)
                cur = []
        elif t == ';' and depth == 0:
            chunks.append(cur)
            cur = []
    if cur:
        chunks.append(cur)
    return chunks


def is_ident(t):
    return bool(re.match(r'[A-Za-z_]', t))


def declared_name(head):
    """What a top-level chunk defines: (name, 'function' or 'variable'), or
    (None, None) for a prototype, a macro call or a type definition."""
    cut = len(head)
    depth = 0
    for i, t in enumerate(head):
        if t in '([':
            depth += 1
        elif t in ')]':
            depth -= 1
        elif depth == 0 and t in ('=', '{', ';'):
            cut = i
            break
    decl = head[:cut]
    body = cut < len(head) and head[cut] == '{'
    # the first identifier called at depth 0 that is no attribute (__printf)
    depth = 0
    for i, t in enumerate(decl):
        if t == '(':
            prev = decl[i - 1] if i else ''
            if depth == 0 and is_ident(prev) and not prev.startswith('__') \
                    and prev not in KEYWORDS:
                return (prev, 'function') if body else (None, None)
            depth += 1
        elif t == ')':
            depth -= 1
    if body or sum(map(is_ident, decl)) < 2:
        return None, None	# struct/enum/union definition, or nothing
    # a variable: the last identifier outside brackets
    depth = 0
    last = None
    for t in decl:
        if t == '[':
            depth += 1
        elif t == ']':
            depth -= 1
        elif depth == 0 and is_ident(t):
            last = t
    return last, 'variable'


def idents(tokens):
    """Identifiers of a token list, without member names (after . or ->)."""
    for i, t in enumerate(tokens):
        if not is_ident(t):
            continue
        if i and (tokens[i - 1] == '.' or
                  (tokens[i - 1] == '>' and i > 1 and tokens[i - 2] == '-')):
            continue
        yield t


def scan(path):
    """(exports, locals, uses) of one .c file with the .c files it includes:
    non-static top-level definitions (name -> kind), static ones, and every
    identifier used."""
    exports, local, uses = {}, set(), set()
    todo = [path]
    seen = set()
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        with open(p, encoding='utf-8', errors='replace') as f:
            raw = f.read()
        todo.extend(c_includes(p, raw))
        code, macros = split_preprocessor(strip(raw))
        uses.update(idents(TOKEN.findall(macros)))
        for head in top_level(TOKEN.findall(code)):
            name, kind = (None, None)
            if head[0] not in ('typedef', 'extern'):
                name, kind = declared_name(head)
            if name:
                if 'static' in head[:head.index(name)]:
                    local.add(name)
                else:
                    exports[name] = kind
            uses.update(t for t in idents(head) if t != name)
    return exports, local, uses


def sccs(nodes, edges):
    """Strongly connected components (Tarjan), each a sorted list."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def shortest_cycle(start, members, edges):
    """A shortest cycle from @start back to it inside @members."""
    prev = {start: None}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(edges[v]):
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return list(reversed(path)) + [start]
            if w in members and w not in prev:
                prev[w] = v
                queue.append(w)
    return [start, start]


def rotated(path):
    """A cycle [a, b, c, a] started at its smallest file, to compare."""
    ring = path[:-1]
    i = ring.index(min(ring))
    ring = ring[i:] + ring[:i]
    return tuple(ring + ring[:1])


def c_files(d, recurse):
    """The .c files of @d (and its subfolders), as paths relative to @d."""
    found = []
    for top, dirs, names in os.walk(d):
        dirs.sort()
        rel = os.path.relpath(top, d)
        found.extend(os.path.normpath(os.path.join(rel, f)) for f in names
                     if f.endswith('.c') and not f.endswith('.mod.c'))
        if not recurse:
            break
    return sorted(found)


def read_layers(path):
    """{file: layer} from the "layer N: files" lines of a header."""
    layer = {}
    with open(path, encoding='utf-8') as f:
        for line in f:
            m = re.match(r'\s*\*?\s*layer\s+(\d+):\s*(.*)', line)
            if m:
                for name in m.group(2).split():
                    layer[name] = int(m.group(1))
    return layer


def check_layers(files, edges, written, header):
    """Print what breaks the written layer order; the count of problems."""
    bad = 0
    for f in files:
        if f not in written:
            print('not in %s: %s' % (header, f))
            bad += 1
    for f in sorted(set(written) - set(files)):
        print('in %s but no such file: %s' % (header, f))
        bad += 1
    for f in files:
        for g in sorted(edges[f]):
            if f in written and g in written and written[g] >= written[f]:
                print('upward: %s (layer %d) -> %s (layer %d): %s' %
                      (f, written[f], g, written[g],
                       ' '.join(sorted(edges[f][g]))))
                bad += 1
    return bad


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    args = argv[1:]
    recurse = '-r' in args
    args = [a for a in args if a != '-r']
    header = None
    if len(args) >= 2 and args[0] == '--layers':
        header, args = args[1], args[2:]
    if len(args) > 1 or (args and args[0].startswith('-')):
        print(__doc__.strip().split('\n')[0], file=sys.stderr)
        return 2
    d = args[0] if args else os.path.join(here, '..', 'driver')
    if not os.path.isdir(d):
        print('driver-deps: no directory %s' % d, file=sys.stderr)
        return 2
    if header and not os.path.isfile(header):
        print('driver-deps: no file %s' % header, file=sys.stderr)
        return 2
    files = c_files(d, recurse)
    info = {f: scan(os.path.join(d, f)) for f in files}
    owner = {}
    for f in files:
        for name in info[f][0]:
            owner.setdefault(name, []).append(f)
    edges = {f: {} for f in files}
    for f in files:
        exports, local, uses = info[f]
        for name in uses:
            if name in exports or name in local:
                continue
            for g in owner.get(name, []):
                if g != f:
                    edges[f].setdefault(g, set()).add(name)

    for f in files:
        print(f)
        for g in sorted(edges[f]):
            print('  -> %-12s %s' % (g, ' '.join(sorted(edges[f][g]))))
    dup = {n: fs for n, fs in owner.items() if len(fs) > 1}
    for n in sorted(dup):
        print('note: %s is defined in %s' % (n, ', '.join(dup[n])))

    cyc = [c for c in sccs(files, edges) if len(c) > 1]
    if cyc:
        for comp in cyc:
            print()
            print('files importing each other: %s' % ' '.join(comp))
            seen = set()
            for f in comp:
                path = rotated(shortest_cycle(f, set(comp), edges))
                if path in seen:
                    continue
                seen.add(path)
                print('cycle: %s' % ' -> '.join(path))
                for a, b in zip(path, path[1:]):
                    print('    %s -> %s: %s' %
                          (a, b, ' '.join(sorted(edges[a][b]))))
        print('driver-deps: import cycles among %d of %d files' %
              (sum(map(len, cyc)), len(files)))
        return 1

    # layers: a file's layer is one above the highest layer it imports
    layer = {}

    def depth(f):
        if f not in layer:
            layer[f] = 1 + max((depth(g) for g in edges[f]), default=-1)
        return layer[f]

    for f in files:
        depth(f)
    print()
    for n in range(max(layer.values(), default=-1) + 1):
        print('layer %d: %s' % (n, ' '.join(f for f in files
                                             if layer[f] == n)))
    if header:
        bad = check_layers(files, edges, read_layers(header), header)
        if bad:
            print('driver-deps: %d imports or files break the layers of %s' %
                  (bad, header))
            return 1
        print('driver-deps: the imports follow the layers of %s' % header)
    print('driver-deps: no import cycle among %d files' % len(files))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
