"""The plugin runs `bin/engram-hook` with the `python3` on PATH, which may be older than
the hook needs (macOS's own is 3.9, where the hook cannot be imported). It then exits 0
with no output, touching nothing, and says why on stderr, instead of a traceback and
exit 1 at every event."""
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Runs the script as `python3 bin/engram-hook` would, in an interpreter that reports 3.9.
AS_PYTHON_3_9 = ("import runpy, sys; sys.version_info = (3, 9, 18, 'final', 0); "
                 "runpy.run_path(sys.argv[1], run_name='__main__')")


def test_under_python_3_9_the_hook_exits_0_silently_and_does_nothing(
        hook_event, checkout, closed_url, tmp_path):
    state = tmp_path / "state"
    result = subprocess.run(
        [sys.executable, "-c", AS_PYTHON_3_9, str(ROOT / "bin" / "engram-hook")],
        input=json.dumps(hook_event("session_start", cwd=str(checkout))).encode(),
        capture_output=True, timeout=30, check=False,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path / "home"),
             "ENGRAM_URL": closed_url, "ENGRAM_STATE_DIR": str(state),
             "ENGRAM_CONFIG": str(tmp_path / "no-config.json")})
    assert (result.returncode, result.stdout) == (0, b"")
    assert b"needs Python 3.10 or newer" in result.stderr
    assert not state.exists()  # no session was started, nothing was spooled
