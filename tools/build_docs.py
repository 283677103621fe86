"""Build sporf's documentation site into one folder.

    python tools/build_docs.py OUT_DIR [--fast]

- OUT_DIR/index.html: the landing page (docs/site/index.html), linking both halves.
- OUT_DIR/python/: Sphinx with the PyData theme (docs/site/python). It holds
  the API reference from the numpydoc docstrings, a sphinx-gallery built from
  vignettes/python/ (run, figures included), the benchmarks page from
  BENCHMARKS.md and the news page from NEWS.md. Warnings are errors.
- OUT_DIR/r/: pkgdown, the Rd pages as the reference, vignettes/R/*.Rmd as
  articles and NEWS.md as its news page. It runs on a copy of the R package against the installed one
  (make r-install). Debian's pkgdown links its pages' styles and scripts to the
  build machine's /usr/share/javascript and to CDNs: they are copied into
  OUT_DIR/r/assets/ and the pages pointed at the copies (vendor_r_assets), so
  the site works opened from disk or published anywhere.

The vignettes are percent-format scripts with Markdown comment cells.
sphinx-gallery reads reStructuredText comment blocks, so each Markdown cell
is converted by pandoc. --fast sets SPORF_VIGNETTE_FAST=1 (the vignettes'
small sizes): `make docs-fast`, which `make test` runs, then checks the site
with tools/check_docs.py.
"""
import argparse
import os
import pathlib
import re
import shutil
import subprocess
import sys
import time

REPO = pathlib.Path(__file__).resolve().parent.parent
SITE = REPO / "docs" / "site"
sys.path.insert(0, str(REPO / "tools"))
from render_vignettes import markdown_text, split_cells  # noqa: E402  (one reader of the vignettes)


def pandoc_rst(markdown):
    out = subprocess.run(["pandoc", "-f", "markdown", "-t", "rst", "--wrap=preserve"], input=markdown,
                         capture_output=True, text=True, check=True)
    return out.stdout.rstrip("\n")


def gallery_script(path):
    """A vignette as a sphinx-gallery example: the first Markdown cell is
    the docstring (its title the example's), later ones comment blocks."""
    cells = split_cells(path.read_text(encoding="utf-8"))
    out = []
    for i, (kind, source) in enumerate(cells):
        if kind == "markdown":
            rst = pandoc_rst(markdown_text(source))
            if i == 0:
                out.append('"""\n' + rst.replace('"""', "'''") + '\n"""')
            else:
                out.append("# %%\n" + "\n".join(("# " + line).rstrip() for line in rst.splitlines()))
        else:
            if i == 0:
                out.append('"""\n%s\n%s\n"""' % (path.stem, "=" * len(path.stem)))
            # the vignette finds its data through SPORF_VIGNETTES (set below), so the
            # page shows its code as written, with no path of the machine that built it
            out.append("# %%\n" + source)
    return "\n\n".join(out) + "\n"


def copy_benchmarks(src):
    """The benchmarks page: BENCHMARKS.md with the figures it shows, the
    scripts' README and the experiment records it links to, as pages of the
    site (reached from the page, not from the site's menu)."""
    bench = src / "benchmarks"
    shutil.copytree(REPO / "benchmarks" / "figures", bench / "figures")
    shutil.copytree(REPO / "benchmarks" / "notes", bench / "notes")
    shutil.copy(REPO / "benchmarks" / "README.md", bench / "README.md")
    pages = ["benchmarks/README"] + ["benchmarks/notes/" + p.stem for p in sorted((bench / "notes").glob("*.md"))]
    for path in (bench / "notes").glob("*.md"):  # the records link back to the page by its repository path
        path.write_text(path.read_text(encoding="utf-8").replace("../../BENCHMARKS.md", "../../benchmarks.md"),
                        encoding="utf-8")
    page = (REPO / "BENCHMARKS.md").read_text(encoding="utf-8")
    page += "\n```{toctree}\n:hidden:\n\n" + "\n".join(pages) + "\n```\n"
    (src / "benchmarks.md").write_text(page, encoding="utf-8")


def build_python(out, fast):
    src = out / "_python_src"
    if src.exists():
        shutil.rmtree(src)
    shutil.copytree(SITE / "python", src)
    gallery = src / "gallery_src"
    gallery.mkdir()
    (gallery / "README.txt").write_text(
        "Gallery\n=======\n\nThe vignettes: the papers' results rerun as worked examples (their R twins are "
        "the R site's articles).\n", encoding="utf-8")
    for path in sorted((REPO / "vignettes" / "python").glob("*.py")):
        (gallery / ("plot_" + path.name)).write_text(gallery_script(path), encoding="utf-8")
    copy_benchmarks(src)
    shutil.copy(REPO / "NEWS.md", src / "news.md")
    env = dict(os.environ, MPLBACKEND="Agg")
    env["SPORF_VIGNETTES"] = str(REPO / "vignettes")  # where the gallery's scripts find their data
    if fast:
        env["SPORF_VIGNETTE_FAST"] = "1"
    html = out / "python"
    cmd = [sys.executable, "-m", "sphinx", "-b", "html", "-W", "--keep-going", "-q", "-d", str(out / "_doctrees"),
           str(src), str(html)]
    subprocess.run(cmd, check=True, env=env, cwd=src)


PKGDOWN = r"""
args <- commandArgs(TRUE)
options(repos = NULL, pkgdown.internet = FALSE) # nothing is fetched: no CRAN lookups
# pkgdown's own warnings (a topic missing from the index, a bad link) are
# errors, as Sphinx's are; warnings inside an article's code stay its output.
withCallingHandlers(
  pkgdown::build_site(args[1], override = list(destination = args[2]), preview = FALSE,
                      install = FALSE, new_process = FALSE),
  warning = function(w) stop("pkgdown warned: ", conditionMessage(w), call. = FALSE))
"""


