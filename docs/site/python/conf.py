"""Sphinx configuration of the Python half of sporf's documentation site.

tools/build_docs.py writes the generated sources next to this file (the
gallery's scripts, the benchmarks page) and runs sphinx-build; see the
README's "Documentation" section."""
import os
import warnings

# A warning an example prints shows on its page as "Category: message",
# without the file and line that raised it: the path of the machine that
# built the pages is no reader's (tools/check_docs.py refuses pages with it).
warnings.formatwarning = lambda message, category, filename, lineno, line=None: "%s: %s\n" % (
    category.__name__, message)

project = "sporf"
author = "sporf developers"
copyright = "2026, sporf developers"
extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
]
autosummary_generate = True
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
# Members our bases define (fit, predict, apply, save, proximity ...) show on
# each estimator's page; scikit-learn's BaseEstimator's (get_params ...) do not.
autodoc_default_options = {"members": True, "inherited-members": "BaseEstimator"}
html_theme = "pydata_sphinx_theme"
html_title = "sporf (Python)"
# The R half is linked from the landing and home pages (a navbar link would
# need a different relative path on every page).
html_theme_options = {"navbar_end": ["navbar-icon-links"]}
html_static_path = []
exclude_patterns = ["_build", "gallery_src/README.txt"]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
myst_heading_anchors = 3
# ref.ref / ref.term: methods inherited from scikit-learn's mixins (score,
# set_*_request) cite labels of scikit-learn's own site, which is not built
# here; tools/check_docs.py checks every link of the built pages instead.
suppress_warnings = ["myst.header", "ref.ref", "ref.term"]
sphinx_gallery_conf = {
    "examples_dirs": "gallery_src",
    "gallery_dirs": "gallery",
    "filename_pattern": r".*\.py$",
    "download_all_examples": False,
    "remove_config_comments": True,
    "plot_gallery": "True",
    "abort_on_example_error": True,
    "matplotlib_animations": False,
    # the timing pages load jQuery and DataTables from CDNs: the site ships
    # every asset it uses, so they are not written
    "write_computation_times": False,
}
os.environ.setdefault("MPLBACKEND", "Agg")
