"""Check a built documentation site (tools/build_docs.py).

    python tools/check_docs.py SITE_DIR

Fails (exit 1, naming each problem) when:
- a page links to a file of the site that does not exist (href and src
  attributes, fragments and queries ignored; external links are not fetched);
- a page loads a script or stylesheet from outside the site (a file:// path
  of the build machine, a CDN): every asset ships inside it;
- the Python API reference misses a public class or function, or the R
  reference misses an exported function;
- a gallery example that draws figures shows none;
- a headless Chromium screenshot of the landing page or of a gallery page is
  blank (Debian's chromium; the PNGs are kept in SITE_DIR/_screenshots).
"""
import html.parser
import pathlib
import re
import shutil
import subprocess
import sys
import urllib.parse

REPO = pathlib.Path(__file__).resolve().parent.parent
# build inputs, and the themes' static templates (not pages)
SKIP_DIRS = {"_python_src", "_r_pkg", "_doctrees", "_screenshots", "_static"}


class Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.links = []
        self.assets = []  # scripts' src and stylesheets' href

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for name in ("href", "src"):
            if attrs.get(name):
                self.links.append(attrs[name])
        if tag == "script" and attrs.get("src"):
            self.assets.append(attrs["src"])
        if tag == "link" and "stylesheet" in (attrs.get("rel") or "") and attrs.get("href"):
            self.assets.append(attrs["href"])


def pages(site):
    for path in site.rglob("*.html"):
        if not SKIP_DIRS & set(path.relative_to(site).parts):
            yield path


def parsed_pages(site):
    """Each page with its links and assets (Links)."""
    for page in pages(site):
        parser = Links()
        parser.feed(page.read_text(encoding="utf-8", errors="replace"))
        yield page, parser


def broken_links(site):
    problems = []
    for page, parser in parsed_pages(site):
        for link in parser.links:
            parts = urllib.parse.urlsplit(link)
            if parts.scheme or parts.netloc or link.startswith(("#", "mailto:", "javascript:", "data:")):
                continue
            target = (page.parent / urllib.parse.unquote(parts.path)).resolve()
            if parts.path.endswith("/"):
                target = target / "index.html"
            if not target.exists():
                problems.append("%s: broken link %s" % (page.relative_to(site), link))
    return problems


def missing_names(site):
    problems = []
    api = (site / "python" / "api.html").read_text(encoding="utf-8")
    import sporf
    import sporf.datasets
    import sporf.distributed

    names = [n for n in sporf.__all__ if n not in ("__version__", "metrics")]
    names += ["geodesic_precision_recall", "fit"]
    names += [n for n in dir(sporf.datasets) if n.startswith("make_") or n == "trunk_mean"]
    for name in names:
        if not re.search(r"\b%s\b" % re.escape(name), api):
            problems.append("python/api.html does not name %s" % name)
    ref = (site / "r" / "reference" / "index.html").read_text(encoding="utf-8")
    namespace = (REPO / "R" / "NAMESPACE").read_text(encoding="utf-8")
    exports = []
    for block in re.findall(r"^export\(([^)]*)\)", namespace, flags=re.M):
        exports += [e.strip() for e in block.split(",") if e.strip()]
    for name in exports:
        if not re.search(r"\b%s\b" % re.escape(name), ref):
            problems.append("r/reference/index.html does not name %s" % name)
    return problems


def missing_figures(site):
    problems = []
    for script in sorted((REPO / "vignettes" / "python").glob("*.py")):
        draws = "plt." in script.read_text(encoding="utf-8")
        page = site / "python" / "gallery" / ("plot_" + script.stem + ".html")
        if not page.exists():
            problems.append("the gallery has no page for %s" % script.name)
            continue
        if draws and not re.search(r'<img[^>]+src="[^"]*sphx_glr_plot_%s_\d+\.png"' % script.stem,
                                   page.read_text(encoding="utf-8")):
            problems.append("%s shows no figure" % page.relative_to(site))
    return problems


def blank_screenshots(site):
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        return ["no chromium to take screenshots with (Debian: apt-get install chromium)"]
    from PIL import Image, ImageStat

    shots = site / "_screenshots"
    shots.mkdir(exist_ok=True)
    problems = []
    for name, page in [("landing", site / "index.html"),
                       ("gallery", site / "python" / "gallery" / "plot_morf.html")]:
        png = shots / (name + ".png")
        if png.exists():
            png.unlink()
        subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                        "--window-size=1200,900", "--screenshot=%s" % png, page.as_uri()],
                       capture_output=True, timeout=120)
        if not png.exists():
            problems.append("chromium wrote no screenshot of %s" % page.relative_to(site))
            continue
        gray = Image.open(png).convert("L")
        stat = ImageStat.Stat(gray)
        hist = gray.histogram()
        dark = sum(hist[:200]) / (gray.width * gray.height)
        if stat.stddev[0] < 10 or dark < 0.01:
            problems.append("the screenshot of %s is blank (sd %.1f, %.2f%% dark pixels)"
                            % (page.relative_to(site), stat.stddev[0], 100 * dark))
    return problems


def outside_assets(site):
    problems = []
    for page, parser in parsed_pages(site):
        for asset in parser.assets:
            parts = urllib.parse.urlsplit(asset)
            if parts.scheme or parts.netloc:
                problems.append("%s: loads %s from outside the site" % (page.relative_to(site), asset))
    return problems


def machine_paths(site):
    """Pages that show the path of the machine that built them (the
    repository's absolute path, as a script's __file__ once put there): a
    reader's copy has its own."""
    here = str(REPO)
    return ["%s: shows the build machine's path %s" % (page.relative_to(site), here)
            for page in pages(site) if here in page.read_text(encoding="utf-8", errors="replace")]


def main():
    site = pathlib.Path(sys.argv[1]).resolve()
    problems = (broken_links(site) + outside_assets(site) + missing_names(site) + missing_figures(site) +
                blank_screenshots(site) + machine_paths(site))
    for p in problems:
        print("docs: " + p)
    n_pages = sum(1 for _ in pages(site))
    print("docs: %d pages checked, %d problem(s)" % (n_pages, len(problems)))
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
