import os

import numpy as np
import pytest

# The process environment before any test module embeds R: rpy2 sets
# LD_LIBRARY_PATH to R's library paths (Debian's /usr/lib/x86_64-linux-gnu
# included), and a Python subprocess started with it -- a Dask worker -- would
# load the system libpython instead of its own. Tests that start Python
# subprocesses restore it (see clean_subprocess_env).
_ENV_BEFORE_R = {k: os.environ.get(k) for k in ("LD_LIBRARY_PATH",)}


@pytest.fixture(scope="module")
def clean_subprocess_env():
    """The environment as it was before R was embedded, while the test runs."""
    saved = {k: os.environ.get(k) for k in _ENV_BEFORE_R}

    def put(values):
        for k, v in values.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v

    put(_ENV_BEFORE_R)
    yield
    put(saved)


@pytest.fixture
def trunk_small():
    from sporf.datasets import make_trunk

    return make_trunk(300, n_features=8, random_state=0)
