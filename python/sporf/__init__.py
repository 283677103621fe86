"""sporf: sparse oblique randomer forests with one C99 core for Python and R.

Estimators follow scikit-learn's API; models are portable between Python and
R through :meth:`SPORFClassifier.save` / :func:`load`. Forests grown in
shards (``first_tree``) join with :func:`merge_forests`;
:mod:`sporf.distributed` grows one on a Dask cluster.
"""
from ._forest import SPORFClassifier, SPORFRegressor
from ._inspect import ProjectionImportance
from ._isolation import MORFIsolation, SPORFIsolation
from ._load import load
from ._merge import merge_forests
from ._morf import MORFClassifier, MORFRegressor, MORFSurvival, plot_importance
from ._params import fraction
from ._survival import SPORFSurvival, concordance_index
from ._urerf import URerF
from . import metrics

__version__ = "0.1.0"
__all__ = ["SPORFClassifier", "SPORFRegressor", "SPORFSurvival", "concordance_index", "MORFClassifier", "MORFRegressor", "MORFSurvival", "URerF", "SPORFIsolation", "MORFIsolation", "ProjectionImportance",
           "fraction", "load", "merge_forests", "metrics", "plot_importance", "__version__"]
