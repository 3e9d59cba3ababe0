"""Three bad keys in one declaration (dtype, dist, rank) and a bad second
input: each is reported on its own line."""


def inputs(cell):
    return [{"name": "x", "dtype": "float64", "shape": [1] * 9, "dist": "gauss", "low": 0.0, "high": 1.0},
            {"name": "y", "dtype": "int32", "shape": [2, 0], "low": 5, "high": 5}]


def setup(cell, data):
    return lambda: None
