"""What the hook remembers between events of one session, and the spool of observations
Engram could not take yet. Plain JSON files under the state folder, one per session."""
import contextlib
import json
import os
import re
import time
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows: events of one session rarely overlap there; go unlocked
    fcntl = None

# Spooled observations past these are dropped oldest first (and said so in the log):
# a spool must not fill a disk while Engram is away for weeks.
SPOOL_MAX_FILES = 2000
SPOOL_SEND_PER_EVENT = 50
STALE_SESSION_SECONDS = 7 * 24 * 3600


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name)[:120] or "unknown"


def log(folder: Path, message: str) -> None:
    """The hook's only voice: stdout belongs to Claude Code and stderr can reach the user."""
    with contextlib.suppress(OSError):
        folder.mkdir(parents=True, exist_ok=True)
        with open(folder / "hook.log", "a", encoding="utf-8") as file:
            file.write(f"{time.strftime('%Y-%m-%dT%H:%M:%S')} {message}\n")


class Session:
    """A session's state, read and written under a lock (async hooks of one session may
    run at once)."""

    def __init__(self, folder: Path, session_id: str):
        self.path = folder / "sessions" / f"{_safe(session_id)}.json"
        self.data: dict = {}
        self._lock_file = None
        self._forgotten = False

    def __enter__(self):
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock_file = open(self.path.with_suffix(".lock"), "a")
        if fcntl is not None:
            fcntl.flock(self._lock_file, fcntl.LOCK_EX)
        try:
            loaded = json.loads(self.path.read_text(encoding="utf-8"))
            self.data = loaded if isinstance(loaded, dict) else {}
        except (OSError, ValueError):
            self.data = {}
        return self

    def __exit__(self, kind, error, trace):
        try:
            if error is None and not self._forgotten:
                temporary = self.path.with_suffix(".tmp")
                temporary.write_text(json.dumps(self.data), encoding="utf-8")
                os.replace(temporary, self.path)
        finally:
            self._lock_file.close()

    def forget(self) -> None:
        for path in (self.path, self.path.with_suffix(".lock")):
            with contextlib.suppress(OSError):
                path.unlink()
        self._forgotten = True


def prune_sessions(folder: Path, now: float) -> None:
    """Sessions that ended without a SessionEnd (a crash, a killed terminal) leave state."""
    with contextlib.suppress(OSError):
        for path in (folder / "sessions").iterdir():
            if now - path.stat().st_mtime > STALE_SESSION_SECONDS:
                path.unlink()


class Spool:
    def __init__(self, folder: Path):
        self.folder = folder / "spool"
        self.log_folder = folder

    def keep(self, payload: dict) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        name = f"{time.time_ns():020d}-{os.getpid()}.json"
        temporary = self.folder / (name + ".tmp")
        temporary.write_text(json.dumps(payload), encoding="utf-8")
        os.replace(temporary, self.folder / name)
        waiting = self.waiting()
        for path in waiting[:max(0, len(waiting) - SPOOL_MAX_FILES)]:
            with contextlib.suppress(OSError):
                path.unlink()
                log(self.log_folder, f"spool full: dropped {path.name}")

    def waiting(self) -> list[Path]:
        try:
            return sorted(self.folder.glob("*.json"))
        except OSError:
            return []

    def send(self, deliver, is_lasting_refusal) -> int:
        """Deliver what waits, oldest first, until Engram stops answering. Each file is
        claimed by a rename first, so two hooks flushing at once never send it twice."""
        sent = 0
        for path in self.waiting()[:SPOOL_SEND_PER_EVENT]:
            claimed = path.with_suffix(".sending")
            try:
                os.rename(path, claimed)
                payload = json.loads(claimed.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                with contextlib.suppress(OSError):
                    claimed.unlink()
                continue
            try:
                deliver(payload)
            except Exception as error:  # noqa: BLE001 - the hook must go on
                if is_lasting_refusal(error):
                    log(self.log_folder, f"spooled {path.name} refused, dropped: {error}")
                    claimed.unlink()
                    continue
                os.rename(claimed, path)
                break
            claimed.unlink()
            sent += 1
        return sent
