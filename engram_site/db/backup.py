"""Back up and restore Engram's database with PostgreSQL's own tools.

`dump` writes pg_dump's custom format; `restore` turns such a file back into the
database it came from, in place: in one transaction it drops every table, view,
sequence, function and type of the `public` schema that no extension owns, then runs
the dump's statements (pg_restore writes them, psql runs them). The `vector` extension
itself is kept, never dropped and re-created, so a restore needs no superuser and the
restored HNSW indexes are built on the very same `vector` type; when the extension is
missing, the dump's CREATE EXTENSION creates it. A failure rolls everything back.

Which programs: pg_dump refuses a server newer than itself and dumps any older one, so
the embedded package's pg_dump (PostgreSQL 18) serves the embedded server and any
DATABASE_URL server up to 18; for a newer server, the newest pg_dump on PATH or under
/usr/lib/postgresql that is recent enough. pg_restore and psql come from the same place.
"""

import glob
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from . import embedded


class BackupError(RuntimeError):
    """Backup or restore cannot go on; the message says why, in one sentence."""


@dataclass(frozen=True)
class Tools:
    bin_dir: Path
    major: int

    def __getitem__(self, program: str) -> str:
        return str(self.bin_dir / program)


def libpq_environment(params: dict) -> dict:
    """The connection Django uses (psycopg keyword params), as libpq's variables."""
    names = {"host": "PGHOST", "port": "PGPORT", "user": "PGUSER", "password": "PGPASSWORD",
             "dbname": "PGDATABASE", "sslmode": "PGSSLMODE", "sslrootcert": "PGSSLROOTCERT",
             "sslcert": "PGSSLCERT", "sslkey": "PGSSLKEY", "passfile": "PGPASSFILE",
             "service": "PGSERVICE", "target_session_attrs": "PGTARGETSESSIONATTRS"}
    env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
    for key, variable in names.items():
        if params.get(key) not in (None, ""):
            env[variable] = str(params[key])
    return env


def _major_of(pg_dump: str) -> int | None:
    try:
        out = subprocess.run([pg_dump, "--version"], capture_output=True, text=True,
                             timeout=30).stdout
    except OSError:
        return None
    found = re.search(r"(\d+)(?:\.\d+)?", out)
    return int(found.group(1)) if found else None


def server_major(env: dict, tools: Tools) -> int:
    out = _run([tools["psql"], "-X", "-A", "-t", "-c", "SHOW server_version_num"], env,
               "ask the server its version")
    return int(out.strip()) // 10000


def choose_tools(env: dict) -> Tools:
    """The embedded package's programs when they are as new as the server, else the
    newest recent enough installed on this machine."""
    own = Tools(embedded.bin_dir(), _major_of(str(embedded.bin_dir() / "pg_dump")) or 0)
    needed = server_major(env, own)  # psql talks to any version
    if own.major >= needed:
        return own
    candidates = [shutil.which("pg_dump"), *glob.glob("/usr/lib/postgresql/*/bin/pg_dump")]
    found = sorted(
        (major, Path(path).resolve().parent) for path in candidates if path
        for major in [_major_of(path)] if major and major >= needed)
    if not found:
        raise BackupError(
            f"the server runs PostgreSQL {needed}, newer than Engram's own pg_dump "
            f"({own.major}) and any pg_dump installed here: install PostgreSQL {needed}'s "
            "client programs (pg_dump, pg_restore, psql) and try again.")
    major, bin_dir = found[-1]
    return Tools(bin_dir, major)


def _run(command: list[str], env: dict, doing: str, **kwargs) -> str:
    try:
        done = subprocess.run(command, env=env, capture_output=True, text=True, **kwargs)
    except OSError as exc:
        raise BackupError(f"could not {doing} ({exc})") from None
    if done.returncode != 0:
        lines = [line for line in done.stderr.strip().splitlines() if line.strip()]
        reason = "; ".join(lines[:3]) or f"exit status {done.returncode}"
        raise BackupError(f"could not {doing}: {reason}")
    return done.stdout


def dump(params: dict, path: Path) -> Path:
    """Write the whole database to `path` in pg_dump's custom format."""
    env = libpq_environment(params)
    tools = choose_tools(env)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # a file where a folder must be, no permission, ...
        raise BackupError(f"cannot write into {path.parent}: {exc.strerror}") from None
    partial = path.with_name(path.name + ".partial")
    try:
        _run([tools["pg_dump"], "--format=custom", "--file", str(partial)], env,
             f"back up the database with {tools['pg_dump']}")
        partial.chmod(0o600)  # API key hashes, conversations: the owner's eyes only
        partial.replace(path)
    finally:
        partial.unlink(missing_ok=True)
    return path


