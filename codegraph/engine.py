"""The code graph's rules, without Django: which files are indexed, and how a reference
written in one file (`from .models import Cart`, `./util`, `crate::store::Cart`, `save()`)
is linked to a file or a definition of the same project.

Linking is by name, within the project, and approximate by design:

- imports: Python by module path (relative imports from the importing package; an absolute
  one also without its first part, so a package indexed from its own directory resolves
  `django.db.models` as `db/models`); JS / TS relative specifiers with the usual
  extensions and `index` files (bare package names stay unresolved); Go by the longest
  directory that ends the import path (the package's first file stands for it); Rust
  `crate::`, `self::`, `super::` and `mod name;` by the module tree under `src/`.
- calls, inherits and references: a definition of that name (class for inherits and
  references) in the same language (JavaScript and TypeScript count as one), preferring, in order, `Class.name` when the call is `self.name()` or
  `Class.name()`, the same file, the files it imports; linked only when one candidate
  is best; a call that names a type (`Vec::new()`, `Path.join()`) links only to that
  type's definition. Anything else (a library's names, two equally good candidates) stays as
  written, unresolved. No types are inferred: `obj.save()` links only when one `save`
  is the best guess.
"""

import hashlib
import os
import posixpath
import re
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

EXTENSIONS = {
    ".py": "python", ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript",
    ".jsx": "javascript", ".ts": "typescript", ".mts": "typescript", ".cts": "typescript",
    ".tsx": "tsx", ".go": "go", ".rs": "rust",
}
# Version control, virtualenvs, dependencies, vendored code, build output and caches.
SKIPPED_DIRS = {
    ".git", ".hg", ".svn", ".venv", "venv", ".tox", ".nox", "node_modules", "__pycache__",
    ".mypy_cache", ".pytest_cache", ".ruff_cache", "vendor", "vendored", "third_party",
    "site-packages", "target", "dist", "build", ".next", ".engram",
}
# Languages that call each other's functions: a TypeScript file calls JavaScript.
_SCRIPTS = ("javascript", "typescript", "tsx")
LANGUAGE_FAMILIES = {"python": ("python",), "go": ("go",), "rust": ("rust",),
                     **dict.fromkeys(_SCRIPTS, _SCRIPTS)}
