"""Generate every language's parameter code from spec/params.toml.

    python tools/gen_params.py            write the generated files
    python tools/gen_params.py --check    exit 1 (naming them) when a generated file is stale

The spec's header says what each column means and which files come out of it.
Generated files (or blocks, between GENERATED markers, in hand-written files)
say so in their first lines; edit the spec and rerun this script instead.
Needs only Python's standard library (tomllib: Python >= 3.11). The spec is read and
described in gen_params_spec.py; each language's code comes from gen_params_c.py,
gen_params_python.py and gen_params_r.py; this script writes or checks the files.
"""
import argparse
import pathlib
import sys

from gen_params_c import gen_c_source, gen_header_block
from gen_params_python import gen_python
from gen_params_r import gen_r_api, gen_r_glue, gen_r_table, gen_rd_items, gen_rd_usage
from gen_params_spec import REPO, load_spec


def replace_block(text, begin, end, body, path):
    i, j = text.find(begin), text.find(end)
    if i < 0 or j < 0 or j < i:
        raise SystemExit("%s: markers %r ... %r not found" % (path, begin, end))
    return text[:i + len(begin)] + "\n" + body + "\n" + text[j:]


def outputs(spec, params, by_name):
    """{path: new text} for every generated file and every file with a generated block."""
    out = {}
    header = REPO / "csrc" / "include" / "sporf.h"
    out[header] = replace_block(header.read_text(), "/* SPORF_PARAMS_BEGIN */", "/* SPORF_PARAMS_END */",
                                gen_header_block(params), header)
    out[REPO / "csrc" / "model" / "params_gen.c"] = gen_c_source(spec, params)
    out[REPO / "python" / "sporf" / "_spec_gen.py"] = gen_python(spec, params, by_name)
    out[REPO / "R" / "R" / "spec_gen.R"] = gen_r_table(spec, params, by_name)
    out[REPO / "R" / "R" / "api_gen.R"] = gen_r_api(spec, by_name)
    out[REPO / "R" / "src" / "params_r_gen.c"] = gen_r_glue(params)
    for ename, est in spec["estimator"].items():
        if est["language"] != "r":
            continue
        rd = REPO / "R" / "man" / ("%s.Rd" % ename)
        text = out.get(rd, rd.read_text())
        text = replace_block(text, "% GENERATED:params:begin", "% GENERATED:params:end",
                             gen_rd_items(ename, est, by_name), rd)
        text = replace_block(text, "% GENERATED:usage:begin", "% GENERATED:usage:end",
                             gen_rd_usage(ename, est, by_name), rd)
        out[rd] = text
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="only report stale generated files")
    args = ap.parse_args()
    spec, params, by_name = load_spec()
    stale = []
    for path, text in outputs(spec, params, by_name).items():
        old = path.read_text() if path.exists() else None
        if old != text:
            stale.append(path.relative_to(REPO))
            if not args.check:
                path.write_text(text)
    if args.check and stale:
        print("stale generated files (run python tools/gen_params.py): %s" % ", ".join(map(str, stale)))
        return 1
    # Whole generated files (not the header's or the help pages' blocks) are
    # named *_gen.* and marked in .gitattributes.
    whole = [path.relative_to(REPO).as_posix() for path in outputs(spec, params, by_name)
             if path.suffix not in (".h", ".Rd")]
    marked = (REPO / ".gitattributes").read_text()
    wrong = [f for f in whole if not pathlib.PurePath(f).stem.endswith("_gen")
             or "%s linguist-generated=true" % f not in marked]
    if wrong:
        print("generated files must be named *_gen.* and marked generated in .gitattributes: %s"
              % ", ".join(wrong))
        return 1
    if stale and not args.check:
        print("gen_params: wrote %s" % ", ".join(map(str, stale)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
