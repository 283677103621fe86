"""Check that the C core keeps its layers: dependencies go one way, no cycles.

The core's folders are layers, lowest first (docs/design.md):

    util  ->  model  ->  predict  ->  fit  ->  api

A file may use its own layer and the layers before it, never one after.
The checks, all run by the C test suite (meson test "layers"):

  * includes: every `#include "layer/..."` in csrc/<layer>/ names a header
    of the same or a lower layer (csrc/include/sporf.h, the public header,
    may be included anywhere);
  * includes inside a layer: a file and its header (x.c, x.h) count as one,
    and no such pair includes one that includes it back, directly or
    through others, so a layer's files stack one way too;
  * uses inside a layer: a pair that includes another's header stands above
    it, so the one below may not name a function or table the one above
    defines (read from the sources: a pair "uses" another when it includes
    its header or names a sporf_ symbol defined in its .c file); the graph
    of uses has no cycle, so no include runs up;
  * size: no function of the core is longer than MAX_FUNCTION_LINES lines
    (from its opening brace to its closing one), except those listed in
    LONG_FUNCTIONS with the reason they stay whole;
  * calls: in the built core library, a file that uses a symbol defined in
    another file (read with nm) may only use one of the same or a lower
    layer, and the graph of which file uses which has no cycle.

    python tools/check_layers.py [path/to/libsporfcore.a]

Without the library only the includes are checked. Exits 1 and lists every
violation.
"""
import os
import pathlib
import re
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parent.parent
# SPORF_CHECK_CSRC: another copy of the core's sources (the tests plant
# violations in one)
CSRC = pathlib.Path(os.environ.get("SPORF_CHECK_CSRC", REPO / "csrc"))
LAYERS = ["util", "model", "predict", "fit", "api"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer_of(rel):
    """The layer of a path relative to csrc/ ("fit/builder.c" -> "fit")."""
    top = rel.split("/", 1)[0]
    return top if top in LAYERS else None


MAX_FUNCTION_LINES = 100
# Functions that stay longer, each with why: none may be added without one.
LONG_FUNCTIONS = {
    "model/io.c:sporf_model_read": "the model file's sections, read in the order they are written",
    "model/tree_codec.c:sporf_tree_decode": "one tree's fields in the order of the format, each checked as read",
    "model/merge.c:sporf_model_merge": "the merge's checks and its copy, one pass over the forests",
    "predict/packed.c:sporf_forest_pack": "the packed layout, written node by node",
    "api/tune.c:tune": "the successive-halving loop over the candidates",
}
FUNCTION_START = re.compile(r"^([A-Za-z][^;{}]*?)\b([A-Za-z_][A-Za-z_0-9]*)\s*\(", re.M)


def check_function_sizes():
    """Functions longer than MAX_FUNCTION_LINES that are not listed."""
    problems = []
    for path in sorted(CSRC.rglob("*")):
        if path.suffix not in (".c", ".h") or not path.is_file():
            continue
        rel = path.relative_to(CSRC).as_posix()
        lines = path.read_text().split("\n")
        name, opened = None, None
        for i, line in enumerate(lines):
            if line.startswith("{") and opened is None:
                j = i - 1
                while j > 0 and not re.match(r"[A-Za-z]", lines[j]):
                    j -= 1
                m = FUNCTION_START.match(lines[j])
                name, opened = (m.group(2) if m else "?"), i
            elif line.startswith("}") and opened is not None:
                length = i - opened + 1
                key = "%s:%s" % (rel, name)
                if length > MAX_FUNCTION_LINES and key not in LONG_FUNCTIONS:
                    problems.append("%s is %d lines, more than %d" % (key, length, MAX_FUNCTION_LINES))
                opened = None
    return problems


def check_include_cycles():
    """Inside a layer, the graph of which file pair includes which has no cycle."""
    edges = {}
    for path in sorted(CSRC.rglob("*")):
        if path.suffix not in (".c", ".h") or not path.is_file():
            continue
        rel = path.relative_to(CSRC).as_posix()
        if rel.startswith("include/"):
            continue
        unit = rel.rsplit(".", 1)[0]
        edges.setdefault(unit, set())
        for inc in INCLUDE.findall(path.read_text()):
            target = inc.rsplit(".", 1)[0]
            if target != unit and layer_of(inc) == layer_of(rel):
                edges[unit].add(target)
    cycle = find_cycle(edges)
    return ["include cycle inside a layer: " + " -> ".join(cycle)] if cycle else []


DEFINITION = re.compile(r"^(?!static\b|typedef\b|extern\b|return\b)[A-Za-z_][^;{}()=]*?\b(sporf_[A-Za-z0-9_]+)\s*[(=]",
                        re.M)
# what a header declares is not a use of it: prototypes and extern tables
DECLARATION = re.compile(r"^(?:extern\s[^;{}]*;|[A-Za-z_][^;{}=]*?\bsporf_[A-Za-z0-9_]+\s*\([^;{}]*\)\s*;)", re.M)
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
SYMBOL = re.compile(r"\bsporf_[A-Za-z0-9_]+\b")


def core_units():
    """Each file of a layer as (path relative to csrc/, its pair's name, text
    without comments)."""
    for path in sorted(CSRC.rglob("*")):
        if path.suffix not in (".c", ".h") or not path.is_file():
            continue
        rel = path.relative_to(CSRC).as_posix()
        if not rel.startswith("include/") and layer_of(rel):
            # x_gen.c, generated from the spec, is the other half of x.c (x.h)
            unit = re.sub(r"_gen$", "", rel.rsplit(".", 1)[0])
            yield rel, unit, COMMENT.sub(" ", path.read_text())


def check_uses_inside_layers():
    """Inside a layer, includes and uses of symbols together have no cycle:
    a pair below another (included by it) never names what it defines."""
    files = list(core_units())
    defined_by = {}
    for rel, unit, text in files:
        if rel.endswith(".c"):
            for m in DEFINITION.finditer(text):
                if m.group(0).endswith("(") and ";" in text[m.end():text.find("\n{", m.end())]:
                    continue  # a prototype (a ; before the body's brace), not a definition
                defined_by[m.group(1)] = unit
    edges, why = {}, {}
    for rel, unit, text in files:
        edges.setdefault(unit, set())
        for inc in INCLUDE.findall(text):
            target = inc.rsplit(".", 1)[0]
            if target != unit and layer_of(inc) == layer_of(rel):
                edges[unit].add(target)
                why.setdefault((unit, target), 'includes "%s"' % inc)
        for sym in set(SYMBOL.findall(DECLARATION.sub(" ", text))):
            target = defined_by.get(sym)
            if target and target != unit and layer_of(target) == layer_of(rel):
                edges[unit].add(target)
                why.setdefault((unit, target), "names %s" % sym)
    cycle = find_cycle(edges)
    if not cycle:
        return []
    steps = ["%s %s" % (a, why[a, b]) for a, b in zip(cycle, cycle[1:])]
    return ["an include runs up inside a layer (a pair uses one that uses it back): " + "; ".join(steps)]


def check_includes():
    problems = []
    for path in sorted(CSRC.rglob("*")):
        if path.suffix not in (".c", ".h") or not path.is_file():
            continue
        rel = path.relative_to(CSRC).as_posix()
        if rel.startswith("include/"):
            continue
        own = layer_of(rel)
        if own is None:
            problems.append("%s: not in a layer folder (%s)" % (rel, ", ".join(LAYERS)))
            continue
        for inc in INCLUDE.findall(path.read_text()):
            if inc == "include/sporf.h":
                continue
            target = layer_of(inc)
            if target is None or not (CSRC / inc).is_file():
                problems.append('%s: #include "%s" is not a header of a layer folder' % (rel, inc))
            elif LAYERS.index(target) > LAYERS.index(own):
                problems.append('%s (%s) includes "%s" of the higher layer %s' % (rel, own, inc, target))
    return problems


def object_source(name):
    """meson names csrc/fit/builder.c's object csrc_fit_builder.c.o."""
    m = re.match(r"csrc_([a-z]+)_(.+\.c)\.o$", name)
    return "%s/%s" % (m.group(1), m.group(2)) if m else None


def symbol_graph(library):
    out = subprocess.run(["nm", "-A", library], capture_output=True, text=True, check=True).stdout
    defined, used = {}, {}
    # "lib.a:dir/csrc_fit_builder.c.o:0000000000000000 T sporf_builder_grow"
    # "lib.a:dir/csrc_fit_builder.c.o:                 U sporf_set_error"
    line_re = re.compile(r"([^:/]+\.o):[0-9a-fA-F]*\s+([A-Za-z])\s+(\S+)$")
    for line in out.splitlines():
        m = line_re.search(line)
        if not m:
            continue
        src = object_source(m.group(1))
        if src is None:
            continue
        kind, sym = m.group(2), m.group(3)
        used.setdefault(src, set())
        if kind == "U":
            used[src].add(sym)
        elif kind in "TDBRGSCV":
            defined[sym] = src
    edges = {}
    for src, syms in used.items():
        edges[src] = {defined[s] for s in syms if s in defined and defined[s] != src}
    return edges


def find_cycle(edges):
    """One cycle of the graph as a list of files, or None."""
    state, stack = {}, []

    def visit(node):
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def check_calls(library):
    edges = symbol_graph(library)
    problems = []
    if not edges:
        problems.append("%s: no core objects found (is it the core library?)" % library)
    for src in sorted(edges):
        for dst in sorted(edges[src]):
            if LAYERS.index(layer_of(dst)) > LAYERS.index(layer_of(src)):
                problems.append("%s (%s) calls into %s of the higher layer %s" %
                                (src, layer_of(src), dst, layer_of(dst)))
    cycle = find_cycle(edges)
    if cycle:
        problems.append("call cycle: " + " -> ".join(cycle))
    return problems, edges


def main(argv):
    problems = check_includes() + check_include_cycles() + check_uses_inside_layers() + check_function_sizes()
    n_edges = 0
    if len(argv) > 1:
        call_problems, edges = check_calls(argv[1])
        problems += call_problems
        n_edges = sum(len(v) for v in edges.values())
    for p in problems:
        print("layers: " + p)
    if problems:
        return 1
    print("layers: ok (%s; %d calls between files checked)" % (" -> ".join(LAYERS), n_edges))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
