"""Count the hand-written source files that name each parameter of the spec.

spec/params.toml defines every parameter once and tools/gen_params.py writes
the code that converts, checks, saves and documents it. A parameter's name in
a hand-written file is then either its use in the algorithm or a copy of the
vocabulary that the spec should own. This script lists, for each parameter,
the hand-written files of the core and the bindings (csrc/, python/sporf/,
R/R/, R/src/) whose code names it as a whole word, comments left out, and
the generated files and blocks left out.

    python tools/check_param_mentions.py [--limit 4] [--verbose]

Exits 1 when a parameter is named in more than --limit files, except the
names in SHARED_WORDS, whose other meanings (an argument of predict, a word
of the model) are listed there with the reason (their counts are printed but
not enforced), and the names in CEILINGS, which are over the limit today and
may not grow (a ratchet: lower a ceiling when a copy goes). `make test` runs
it.
"""
import argparse
import pathlib
import re
import sys

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib

REPO = pathlib.Path(__file__).resolve().parent.parent
ROOTS = ["csrc", "python/sporf", "R/R", "R/src"]
SUFFIXES = {".c", ".h", ".py", ".R"}

# Names that are also something other than the forest's parameter.
SHARED_WORDS = {
    "n_jobs": "also the thread count of every predict, apply, proximity and merge call in both languages",
    "verbose": "also the progress switch of predict, proximity and the Dask driver",
    "random_state": "also the seed of the data generators (datasets) and of the Dask driver's shards",
    "projection": "also the core's word for a candidate split direction (projection.c, tree codec, importances)",
    "criterion": "also the split score inside the tasks (criterion.h, unsupervised.h)",
    "sample_weight": "a fit argument, not a stored parameter: each fit entry point takes it",
    "n_neighbors": "an argument of the neighbour queries, not a stored parameter",
    "oob_score": "a fit option whose result the print and predict methods report",
    "importance": "also the word of every importance the forests report (impurity, usage, projection)",
    "max_depth": "also the depth of the prediction layout and of the tree codec's stack",
    "quantiles": "also predict's argument (the probabilities asked for) and the word of the core's quantile code",
}



# Over the limit today, each for uses in the algorithm or the input's shape,
# not for converting, checking or documenting the parameter: may not grow.
CEILINGS = {
    "class_weight": 10,     # the mode at fit; custom weights stored, compared by merge, passed by both glues
    "data_dims": 12,        # the grid also shapes the input: images reshaped in both languages' MORF/URerF
    # the caret model (R/R/caret.R) names the parameters it tunes, as caret's models do
    "feature_combinations": 5,
    "min_samples_leaf": 5,
}


def strip_comments(text, suffix):
    if suffix in (".c", ".h"):
        text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
        return re.sub(r"//[^\n]*", " ", text)
    if suffix == ".py":  # docstrings document, they do not convert or check
        text = re.sub(r'"""(?:.|\n)*?"""', " ", text)
    # Python and R: drop # comments outside strings (good enough for counting)
    out = []
    for line in text.splitlines():
        quote = None
        for i, ch in enumerate(line):
            if quote:
                if ch == quote and line[i - 1] != "\\":
                    quote = None
            elif ch in "\"'":
                quote = ch
            elif ch == "#":
                line = line[:i]
                break
        out.append(line)
    return "\n".join(out)


def is_generated(text):
    head = "\n".join(text.splitlines()[:3]).lower()
    return "generated" in head and ("gen_params" in head or "do not edit" in head)


def hand_written_files():
    for root in ROOTS:
        base = REPO / root
        for path in sorted(base.rglob("*")):
            rel = path.relative_to(REPO).as_posix()
            if rel.startswith("R/src/core") or path.suffix not in SUFFIXES or not path.is_file():
                continue
            text = path.read_text(errors="replace")
            if is_generated(text):
                continue
            # sporf.h: the parameter block between its markers is generated
            text = re.sub(r"SPORF_PARAMS_BEGIN.*?SPORF_PARAMS_END", " ", text, flags=re.S)
            yield rel, strip_comments(text, path.suffix)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--limit", type=int, default=4)
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args(argv[1:])
    spec = tomllib.loads((REPO / "spec" / "params.toml").read_text())
    names = [p["name"] for p in spec["param"]]
    files = list(hand_written_files())
    over = []
    for name in names:
        word = re.compile(r"\b%s\b" % re.escape(name))
        hits = [rel for rel, text in files if word.search(text)]
        shared = name in SHARED_WORDS
        limit = max(args.limit, CEILINGS.get(name, 0))
        mark = "shared" if shared else ("OVER" if len(hits) > limit else
                                        "ceiling %d" % limit if name in CEILINGS else "ok")
        print("%-26s %2d  %s%s" % (name, len(hits), mark, ("  " + ", ".join(hits)) if args.verbose or mark == "OVER" else ""))
        if len(hits) > limit and not shared:
            over.append(name)
    if over:
        print("param mentions: %d parameter(s) named in more hand-written files than allowed (%d, or the "
              "ceiling in CEILINGS): %s" % (len(over), args.limit, ", ".join(over)))
        return 1
    print("param mentions: ok (at most %d hand-written files each; %d over it held at their ceilings; "
          "%d shared words reported, not enforced)" % (args.limit, len(CEILINGS), len(SHARED_WORDS)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
