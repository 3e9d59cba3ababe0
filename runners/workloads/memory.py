"""The worker process's own memory at the phases of a built-in cell, as
facts: what a run at a smaller batch needs to estimate the memory of a
larger one (docs/GPU.md, "Published-size rehearsal on CPU").

  memory.rss_after_setup       resident bytes when setup() returned: the
                               model, its inputs, the framework (no step yet)
  memory.rss_after_first_step  resident bytes after the first step (the
                               first warm-up step): adds what a step keeps,
                               such as optimizer state and compiled code
  memory.rss_peak              the process's highest resident bytes (VmHWM)

The cell's own peak (`peak_rss`, the cgroup's) also counts page cache and
any child process; these are the worker process alone, from
/proc/self/status. Where that file is missing (not Linux) nothing is
recorded. Reading it costs about 20 microseconds, once after setup and
once after the first step (a warm-up step, unless the cell has none);
every later step pays one comparison.
"""

_marks = {}


def _status():
    """{VmRSS, VmHWM} in bytes, or {} where /proc/self/status is missing."""
    out = {}
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as f:
            for line in f:
                key, _, rest = line.partition(":")
                if key in ("VmRSS", "VmHWM"):
                    parts = rest.split()
                    if len(parts) == 2 and parts[1] == "kB" and parts[0].isdigit():
                        out[key] = int(parts[0]) * 1024
    except OSError:
        pass
    return out


def after_setup(step):
    """Records the resident memory now (setup is done) and returns step,
    wrapped so that its first call records the resident memory after it."""
    _marks.clear()
    rss = _status().get("VmRSS")
    if rss is not None:
        _marks["rss_after_setup"] = rss
    calls = [0]

    def first_noted():
        r = step()
        if calls[0] == 0:
            calls[0] = 1
            rss = _status().get("VmRSS")
            if rss is not None:
                _marks["rss_after_first_step"] = rss
        return r
    return first_noted


def facts():
    out = {f"memory.{k}": v for k, v in _marks.items()}
    hwm = _status().get("VmHWM")
    if hwm is not None:
        out["memory.rss_peak"] = hwm
    return out
