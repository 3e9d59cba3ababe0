"""mean and std belong to dist 'normal' alone, and are not mixed with low
and high; std is not negative. One message each."""


def inputs(cell):
    return [
        {"name": "u", "dtype": "float32", "shape": [cell.batch, 4], "mean": 0.0, "low": 0.0, "high": 1.0},
        {"name": "m", "dtype": "float32", "shape": [cell.batch, 4], "dist": "normal", "mean": 0.0, "high": 1.0},
        {"name": "s", "dtype": "float32", "shape": [cell.batch, 4], "dist": "normal", "mean": 0.0, "std": -1.0},
    ]


def setup(cell, data):
    return lambda: None
