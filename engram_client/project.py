"""The project a working directory belongs to, named by its git remote.

Two checkouts of one repository (a clone, a worktree) share memory; two repositories
never mix. Outside git, or with no remote, the folder's name stands in. Git's files are
read directly: spawning `git` would cost a hook more than all the rest of its start.
"""
import os
import re

MAX_PROJECT = 200  # Engram's scope field length


def _read(path: str) -> str:
    with open(path, encoding="utf-8", errors="replace") as file:
        return file.read()


def _git_dir(start: str) -> tuple[str, str] | None:
    """(work tree top, the git directory holding `config`) for `start`, if inside git."""
    folder = start
    while True:
        dot_git = os.path.join(folder, ".git")
        if os.path.isdir(dot_git):
            return folder, dot_git
        if os.path.isfile(dot_git):  # a worktree or submodule: "gitdir: <path>"
            text = _read(dot_git).strip()
            if not text.startswith("gitdir:"):
                return None
            git_dir = os.path.join(folder, text[len("gitdir:"):].strip())
            common = os.path.join(git_dir, "commondir")  # worktrees share the main config
            if os.path.isfile(common):
                git_dir = os.path.join(git_dir, _read(common).strip())
            return folder, os.path.normpath(git_dir)
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def _remote_url(git_dir: str) -> str:
    """origin's url, else the first remote's, from git's config (an INI file)."""
    try:
        text = _read(os.path.join(git_dir, "config"))
    except OSError:
        return ""
    urls, section = {}, None
    for line in text.splitlines():
        line = line.strip()
        header = re.match(r'^\[\s*remote\s+"([^"]*)"\s*\]', line)
        if header:
            section = header.group(1)
        elif line.startswith("["):
            section = None
        elif section is not None:
            name, _, value = line.partition("=")
            if name.strip().lower() == "url" and section not in urls:
                urls[section] = value.strip()
    return urls.get("origin") or next(iter(urls.values()), "")


def normalise_remote(url: str) -> str:
    """`git@github.com:Acme/Shop.git`, `https://user@github.com/acme/shop` and
    `ssh://git@github.com:22/acme/shop.git` all name `github.com/acme/shop`."""
    text = url.strip()
    match = re.match(r"^[a-z][a-z0-9+.-]*://(?:[^@/]*@)?([^/:]+)(?::\d+)?/(.*)$", text, re.IGNORECASE)
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
    start = os.path.realpath(os.path.expanduser(cwd or "."))
    try:
        found = _git_dir(start)
    except OSError:
        found = None
    if found is not None:
        top, git_dir = found
        remote = _remote_url(git_dir)
        if remote:
            return normalise_remote(remote)
        start = top
    return os.path.basename(start)[:MAX_PROJECT] or "root"


def branch_for(cwd: str) -> str:
    """The branch checked out in `cwd` (from HEAD; a worktree's own HEAD), blank when
    detached or outside git."""
    folder = os.path.realpath(os.path.expanduser(cwd or "."))
    try:
        while True:
            dot_git = os.path.join(folder, ".git")
            if os.path.isdir(dot_git):
                head = os.path.join(dot_git, "HEAD")
                break
            if os.path.isfile(dot_git):
                text = _read(dot_git).strip()
                if not text.startswith("gitdir:"):
                    return ""
                head = os.path.join(folder, text[len("gitdir:"):].strip(), "HEAD")
                break
            parent = os.path.dirname(folder)
            if parent == folder:
                return ""
            folder = parent
        ref = _read(head).strip()
    except OSError:
        return ""
    return ref[len("ref: refs/heads/"):][:300] if ref.startswith("ref: refs/heads/") else ""
