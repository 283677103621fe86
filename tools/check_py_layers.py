"""The Python package's imports go one way, as the C core's do (check_layers.py).

    python tools/check_py_layers.py [package directory]   # default: python/sporf

Each module of the package sits in one layer below; a module may import only
modules of lower layers, at module level. The check fails (exit status 1,
one line per problem) on an import of the same or a higher layer, on the C
library (_sporf_cffi) imported anywhere but _native, on an
import of a package module inside a function or class (the way a cycle is
usually hidden), and on a module no layer lists (a new module takes a place
here first). Imports of other packages (numpy, optional ones such as
matplotlib and distributed, loaded when used) are not this check's concern.
"""
import ast
import pathlib
import sys

# Lowest first. The C library is reached through the generated _sporf_cffi,
# which only _native imports (ONLY_NATIVE).
LAYERS = [
    # leaves: no package imports
    ["_sporf_cffi", "_spec_gen", "_labels", "_sparse", "_exclusive", "_dask", "_multioutput", "datasets"],
    # the one module that calls the C library: errors, matrix views,
    # progress, the forest handle and every call on it
    ["_native"],
    # the parameters, checked and put into the core's struct; categorical
    # features' levels, ordered by the core
    ["_params", "_categorical"],
    # services on a fitted forest's handle: proximity, metrics
    ["_proximity", "metrics"],
    # what every estimator shares on its fitted forest: inspection
    # (leaves, trees, proximities, importances) and persistence (bytes)
    ["_inspect", "_persistence"],
    # the estimators: the base and SPORF's, then the forests built on them
    # (the survival base before MORF, whose survival forest stands on it)
    ["_forest"],
    ["_survival", "_urerf"],
    ["_morf"],
    # the isolation forests (MORF's patch input for MORFIsolation)
    ["_isolation"],
    # public functions over the estimators
    ["_merge", "_load", "distributed"],
    ["__init__"],
]
# Run at build time only (it writes _sporf_cffi), never imported.
BUILD_ONLY = {"_build_ffi"}
# The modules only _native may import: every C call goes through it.
ONLY_NATIVE = {"_sporf_cffi"}


def layer_of():
    return {name: i for i, layer in enumerate(LAYERS) for name in layer}


def package_imports(tree, package):
    """(line, imported module, at module level) for each import of a module
    of `package`, relative (from . import x, from .x import y) or absolute."""
    top = set(id(node) for node in tree.body)
    for node in ast.walk(tree):
        targets = []
        if isinstance(node, ast.ImportFrom):
            if node.level == 1 and node.module is None:
                targets = [a.name for a in node.names]
            elif node.level == 1:
                targets = [node.module.split(".")[0]]
            elif node.level == 0 and node.module and node.module.split(".")[0] == package:
                parts = node.module.split(".")
                targets = [parts[1]] if len(parts) > 1 else [a.name for a in node.names]
        elif isinstance(node, ast.Import):
            for a in node.names:
                parts = a.name.split(".")
                if parts[0] == package and len(parts) > 1:
                    targets.append(parts[1])
        for t in targets:
            yield node.lineno, t, id(node) in top


def check(directory):
    directory = pathlib.Path(directory)
    package = directory.name
    layers = layer_of()
    problems = []
    for path in sorted(directory.glob("*.py")):
        name = path.stem
        if name in BUILD_ONLY:
            continue
        if name not in layers:
            problems.append("%s: not in any layer of tools/check_py_layers.py" % path.name)
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for line, target, at_top in package_imports(tree, package):
            where = "%s:%d" % (path.name, line)
            if not at_top:
                problems.append("%s: imports %s inside a function or class (import at module level; "
                                "a cycle this hides is a layering error)" % (where, target))
            if target not in layers:
                problems.append("%s: imports %s, which is in no layer" % (where, target))
            elif target in ONLY_NATIVE and name != "_native":
                problems.append("%s: imports %s: only _native calls the C library" % (where, target))
            elif layers[target] >= layers[name]:
                problems.append("%s: %s (layer %d) imports %s (layer %d): imports go to lower layers only"
                                % (where, name, layers[name], target, layers[target]))
    return problems


def main(argv):
    directory = argv[1] if len(argv) > 1 else pathlib.Path(__file__).resolve().parent.parent / "python" / "sporf"
    problems = check(directory)
    for p in problems:
        print(p)
    if problems:
        return 1
    print("python layers: ok (%d modules)" % sum(len(layer) for layer in LAYERS))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
