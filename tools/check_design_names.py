"""Does docs/design.md name only files and modules that exist?

    python tools/check_design_names.py [docs/design.md]

The design page names source files (`fit/builder.c`, `io.c`,
`tools/check_layers.py`) and Python modules (`_native`, `distributed`) in
backticks. A file named with its folder must exist at that path from the
repository's root or from csrc/; a bare file name must exist somewhere in the
sources; a bare `_module` must be a module of the Python package. A page that
names what was renamed or removed misleads the next reader, so `make test`
runs this. Fails with the names it could not find.
"""
import pathlib
import re
import sys

REPO = pathlib.Path(__file__).resolve().parent.parent
SOURCES = ["csrc", "python", "R", "tools", "benchmarks", "tests", "spec", "docs"]
FILE = re.compile(r"`([A-Za-z0-9_./*-]+\.(?:py|c|h|R|md|toml|sh))`")
MODULE = re.compile(r"`(_[a-z_0-9]+)`")


def missing_names(text):
    files = {p.name for root in SOURCES for p in (REPO / root).rglob("*") if p.is_file()}
    files |= {p.name for p in REPO.iterdir() if p.is_file()}
    modules = {p.stem for p in (REPO / "python" / "sporf").glob("*.py")} | {"_sporf_cffi"}
    missing = []
    for name in FILE.findall(text):
        if "*" in name:  # a family of files, e.g. params*.c
            pattern = name.split("/")[-1]
            ok = any(pathlib.PurePath(f).match(pattern) for f in files)
        elif "/" in name:
            ok = (REPO / name).exists() or (REPO / "csrc" / name).exists()
        else:
            ok = name in files
        if not ok:
            missing.append(name)
    for name in MODULE.findall(text):
        if name not in modules and not name.endswith("_"):
            missing.append(name)
    return sorted(set(missing))


def main(argv):
    page = pathlib.Path(argv[1]) if len(argv) > 1 else REPO / "docs" / "design.md"
    missing = missing_names(page.read_text())
    if missing:
        print("%s names what does not exist: %s" % (page, ", ".join(missing)))
        return 1
    print("design names: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