MAX_PATH_CHARS = 1000  # what CodeFile.path holds
MAX_FILE_BYTES = 1_000_000  # larger sources are generated or data, not code to navigate
BINARY_SNIFF_BYTES = 8192
JS_EXTENSIONS = (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts")


def language_of(path: str) -> str | None:
    if path.endswith((".min.js", ".d.ts")):  # minified bundles; declarations only
        return None
    return EXTENSIONS.get(posixpath.splitext(path)[1])


def content_hash(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


def why_unstorable(path: str) -> str | None:
    """Why a file's path cannot be stored, None when it can: a name that is not UTF-8
    (read from disk as lone surrogates), or longer than CodeFile.path holds. Either
    failed the whole batch of files being written, with a traceback."""
    if len(path) > MAX_PATH_CHARS:
        return f"a path longer than {MAX_PATH_CHARS} characters"
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return "a path that is not UTF-8"
    return None


def why_skipped(content: bytes) -> str | None:
    """Why a source of a known language is not indexed: None when it is."""
    if len(content) > MAX_FILE_BYTES:
        return f"larger than {MAX_FILE_BYTES} bytes"
    if b"\0" in content[:BINARY_SNIFF_BYTES]:
        return "binary"
    return None


def clean_path(path: str) -> str:
    """A file's path as stored: relative, with forward slashes, inside the project.
    Raises ValueError naming what is wrong."""
    if not path or "\0" in path:
        raise ValueError("A path must be non-empty text without NUL characters.")
    if path.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", path):
        raise ValueError(f"{path!r} is absolute: send the path relative to the project root.")
    normal = posixpath.normpath(path.replace("\\", "/"))
    if normal == ".." or normal.startswith("../") or normal == ".":
        raise ValueError(f"{path!r} leaves the project root.")
    return normal


def walk(root: Path) -> Iterator[tuple[str, Path]]:
    """(relative path, absolute path) of every source file of a known language under
    `root`, skipping SKIPPED_DIRS and any virtualenv (a directory with pyvenv.cfg)."""
    stack = [root]
    while stack:
        directory = stack.pop()
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError:
            continue
        if directory != root and any(e.name == "pyvenv.cfg" for e in entries):
            continue
        for entry in reversed(entries):
            if entry.is_dir(follow_symlinks=False):
                if entry.name not in SKIPPED_DIRS:
                    stack.append(Path(entry.path))
            elif entry.is_file(follow_symlinks=False) and language_of(entry.name):
                yield Path(entry.path).relative_to(root).as_posix(), Path(entry.path)


@dataclass(frozen=True)
class Definition:
    id: object
    path: str
    kind: str  # function or class
    name: str
    qualified_name: str


@dataclass(frozen=True)
class Use:
    id: object
    path: str  # the file it is written in
    kind: str  # imports, calls, inherits or references
    source: str | None  # qualified name of the definition it is made from
    target: str  # as written


class ModuleIndex:
    """Import targets to files, per language (see the module's docstring)."""

    def __init__(self, paths: dict[str, str]):
        self.paths = paths
        self.python: dict[str, str] = {}
        self.go_dirs: dict[str, list[str]] = defaultdict(list)
        self.rust: dict[tuple[str, tuple[str, ...]], str] = {}
        for path, language in sorted(paths.items()):
            if language == "python":
                parts = python_module(path)
                self.python.setdefault(".".join(parts), path)
                if parts[:1] == ["src"]:
                    self.python.setdefault(".".join(parts[1:]), path)
            elif language == "go" and not path.endswith("_test.go"):
                self.go_dirs[posixpath.dirname(path)].append(path)
            elif language == "rust":
                self.rust.setdefault(rust_module(path), path)

    def resolve(self, language: str, importer: str, target: str) -> str | None:
        if language == "python":
            return self._python(importer, target)
        if language == "go":
            return self._go(target)
        if language == "rust":
            return self._rust(importer, target)
        return self._javascript(importer, target)

    def _python(self, importer: str, target: str) -> str | None:
        dots = len(target) - len(target.lstrip("."))
        names = [part for part in target[dots:].split(".") if part]
        if dots:
            package = python_module(importer)
            if not importer.endswith("__init__.py"):
                package = package[:-1]
            base = package[:len(package) - (dots - 1)] if dots - 1 <= len(package) else None
            if base is None:
                return None
            tries = [base + names, base + names[:-1]]
        else:  # `from a import b`: module a.b, else a; and without the root package
            tries = [names, names[:-1], names[1:], names[1:-1]]
        for parts in tries:
            found = self.python.get(".".join(parts)) if parts else None
            if found:
                return found
        return None

    def _javascript(self, importer: str, target: str) -> str | None:
        if not target.startswith("."):
            return None  # a package from node_modules
        base = posixpath.normpath(posixpath.join(posixpath.dirname(importer), target))
        stem = posixpath.splitext(base)[0]
        for candidate in [base, *(stem + ext for ext in JS_EXTENSIONS),
                          *(base + ext for ext in JS_EXTENSIONS),
                          *(f"{base}/index{ext}" for ext in JS_EXTENSIONS)]:
            if candidate in self.paths:
                return candidate
        return None

    def _go(self, target: str) -> str | None:
        # The import path's endings, longest first, looked up: comparing every directory
        # with every import cost their product at each link, that is each re-index (a
        # repository of 2,000 packages importing 20 each: 9 s).
        parts = target.split("/")
        for start in range(len(parts)):
            ending = "/".join(parts[start:])
            if ending and self.go_dirs.get(ending):  # "": the root's package, named by none
                return self.go_dirs[ending][0]
        return None

    def _rust(self, importer: str, target: str) -> str | None:
        root, current = rust_module(importer)
        segments = [s for s in target.split("::") if s]
        bases: list[list[str]] = []
        if segments[:1] == ["crate"]:
            bases, segments = [[]], segments[1:]
        elif segments[:1] in (["self"], ["super"]):
            base = list(current)
            while segments[:1] in (["self"], ["super"]):
                if segments.pop(0) == "super":
                    base = base[:-1]
            bases = [base]
        else:  # a path relative to this module, else from the crate root
            bases = [list(current), []]
        for base in bases:
            for end in range(len(segments), -1, -1):
                module = tuple(base + segments[:end])
                if (end or base) and (root, module) in self.rust:
                    return self.rust[(root, module)]
        return None


def python_module(path: str) -> list[str]:
    parts = path.removesuffix(".py").split("/")
    return parts[:-1] if parts[-1] == "__init__" else parts


def rust_module(path: str) -> tuple[str, tuple[str, ...]]:
    """(crate source root, module path) of a Rust file: src/a/b.rs is ("src", (a, b));
    lib.rs, main.rs and mod.rs name their directory's module."""
    parts = path.removesuffix(".rs").split("/")
    root_at = max((i for i, part in enumerate(parts[:-1]) if part == "src"), default=-1)
    root, module = "/".join(parts[:root_at + 1]), parts[root_at + 1:]
    if module[-1] == "mod" or (len(module) == 1 and module[0] in ("lib", "main")):
        module = module[:-1]
    return root, tuple(module)


_CALL_ARGUMENTS = re.compile(r"\([^()]*\)")
_SEPARATORS = re.compile(r"\.|::|->|\?\.")
_SELF = {"self", "this", "cls", "Self"}
KINDS_LINKED = {"calls": ("function", "class"), "inherits": ("class",),
                "references": ("class",)}


def target_parts(target: str) -> list[str]:
    """The names a target is written with: `self.store.save()` -> self, store, save;
    `crate::a::B` -> crate, a, B."""
    return [p for p in _SEPARATORS.split(_CALL_ARGUMENTS.sub("", target)) if p]


def link(paths: dict[str, str], definitions: list[Definition], uses: list[Use]
         ) -> dict[object, tuple[str | None, object | None]]:
    """Each use's target: (file path, definition id), either None when not found."""
    modules = ModuleIndex(paths)
    linked: dict[object, tuple[str | None, object | None]] = {}
    imported: dict[str, set[str]] = defaultdict(set)
    for use in uses:
        if use.kind == "imports":
            found = modules.resolve(paths.get(use.path, ""), use.path, use.target)
            linked[use.id] = (found, None)
            if found:
                imported[use.path].add(posixpath.dirname(found) if paths[found] == "go"
                                       else found)
    candidates = _Candidates(paths, definitions, imported)
    for use in uses:
        if use.kind in KINDS_LINKED:
            found = candidates.best(use)
            linked[use.id] = (found.path, found.id) if found else (None, None)
    return linked


class _Candidates:
    """The definitions a use may link to, and the best of them. Scoring every definition of
    a name for every use of it cost their product (a file defining `f` 8,000 times and
    calling it as often: 18 s), so the best is found from what it depends on: a
    qualified name ending as wanted (definitions kept by their last two names), else
    the file and what it imports (definitions kept by file); and found once per file,
    kind of use, name and qualifier."""

    def __init__(self, paths: dict[str, str], definitions: list[Definition],
                 imported: dict[str, set[str]]):
        self.paths, self.imported = paths, imported
        self.named: dict[str, list[Definition]] = defaultdict(list)
        self.qualified: dict[str, list[Definition]] = defaultdict(list)
        for definition in definitions:
            self.named[definition.name].append(definition)
            self.qualified[_last_two(definition.qualified_name)].append(definition)
        self.by_file: dict[tuple, dict[str, list[Definition]]] = {}
        self.chosen: dict[tuple, Definition | None] = {}

    def best(self, use: Use) -> Definition | None:
        parts = target_parts(use.target)
        if not parts:
            return None
        name, qualifier = parts[-1], (parts[-2] if len(parts) > 1 else None)
        if qualifier in _SELF and use.source and "." in use.source:
            wanted = use.source.rpartition(".")[0] + "." + name
        else:
            wanted = f"{qualifier}.{name}" if qualifier else None
        # `Vec::new()` names its type: another type's `new` is not it.
        typed = bool(wanted) and qualifier not in _SELF and qualifier[:1].isupper()
        key = (use.path, use.kind, name, wanted, typed)
        if key not in self.chosen:
            self.chosen[key] = self._choose(use.path, use.kind, name, wanted, typed)
        return self.chosen[key]

    def _choose(self, path: str, kind: str, name: str, wanted: str | None,
                typed: bool) -> Definition | None:
        language = self.paths.get(path, "")
        languages = LANGUAGE_FAMILIES.get(language, (language,))
        by_package = language == "go"
        imported = self.imported[path]

        def near(found: str) -> tuple[bool, bool]:
            here = posixpath.dirname(found) if by_package else found
            return (found == path, here in imported
                    or (by_package and here == posixpath.dirname(path)))

        def fits(d: Definition) -> bool:
            return d.kind in KINDS_LINKED[kind] and self.paths.get(d.path) in languages

        if wanted:
            named = [d for d in self.qualified[_last_two(wanted)]
                     if d.name == name and fits(d) and (
                         d.qualified_name == wanted or d.qualified_name.endswith("." + wanted))]
            if named:
                return _only_best(named, lambda d: near(d.path))
            if typed:
                return None
        files_key = (name, kind, languages)
        if files_key not in self.by_file:
            files = self.by_file[files_key] = defaultdict(list)
            for d in self.named.get(name, ()):
                if fits(d):
                    files[d.path].append(d)
        files = self.by_file[files_key]
        if not files:
            return None
        best_file = _only_best(list(files), near)
        # Two equally good candidates: left unresolved rather than guessed.
        return files[best_file][0] if best_file is not None and len(files[best_file]) == 1 else None


def _last_two(qualified_name: str) -> str:
    return ".".join(qualified_name.split(".")[-2:])


def _only_best(candidates: list, score):
    """The one candidate scoring highest; None when two share the highest score."""
    ranked = sorted(candidates, key=score, reverse=True)
    if len(ranked) > 1 and score(ranked[0]) == score(ranked[1]):
        return None
    return ranked[0]
