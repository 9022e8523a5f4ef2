"""The hook runs on every prompt: it must not import Django or anything beyond the
standard library (which also lets it run from a plugin with any python3)."""
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_agent_side_clients_import_only_the_standard_library():
    probe = ("import json, sys; import engram_client.hook, engram_client.cli; "
             "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))")
    loaded = json.loads(subprocess.run([sys.executable, "-c", probe], cwd=ROOT, check=True,
                                       capture_output=True, text=True).stdout)
    outside = [name for name in loaded if name not in sys.stdlib_module_names
               and name not in ("engram_client", "__main__")
               and not name.startswith(("__editable__", "_distutils_hack"))]  # pip's own
    assert outside == []
