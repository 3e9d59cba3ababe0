"""Starts a helper in a new session that closes every descriptor it could
inherit (so nothing ties it to the cell), then finishes normally. The helper
must not outlive the cell. With HOSTILE_HOLD set the worker then sleeps, so a
test can SIGKILL benchgen while the helper runs."""
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from common import inputs, record_pid  # noqa: E402,F401


def setup(cell, data):
    d = os.environ.get("HOSTILE_PIDS", "/tmp")
    helper = subprocess.Popen(
        [sys.executable, "-c",
         "import os,sys,time; st = open('/proc/self/stat').read().rsplit(')', 1)[1].split()[19]; "
         "open(os.path.join(sys.argv[1], 'helper.%d' % os.getpid()), 'w').write('%d %s' % (os.getpid(), st)); "
         "time.sleep(3600)", d],
        start_new_session=True, close_fds=True, stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={"PATH": "/usr/bin:/bin"})
    record_pid("new_session_worker")
    deadline = time.time() + 10
    while not any(n.startswith("helper.") for n in os.listdir(d)) and time.time() < deadline:
        time.sleep(0.01)
    del helper  # never waited for
    if os.environ.get("HOSTILE_HOLD"):
        time.sleep(3600)
    return lambda: None
