"""What the hook remembers between events of one session, and the spool of observations
Engram could not take yet. Plain JSON files under the state folder, one per session."""
import contextlib
import json
import os
import re
import time

try:
    import fcntl
except ImportError:  # Windows: events of one session rarely overlap there; go unlocked
    fcntl = None

# Spooled observations past these are dropped oldest first (and said so in the log):
# a spool must not fill a disk while Engram is away for weeks.
SPOOL_MAX_FILES = 2000
# Entries Engram refused for their project, set aside for a person to read: enough to see
# what and why, and a key refused at every event cannot fill a disk either.
REFUSED_MAX_FILES = 200
SPOOL_SEND_PER_EVENT = 50
LOG_MAX_BYTES = 1_000_000  # hook.log, then one older hook.log.1
STALE_SESSION_SECONDS = 7 * 24 * 3600
# A spool entry claimed for sending this long ago belongs to a hook that died sending it
# (every hook stops within hook.EVENT_SECONDS, 600 s): it waits again. Were it sent after
# all, Engram keeps an observation once (the hash of its payload).
STALE_CLAIM_SECONDS = 1_800
# What becomes of a spooled entry Engram did not take (Spool.send).
ASIDE, STOP = "aside", "stop"


class Undelivered(Exception):
    """What Spool.send's `deliver` raises: Engram did not take an entry, or took only part
    of it; `left` is what it has not taken, which waits in the spool again."""

    def __init__(self, cause: Exception, left: list[dict]):
        super().__init__(str(cause))
        self.cause = cause
        self.left = left


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name)[:120] or "unknown"


def _write_json(path: str, data) -> None:
    """Whole or not at all: a reader never sees half a file, and a failed write (a full
    disk) leaves no temporary file behind."""
    temporary = path + ".tmp"
    try:
        with open(temporary, "w", encoding="utf-8") as file:
            json.dump(data, file)
        os.replace(temporary, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def log(folder: str, message: str) -> None:
    """The hook's only voice: stdout belongs to Claude Code and stderr can reach the user.
    Past LOG_MAX_BYTES the log becomes hook.log.1 (the one before it goes): a hook that
    says something at every event for months must not fill a disk either."""
    with contextlib.suppress(OSError):
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, "hook.log")
        with contextlib.suppress(FileNotFoundError):
            if os.path.getsize(path) >= LOG_MAX_BYTES:
                os.replace(path, path + ".1")
        with open(path, "a", encoding="utf-8") as file:
            file.write(f"{time.strftime('%Y-%m-%dT%H:%M:%S')} {message}\n")


class Session:
    """A session's state, read and written under a lock (async hooks of one session may
    run at once)."""

    def __init__(self, folder: str, session_id: str):
        self.folder = os.path.join(folder, "sessions")
        self.path = os.path.join(self.folder, f"{_safe(session_id)}.json")
        self.data: dict = {}
        self._lock_file = None
        self._forgotten = False

    def __enter__(self):
        os.makedirs(self.folder, exist_ok=True)
        self._lock_file = open(self.path[:-len(".json")] + ".lock", "a")
        if fcntl is not None:
            fcntl.flock(self._lock_file, fcntl.LOCK_EX)
        try:
            with open(self.path, encoding="utf-8") as file:
                loaded = json.load(file)
            self.data = loaded if isinstance(loaded, dict) else {}
        except (OSError, ValueError):
            self.data = {}
        return self

    def __exit__(self, kind, error, trace):
        try:
            if error is None and not self._forgotten:
                _write_json(self.path, self.data)
        finally:
            self._lock_file.close()

    def forget(self) -> None:
        for path in (self.path, self.path[:-len(".json")] + ".lock"):
            with contextlib.suppress(OSError):
                os.unlink(path)
        self._forgotten = True


def prune_sessions(folder: str, now: float) -> None:
    """Sessions that ended without a SessionEnd (a crash, a killed terminal) leave state."""
    sessions = os.path.join(folder, "sessions")
    with contextlib.suppress(OSError):
        for name in os.listdir(sessions):
            path = os.path.join(sessions, name)
            if now - os.stat(path).st_mtime > STALE_SESSION_SECONDS:
                os.unlink(path)


