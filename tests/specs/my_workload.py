# A stand-in custom workload: spec validation only checks that it exists.
def build(ctx):
    raise NotImplementedError("fixture for tests/unit/test_spec.c")
