"""The package's layers: no module imports upward and no modules import each other in a
circle (function-level imports included).  docs/architecture.md explains the layers.

Higher layers that lower objects need (a Model's analyses, a Result's file) are reached
through flexmbd.services (dependency inversion), never by an import.
"""
from __future__ import annotations

import ast
import collections
import fnmatch
from pathlib import Path

import flexmbd

ROOT = Path(flexmbd.__file__).parent

#: bottom to top; a module may import its own layer and the layers below
LAYERS = [
    ["flexmbd._version", "flexmbd.errors", "flexmbd.ground", "flexmbd.timefunctions", "flexmbd.rotations",
     "flexmbd.lie", "flexmbd.linalg", "flexmbd.memo", "flexmbd.services", "flexmbd.compile_watch", "flexmbd.cold_start", "flexmbd.kernels",
     "flexmbd.kernels.*"],
    ["flexmbd.expressions"],
    ["flexmbd.nodes", "flexmbd.nodes.*"],
    ["flexmbd.spec", "flexmbd.registry", "flexmbd.groups"],
    # element modules: each type in its own module (they may use each other's maths)
    ["flexmbd.bodies", "flexmbd.bodies.*", "flexmbd.constraints", "flexmbd.constraints.*", "flexmbd.forces",
     "flexmbd.forces.*", "flexmbd.beams", "flexmbd.beams.*", "flexmbd.visuals"],
    ["flexmbd.catalog"],
    ["flexmbd.model"],
    ["flexmbd.compiled_assembly", "flexmbd.system"],
    ["flexmbd.results"],
    # the discrete-time transfer matrix method (P5): a solver family of its own
    ["flexmbd.tmm", "flexmbd.tmm.*"],
    ["flexmbd.solvers", "flexmbd.solvers.*"],
    ["flexmbd.io", "flexmbd.io.*"],
    # parameter studies on Dask: run model files (io) case by case
    ["flexmbd.sweep", "flexmbd.sweep.*"],
    ["flexmbd.viewer", "flexmbd.viewer.*"],
    ["flexmbd.examples", "flexmbd.examples.*", "flexmbd.verify", "flexmbd.verify.*", "flexmbd.warmup", "flexmbd.cli",
     "flexmbd.__main__", "flexmbd"],
]


def _modules():
    out = {}
    for p in ROOT.rglob("*.py"):
        parts = p.relative_to(ROOT.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = p
    return out


def _imports(mods):
    graph = collections.defaultdict(dict)
    for name, p in mods.items():
        package = name if p.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[:len(package.split(".")) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                # "from package import module" imports the module (the package is its parent)
                candidates = [f"{target}.{a.name}" if f"{target}.{a.name}" in mods else target
                              for a in node.names]
            elif isinstance(node, ast.Import):
                candidates = [a.name for a in node.names]
            else:
                continue
            for c in candidates:
                if c in mods and c != name:
                    graph[name][c] = node.lineno
    return graph


def _layer(name):
    for i, patterns in enumerate(LAYERS):
        if any(fnmatch.fnmatchcase(name, pat) for pat in patterns):
            return i
    raise AssertionError(f"{name} is in no layer of tests/test_layering.py")


def test_every_module_has_a_layer_and_imports_only_its_layer_or_below():
    mods = _modules()
    graph = _imports(mods)
    upward = [f"{a} (layer {_layer(a)}) imports {b} (layer {_layer(b)}) at line {line}"
              for a in sorted(mods) for b, line in sorted(graph[a].items()) if _layer(b) > _layer(a)]
    assert not upward, "\n".join(upward)


def test_no_import_cycles():
    mods = _modules()
    graph = _imports(mods)
    index, low, stack, on, cycles, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
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
            if len(comp) > 1:
                cycles.append(sorted(comp))

    for v in sorted(mods):
        if v not in index:
            visit(v)
    assert not cycles, cycles