class Spool:
    def __init__(self, folder: str):
        self.folder = os.path.join(folder, "spool")
        self.refused_folder = os.path.join(self.folder, "refused")
        self.log_folder = folder

    def keep(self, *payloads: dict) -> list[str]:
        """Put `payloads` in the spool, in their order, and say where. All or none: when one
        cannot be written, those written are taken back and the OSError raised, so a caller
        may read them again without sending any twice."""
        if not payloads:
            return []
        os.makedirs(self.folder, exist_ok=True)
        # numbered under one time: a coarse clock (Windows) may give two writes the same
        stem, paths = f"{self.folder}{os.sep}{time.time_ns():020d}-{os.getpid()}", []
        try:
            for number, payload in enumerate(payloads):
                paths.append(f"{stem}-{number:03d}.json")
                _write_json(paths[-1], payload)
        except OSError:
            for path in paths:
                with contextlib.suppress(OSError):
                    os.unlink(path)
            raise
        self._drop_oldest(self.waiting(), SPOOL_MAX_FILES, "spool")
        return paths

    def _drop_oldest(self, paths: list[str], limit: int, what: str) -> None:
        for path in paths[:max(0, len(paths) - limit)]:
            with contextlib.suppress(OSError):
                os.unlink(path)
                log(self.log_folder, f"{what} full: dropped {os.path.basename(path)}")

    def waiting(self) -> list[str]:
        try:
            names = os.listdir(self.folder)
        except OSError:
            return []
        names += self._reclaim([name for name in names if name.endswith(".json.sending")])
        return [os.path.join(self.folder, name)
                for name in sorted(name for name in names if name.endswith(".json"))]

    def refused(self) -> list[str]:
        """The entries set aside, oldest first."""
        try:
            names = os.listdir(self.refused_folder)
        except OSError:
            return []
        return [os.path.join(self.refused_folder, name)
                for name in sorted(name for name in names if name.endswith(".json"))]

    def _reclaim(self, claimed: list[str]) -> list[str]:
        """Put back the entries whose sender died holding them (STALE_CLAIM_SECONDS); the
        names they wait under again."""
        now, back = time.time(), []
        for name in claimed:
            path = os.path.join(self.folder, name)
            with contextlib.suppress(OSError):  # sent, or reclaimed by another hook, meanwhile
                if now - os.stat(path).st_mtime > STALE_CLAIM_SECONDS:
                    os.rename(path, path.removesuffix(".sending"))
                    back.append(name.removesuffix(".sending"))
                    log(self.log_folder, f"spooled {name} was left half-sent: it waits again")
        return back

    def send(self, deliver, fate, paths: list[str] | None = None) -> int:
        """Deliver what waits, oldest first, or only `paths` of it (those another hook has
        not sent meanwhile). Each file is claimed by a rename first, so two hooks flushing
        at once never send it twice. `deliver` raises Undelivered with what Engram has not
        taken; `fate(cause)` says what comes next: ASIDE (refused for what it holds, a
        project the key may not write, so refused again at every event: it is set aside,
        and the next may pass), STOP (Engram cannot take any now: down, busy, the key or
        the address wrong; it waits)."""
        sent = 0
        for path in self.waiting()[:SPOOL_SEND_PER_EVENT] if paths is None else paths:
            claimed = path + ".sending"
            try:
                os.rename(path, claimed)
            except OSError:  # sent, or being sent, by another hook: its claim is its own
                continue
            try:
                os.utime(claimed)  # when it was claimed, for _reclaim
                with open(claimed, encoding="utf-8") as file:
                    payload = json.load(file)
            except (OSError, ValueError) as error:
                with contextlib.suppress(OSError):
                    os.unlink(claimed)
                    log(self.log_folder, f"spooled {os.path.basename(path)} unreadable, "
                                         f"dropped: {error}")
                continue
            try:
                deliver(payload)
            except Undelivered as undelivered:
                then = fate(undelivered.cause)
                # the claim may be gone (reclaimed by another hook): the hook goes on
                with contextlib.suppress(OSError):
                    if then == ASIDE:
                        self._set_aside(claimed, path, payload, undelivered)
                    else:
                        self._move_left(claimed, path, payload, undelivered.left)
                if then == STOP:
                    break
                continue
            with contextlib.suppress(OSError):
                os.unlink(claimed)
            sent += 1
        return sent

    def _move_left(self, claimed: str, path: str, payload: dict, left: list[dict]) -> None:
        """What of a claimed entry Engram has not taken goes to `path` (the entry's place
        in the order, or refused/): the entry itself, or the parts left of it."""
        if left == [payload]:
            os.rename(claimed, path)
            return
        # "-000" sorts before the entry's own ".json", and the parts in their order
        for number, part in enumerate(left):
            _write_json(f"{path.removesuffix('.json')}-{number:03d}.json", part)
        os.unlink(claimed)

    def _set_aside(self, claimed: str, path: str, payload: dict,
                   undelivered: Undelivered) -> None:
        """Keep a refused entry (what of it Engram has not taken) in refused/, as it was:
        moved back into the spool, it is sent again."""
        os.makedirs(self.refused_folder, exist_ok=True)
        name = os.path.basename(path)
        self._move_left(claimed, os.path.join(self.refused_folder, name), payload,
                         undelivered.left)
        refused = self.refused()
        log(self.log_folder, f"spooled {name} refused, set aside in spool/refused/ "
                             f"({min(len(refused), REFUSED_MAX_FILES)} there), not sent "
                             f"again: {undelivered.cause}")
        self._drop_oldest(refused, REFUSED_MAX_FILES, "refused spool")
