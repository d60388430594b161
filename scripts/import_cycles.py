"""File- and module-level import cycles of the crate's src/ (non-test code).

Usage: python3 scripts/import_cycles.py src [PREFIX]   (e.g. PREFIX analysis::report)
An edge is a `crate::`, `super::` or `self::` path in a file (test modules and comments
left out) resolved to the longest module that has a file; a module cycle is one among the
children of the lowest common ancestor of the two ends. Prints every strongly connected
component with more than one member, and exits with 1 when there is one (.ci/run checks that
there is none)."""
import os, re, sys
from collections import defaultdict
root = sys.argv[1]
mods = {}  # module path tuple -> file
for d, _, fs in os.walk(root):
    for f in fs:
        if not f.endswith('.rs'): continue
        p = os.path.join(d, f); rel = os.path.relpath(p, root)[:-3].split(os.sep)
        if rel[-1] in ('mod', 'lib', 'main'): rel = rel[:-1]
        mods[tuple(rel)] = p
def resolve(path):
    for k in range(len(path), 0, -1):
        if tuple(path[:k]) in mods: return tuple(path[:k])
    return None
edges = defaultdict(set)
for m, p in mods.items():
    if m == ('main',) or p.endswith('main.rs'): continue
    src = open(p).read()
    src = src.split('#[cfg(test)]')[0]
    src = re.sub(r'//[^\n]*', '', src)
    is_dir = p.endswith('mod.rs') or p.endswith('lib.rs')
    here = list(m) if is_dir else list(m[:-1])   # module whose children `super`/self refer to
    paths = [m_.group(1) for m_ in re.finditer(r'\b((?:crate|super|self)(?:::\w+)+)', src)]
    for g in re.finditer(r'\b((?:crate|super|self)(?:::\w+)*)::\{([^{}]*(?:\{[^{}]*\}[^{}]*)*)\}', src):
        for item in re.split(r',(?![^{]*\})', g.group(2)):
            item = item.strip().split('::{')[0].split(' as ')[0]
            if item: paths.append(g.group(1) + '::' + item)
    for path_ in paths:
        parts = path_.split('::')
        if parts[0] == 'crate': base = []; parts = parts[1:]
        else:
            base = list(m) if is_dir else list(m)
            while parts and parts[0] in ('super', 'self'):
                if parts[0] == 'super': base = base[:-1]
                parts = parts[1:]
        t = resolve(base + parts)
        if t and t != m: edges[m].add(t)
    # `mod x;` declarations are ownership, not use: not edges
def sccs(nodes, g):
    idx = {}; low = {}; st = []; on = set(); out = []; c = [0]
    sys.setrecursionlimit(10000)
    def visit(v):
        idx[v] = low[v] = c[0]; c[0] += 1; st.append(v); on.add(v)
        for w in g.get(v, ()):
            if w not in idx: visit(w); low[v] = min(low[v], low[w])
            elif w in on: low[v] = min(low[v], idx[w])
        if low[v] == idx[v]:
            comp = []
            while True:
                w = st.pop(); on.discard(w); comp.append(w)
                if w == v: break
            if len(comp) > 1: out.append(comp)
    for v in nodes:
        if v not in idx: visit(v)
    return out
prefix = tuple(sys.argv[2].split('::')) if len(sys.argv) > 2 else ()
def keep(m): return m[:len(prefix)] == prefix
# file level: an edge to an ancestor mod.rs that only re-exports is still an edge
found = 0
print("file cycles:")
for comp in sccs(list(mods), edges):
    if any(keep(x) for x in comp):
        print("  ", sorted('::'.join(x) for x in comp)); found += 1
# module level: siblings under the lowest common ancestor
sib = defaultdict(set)
for a, bs in edges.items():
    for b in bs:
        k = 0
        while k < min(len(a), len(b)) and a[k] == b[k]: k += 1
        if k < len(a) and k < len(b):
            sib[a[:k+1]].add(b[:k+1])
print("module cycles:")
for comp in sccs(list(sib), sib):
    if any(keep(x) for x in comp):
        print("  ", sorted('::'.join(x) for x in comp)); found += 1
sys.exit(1 if found else 0)
