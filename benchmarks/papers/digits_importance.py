"""Pixel importance on scikit-learn's digits (8 x 8): RF vs SPORF vs MORF, as
in the MORF papers' MNIST figure. Writes docs/digits_importance.png and prints
each map's roughness (mean absolute difference between 4-neighbour pixels,
divided by the map's mean: lower is smoother). Needs matplotlib.

    python benchmarks/papers/digits_importance.py
"""
import pathlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from sklearn.datasets import load_digits  # noqa: E402
from sklearn.ensemble import RandomForestClassifier  # noqa: E402

import sporf  # noqa: E402

OUT = pathlib.Path(__file__).resolve().parents[2] / "docs" / "digits_importance.png"


def roughness(m):
    d = np.abs(np.diff(m, axis=0)).mean() + np.abs(np.diff(m, axis=1)).mean()
    return float(d / 2 / m.mean())


def main():
    X, y = load_digits(return_X_y=True)
    maps = {
        "RF (scikit-learn)": RandomForestClassifier(n_estimators=300, random_state=0, n_jobs=2)
        .fit(X, y).feature_importances_.reshape(8, 8),
        "SPORF": sporf.SPORFClassifier(n_estimators=300, random_state=0, n_jobs=2)
        .fit(X, y).feature_importances_.reshape(8, 8),
    }
    morf = sporf.MORFClassifier(n_estimators=300, data_dims=(8, 8), max_patch_dims=(3, 3), random_state=0,
                                n_jobs=2).fit(X, y)
    maps["MORF"] = morf.importance_map("impurity")
    maps["MORF (usage count)"] = morf.importance_map("usage")
    fig, axes = plt.subplots(1, 4, figsize=(13, 3.4))
    for ax, (name, m) in zip(axes, maps.items()):
        im = ax.imshow(m, cmap="viridis")
        ax.set_title("%s\nroughness %.2f" % (name, roughness(m)), fontsize=10)
        ax.set_xticks([])
        ax.set_yticks([])
        fig.colorbar(im, ax=ax, fraction=0.046)
    fig.suptitle("Pixel importance on digits (8x8), 300 trees")
    fig.tight_layout()
    OUT.parent.mkdir(exist_ok=True)
    fig.savefig(OUT, dpi=90)
    for name, m in maps.items():
        print("%-20s roughness %.3f" % (name, roughness(m)))
    print("wrote", OUT)


if __name__ == "__main__":
    main()
