"""The project a working directory belongs to, named by its git remote.

Two checkouts of one repository (a clone, a worktree) share memory; two repositories
never mix. Outside git, or with no remote, the folder's name stands in. Git's files are
read directly: spawning `git` would cost a hook more than all the rest of its start.
"""
import configparser
import re
from pathlib import Path

MAX_PROJECT = 200  # Engram's scope field length


def _git_dir(start: Path) -> tuple[Path, Path] | None:
    """(work tree top, the git directory holding `config`) for `start`, if inside git."""
    for folder in (start, *start.parents):
        dot_git = folder / ".git"
        if dot_git.is_dir():
            return folder, dot_git
        if dot_git.is_file():  # a worktree or submodule: "gitdir: <path>"
            text = dot_git.read_text(encoding="utf-8", errors="replace").strip()
            if not text.startswith("gitdir:"):
                return None
            git_dir = (folder / text[len("gitdir:"):].strip()).resolve()
            common = git_dir / "commondir"  # worktrees keep config in the main repository
            if common.is_file():
                git_dir = (git_dir / common.read_text(encoding="utf-8").strip()).resolve()
            return folder, git_dir
    return None


def _remote_url(git_dir: Path) -> str:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    try:
        parser.read(git_dir / "config", encoding="utf-8")
    except (configparser.Error, UnicodeDecodeError):
        return ""
    remotes = [section for section in parser.sections() if section.startswith('remote "')]
    preferred = 'remote "origin"' if 'remote "origin"' in remotes else (remotes or [None])[0]
    return parser.get(preferred, "url", fallback="").strip() if preferred else ""


def normalise_remote(url: str) -> str:
    """`git@github.com:Acme/Shop.git`, `https://user@github.com/acme/shop` and
    `ssh://git@github.com:22/acme/shop.git` all name `github.com/acme/shop`."""
    text = url.strip()
    match = re.match(r"^[a-z][a-z0-9+.-]*://(?:[^@/]*@)?([^/:]+)(?::\d+)?/(.*)$", text, re.I)
    if match is None:  # scp-like: [user@]host:path
        match = re.match(r"^(?:[^@/]*@)?([^/:]+):(.*)$", text)
    if match is None:  # a local path used as a remote
        host, path = "", text
    else:
        host, path = match.groups()
    path = re.sub(r"\.git/?$", "", path.strip("/")).strip("/")
    name = f"{host.lower()}/{path}" if host else path
    return name.lower()[-MAX_PROJECT:]


def project_for(cwd: str) -> str:
    start = Path(cwd or ".").expanduser()
    try:
        start = start.resolve()
        found = _git_dir(start)
    except OSError:
        found = None
    if found is not None:
        top, git_dir = found
        remote = _remote_url(git_dir)
        if remote:
            return normalise_remote(remote)
        return top.name[:MAX_PROJECT]
    return start.name[:MAX_PROJECT]
