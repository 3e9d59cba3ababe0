"""A custom workload named like a built-in model (bert) that forgets inputs():
it must be told so, never handed BERT's built-in inputs."""


def setup(cell, data):
    return lambda: None
