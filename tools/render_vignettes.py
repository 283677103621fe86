"""Render the vignettes (vignettes/README.md) into a folder of Markdown,
HTML and PNG figures.

    python tools/render_vignettes.py OUT_DIR [--fast] [--only NAME ...]

Python vignettes (vignettes/python/*.py) are percent-format scripts:
``# %% [markdown]`` cells of commented Markdown and ``# %%`` code cells. Each
code cell runs in one namespace per document; what it prints is shown under
it, and every matplotlib figure it leaves open is saved as a PNG and shown.
R vignettes (vignettes/R/*.Rmd) are rendered by rmarkdown (knitr + pandoc)
to GitHub Markdown with PNG figures. Every Markdown page is also converted
to standalone HTML by pandoc.

``--fast`` sets SPORF_VIGNETTE_FAST=1: the documents use small sizes, so CI
renders all of them in about a minute (a broken vignette fails CI); the
figures then show the code works, not the papers' effects.
"""
import argparse
import contextlib
import io
import os
import pathlib
import re
import shutil
import subprocess
import sys
import time
import traceback

REPO = pathlib.Path(__file__).resolve().parent.parent
VIGNETTES = REPO / "vignettes"


def split_cells(text):
    """[(kind, source)] with kind "markdown" or "code"."""
    cells, kind, lines = [], None, []
    for line in text.splitlines():
        m = re.match(r"^# %%( \[markdown\])?\s*$", line)
        if m:
            if kind is not None:
                cells.append((kind, "\n".join(lines).strip("\n")))
            kind, lines = ("markdown" if m.group(1) else "code"), []
        elif kind is not None:
            lines.append(line)
    if kind is not None:
        cells.append((kind, "\n".join(lines).strip("\n")))
    return [(k, s) for k, s in cells if s.strip()]


def markdown_text(source):
    return "\n".join(re.sub(r"^# ?", "", line) for line in source.splitlines())


def render_python(path, out_dir):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    name = path.stem
    parts = []
    namespace = {"__name__": "__vignette__", "__file__": str(path)}
    n_fig = 0
    cwd = os.getcwd()
    os.chdir(out_dir)  # files a vignette writes land next to its page
    try:
        for kind, source in split_cells(path.read_text()):
            if kind == "markdown":
                parts.append(markdown_text(source))
                continue
            parts.append("```python\n%s\n```" % source)
            buf = io.StringIO()
            try:
                with contextlib.redirect_stdout(buf):
                    exec(compile(source, str(path), "exec"), namespace)
            except Exception:
                sys.stderr.write(buf.getvalue())
                raise RuntimeError("vignette %s failed in the cell:\n%s\n%s"
                                   % (path.name, source, traceback.format_exc()))
            printed = buf.getvalue().rstrip()
            if printed.strip():
                # a printed Markdown table is shown as a table
                table = all(line.startswith("|") for line in printed.splitlines())
                parts.append(printed if table else "```\n%s\n```" % printed)
            for num in plt.get_fignums():
                n_fig += 1
                png = "%s-%d.png" % (name, n_fig)
                plt.figure(num).savefig(png, dpi=110, bbox_inches="tight")
                parts.append("![](%s)" % png)
            plt.close("all")
    finally:
        os.chdir(cwd)
    md = out_dir / (name + ".md")
    md.write_text("\n\n".join(parts) + "\n")
    return md


def render_r(path, out_dir, env):
    if env.get("SPORF_R_LIB"):  # the project's library (make test installs the package there)
        env["R_LIBS"] = env["SPORF_R_LIB"]
    env["SPORF_VIGNETTES"] = str(VIGNETTES)  # the documents' data folder
    # Knit a copy in the output folder, so the figures land next to the page.
    copy = out_dir / path.name
    shutil.copy(path, copy)
    expr = ("rmarkdown::render(%r, output_format = rmarkdown::md_document(variant = 'gfm'), "
            "quiet = TRUE, envir = new.env())" % str(copy))
    try:
        subprocess.run(["Rscript", "-e", expr], check=True, env=env, cwd=out_dir)
    finally:
        copy.unlink()
    return out_dir / (path.stem + ".md")


def to_html(md):
    title = md.stem.replace("_", " ").replace("-", " ")
    subprocess.run(["pandoc", "--standalone", "--metadata", "title=" + title, "-f", "gfm", "-t", "html5",
                    "-o", str(md.with_suffix(".html")), str(md)], check=True, cwd=md.parent)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out_dir")
    ap.add_argument("--fast", action="store_true")
    ap.add_argument("--only", nargs="*", default=None, help="document names (file stems) to render")
    args = ap.parse_args()
    if args.fast:
        os.environ["SPORF_VIGNETTE_FAST"] = "1"
    os.environ.setdefault("SPORF_PYTHON", sys.executable)  # the R documents call back into this Python
    out = pathlib.Path(args.out_dir).resolve()
    docs = sorted((VIGNETTES / "python").glob("*.py")) + sorted((VIGNETTES / "R").glob("*.Rmd"))
    if args.only:
        docs = [d for d in docs if d.stem in args.only]
    for doc in docs:
        lang = "python" if doc.suffix == ".py" else "R"
        target = out / lang
        target.mkdir(parents=True, exist_ok=True)
        start = time.perf_counter()
        md = render_python(doc, target) if lang == "python" else render_r(doc, target, dict(os.environ))
        to_html(md)
        print("vignettes: %s/%s (%.1f s)" % (lang, md.name, time.perf_counter() - start), flush=True)
    shutil.copy(VIGNETTES / "README.md", out / "README.md")
    print("vignettes: %d documents in %s" % (len(docs), out))


if __name__ == "__main__":
    main()