# Every object of `public` that no extension owns, dropped in one statement each.
_DROP_OWN_OBJECTS = r"""
DO $engram$
DECLARE item record;
BEGIN
  FOR item IN
    SELECT c.oid::regclass::text AS name,
           CASE c.relkind WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW'
                          WHEN 'S' THEN 'SEQUENCE' WHEN 'f' THEN 'FOREIGN TABLE'
                          ELSE 'TABLE' END AS kind
    FROM pg_class c
    WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')
      AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass
                      AND d.objid = c.oid AND d.deptype = 'e')
      -- a serial's or identity's sequence goes with its table
      AND NOT (c.relkind = 'S' AND EXISTS (
            SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass
            AND d.objid = c.oid AND d.refclassid = 'pg_class'::regclass
            AND d.deptype IN ('a', 'i')))
    ORDER BY c.relkind = 'S'
  LOOP
    EXECUTE format('DROP %s IF EXISTS %s CASCADE', item.kind, item.name);
  END LOOP;
  FOR item IN
    SELECT p.oid::regprocedure::text AS name, p.prokind
    FROM pg_proc p
    WHERE p.pronamespace = 'public'::regnamespace
      AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass
                      AND d.objid = p.oid AND d.deptype = 'e')
  LOOP
    EXECUTE format('DROP %s IF EXISTS %s CASCADE',
                   CASE item.prokind WHEN 'p' THEN 'PROCEDURE' WHEN 'a' THEN 'AGGREGATE'
                                     ELSE 'FUNCTION' END, item.name);
  END LOOP;
  FOR item IN
    SELECT t.oid::regtype::text AS name
    FROM pg_type t
    WHERE t.typnamespace = 'public'::regnamespace AND t.typtype IN ('e', 'd', 'c', 'r')
      AND (t.typtype <> 'c' OR (SELECT relkind FROM pg_class WHERE oid = t.typrelid) = 'c')
      AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_type'::regclass
                      AND d.objid = t.oid AND d.deptype = 'e')
  LOOP
    EXECUTE format('DROP TYPE IF EXISTS %s CASCADE', item.name);
  END LOOP;
END
$engram$;
"""


def restore(params: dict, path: Path, *, lock_timeout_seconds: int = 10) -> None:
    """Replace the database's contents with the dump at `path`, all or nothing."""
    if not path.is_file():
        raise BackupError(f"there is no backup at {path}")
    env = libpq_environment(params)
    tools = choose_tools(env)
    listing = _run([tools["pg_restore"], "--list", str(path)], env,
                   f"read {path} as a backup (pg_dump's custom format)")
    # Keep the extensions the database has (dropping `vector` needs a superuser and
    # would drop its type from under every table): restore every entry but those.
    kept = [line for line in listing.splitlines()
            if not re.match(r"^\d+;\s+\d+\s+\d+\s+(EXTENSION|COMMENT - EXTENSION)\s", line)]
    has = _run([tools["psql"], "-X", "-A", "-t", "-c",
                "SELECT count(*) FROM pg_extension WHERE extname = 'vector'"], env,
               "look for the vector extension").strip()
    entries = kept if has == "1" else listing.splitlines()
    list_file = path.with_name(f".{path.name}.restore-list")
    try:
        list_file.write_text("\n".join(entries) + "\n")
        script = _run([tools["pg_restore"], "--no-owner", "--no-privileges",
                       "--use-list", str(list_file), "--file", "-", str(path)], env,
                      f"read {path}")
    finally:
        list_file.unlink(missing_ok=True)
    preamble = (f"SET lock_timeout = '{lock_timeout_seconds}s';\n" + _DROP_OWN_OBJECTS
                + "RESET lock_timeout;\n")
    try:
        _run([tools["psql"], "-X", "-q", "-v", "ON_ERROR_STOP=1", "--single-transaction",
              "-f", "-"], env, "restore the database", input=preamble + script)
    except BackupError as exc:
        if "lock timeout" in str(exc):
            raise BackupError(
                "could not restore: other connections are using the database; stop "
                "Engram (its web server and worker) and restore again") from None
        raise