def build_r(out, fast):
    pkg = out / "_r_pkg"
    if pkg.exists():
        shutil.rmtree(pkg)
    # a copy with the core's sources as real files (R/src/core is a link)
    shutil.copytree(REPO / "R", pkg, symlinks=False, ignore=shutil.ignore_patterns("*.o", "*.so"))
    vig = pkg / "vignettes"
    vig.mkdir(exist_ok=True)
    for path in sorted((REPO / "vignettes" / "R").glob("*.Rmd")):
        shutil.copy(path, vig / path.name)
    shutil.copy(SITE / "r" / "_pkgdown.yml", pkg / "_pkgdown.yml")
    shutil.copy(REPO / "NEWS.md", pkg / "NEWS.md")  # pkgdown's news page
    env = dict(os.environ)
    lib = env.get("SPORF_R_LIB", str(REPO / ".rlib"))
    env["R_LIBS"] = lib + (os.pathsep + env["R_LIBS"] if env.get("R_LIBS") else "")
    env["SPORF_VIGNETTES"] = str(REPO / "vignettes")  # where the articles find their data
    # Some examples' packages (caret's) ask R for the time zone, which warns where the
    # system cannot tell (a container without systemd), and a warning fails the build:
    # give it one when none is set (no page shows a time).
    env.setdefault("TZ", "UTC")
    if fast:
        env["SPORF_VIGNETTE_FAST"] = "1"
    script = out / "_pkgdown.R"
    script.write_text(PKGDOWN, encoding="utf-8")
    subprocess.run(["Rscript", str(script), str(pkg), str(out / "r")], check=True, env=env)
    print("docs: the R pages' styles and scripts copied into r/assets (%d pages)" % vendor_r_assets(out / "r"))


# What Debian's pkgdown links, and where its copy comes from. Scripts with no
# Debian package get a stand-in: the copy buttons (clipboard.js) and the
# navbar that hides on scrolling (headroom.js) are left out. The pages have no
# mathematics (the Rd files write formulas as text), so MathJax is dropped.
JS = pathlib.Path("/usr/share/javascript")
R_ASSETS = {
    "jquery.min.js": JS / "jquery" / "jquery.min.js",
    "bootstrap.min.css": JS / "bootstrap" / "css" / "bootstrap.min.css",
    "bootstrap.min.js": JS / "bootstrap" / "js" / "bootstrap.min.js",
}
R_STAND_INS = {
    "clipboard-off.js": "/* clipboard.js is not shipped: no copy buttons */\n"
                        "window.ClipboardJS = {isSupported: function () { return false; }};\n",
    "headroom-off.js": "/* headroom.js is not shipped: the navbar stays put */\n"
                       "if (window.jQuery) { jQuery.fn.headroom = function () { return this; }; }\n",
}
ASSET_TAG = re.compile(r'<(script|link)\b[^>]*?(?:src|href)="(file://[^"]*|https?://[^"]*)"[^>]*>(?:</script>)?')


def _r_asset_for(url):
    """The local file standing in for a linked script or stylesheet, or None to drop the tag."""
    name = url.rsplit("/", 1)[-1]
    if name in R_ASSETS:
        return name
    if "clipboard" in url:
        return "clipboard-off.js"
    if "jQuery.headroom" in url:
        return "headroom-off.js"
    return None  # headroom.min.js (the stand-in covers both), MathJax, Font Awesome (no icons used), respond.js


def vendor_r_assets(site):
    """Copy the R site's styles and scripts into site/assets and point every
    page at them; drop what the pages do not need. Returns the pages changed."""
    assets = site / "assets"
    assets.mkdir(exist_ok=True)
    for name, source in R_ASSETS.items():
        shutil.copy(source, assets / name)
    fonts = JS / "bootstrap" / "fonts"  # bootstrap.min.css reads ../fonts/ (glyphicons)
    if fonts.is_dir():
        shutil.copytree(fonts, site / "fonts", dirs_exist_ok=True)
    for name, text in R_STAND_INS.items():
        (assets / name).write_text(text, encoding="utf-8")
    changed = 0
    for page in site.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        up = "../" * (len(page.relative_to(site).parts) - 1)
        seen = set()

        def local(m):
            kind, url = m.group(1), m.group(2)
            if kind == "link" and "stylesheet" not in m.group(0):
                return m.group(0)  # a link to another page, not an asset
            name = _r_asset_for(url)
            if name is None or name in seen:
                return ""
            seen.add(name)
            if kind == "link":
                return '<link rel="stylesheet" href="%sassets/%s">' % (up, name)
            return '<script src="%sassets/%s"></script>' % (up, name)

        new = ASSET_TAG.sub(local, html)
        new = re.sub(r"<!--\[if lt IE 9\]>.*?<!\[endif\]-->", "", new, flags=re.S)
        if new != html:
            page.write_text(new, encoding="utf-8")
            changed += 1
    return changed


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--fast", action="store_true")
    ap.add_argument("--only", choices=["python", "r"])
    args = ap.parse_args()
    out = pathlib.Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    shutil.copy(SITE / "index.html", out / "index.html")
    if args.only in (None, "python"):
        build_python(out, args.fast)
        print("docs: python half in %.0f s" % (time.time() - t0))
    if args.only in (None, "r"):
        t1 = time.time()
        build_r(out, args.fast)
        print("docs: R half in %.0f s" % (time.time() - t1))
    print("docs: %s/index.html" % out)


if __name__ == "__main__":
    main()
