import numpy as np
import pytest


@pytest.fixture
def trunk_small():
    from sporf.datasets import make_trunk

    return make_trunk(300, n_features=8, random_state=0)
