"""Writing the code graph: index sources (only those whose content hash changed are
parsed), drop deleted files, then link every reference of the project again.

Linking runs over the whole project after each index because a change in one file
changes what others resolve to (a new definition, a deleted module); it reads and
rewrites targets only, so it costs seconds on Django's source (docs/BENCHMARKS.md).
"""

import hashlib
from collections.abc import Callable, Iterable
from contextlib import contextmanager
from dataclasses import dataclass, field

from django.db import connection, transaction
from django.db.models import Count
from django.utils import timezone

from memories.engine import redaction

from . import engine, parsing
from .models import CodeEdge, CodeFile, CodeSymbol, EdgeKind, SymbolKind, new_id

BATCH_FILES = 200  # files written per transaction
UPDATE_BATCH = 10_000


@dataclass(frozen=True)
class SourceFile:
    path: str
    content: bytes | None  # None: the file was deleted


@dataclass
class IndexReport:
    parsed: int = 0
    unchanged: int = 0
    deleted: int = 0
    skipped: dict[str, str] = field(default_factory=dict)  # path: why
    files: int = 0
    functions: int = 0
    classes: int = 0
    imports: int = 0
    edges: int = 0
    resolved_edges: int = 0

    def counts(self) -> str:
        return (f"{self.files} files, {self.functions} functions, {self.classes} classes, "
                f"{self.edges} edges")


def index_sources(owner, project: str, sources: Iterable[SourceFile], *, complete: bool,
                  progress: Callable[[str], None] | None = None) -> IndexReport:
    """Bring the graph of `project` up to date with `sources`. With `complete`, the
    sources are the whole project, and indexed files missing from them are deleted;
    otherwise only the files named change. Paths must already be clean
    (`engine.clean_path`)."""
    with _one_index_at_a_time(owner, project):
        return _index(owner, project, sources, complete=complete, progress=progress)


@contextmanager
def _one_index_at_a_time(owner, project: str):
    """A session advisory lock per owner and project: two re-indexes of one project at
    once (an agent's edits in quick succession) would both insert the same new path."""
    digest = hashlib.sha256(f"codegraph:{owner.pk}:{project}".encode()).digest()
    key = int.from_bytes(digest[:8], "big", signed=True)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_lock(%s)", [key])
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s)", [key])


def _index(owner, project, sources, *, complete, progress) -> IndexReport:
    report = IndexReport()
    known = dict(CodeFile.objects.for_owner(owner).filter(project=project)
                 .values_list("path", "content_hash"))
    seen: set[str] = set()
    parsed: list[tuple[parsing.FileGraph, bytes, str]] = []
    gone: list[str] = []
    for source in sources:
        seen.add(source.path)
        if progress:
            progress(source.path)
        language = engine.language_of(source.path)
        why = engine.why_unstorable(source.path) or ("deleted" if source.content is None else (
            engine.why_skipped(source.content) if language else "not a supported language"))
        if why:
            if why != "deleted":
                report.skipped[source.path] = why
            if source.path in known:
                gone.append(source.path)
            continue
        digest = engine.content_hash(source.content)
        if known.get(source.path) == digest:
            report.unchanged += 1
            continue
        parsed.append((parsing.parse(source.path, language, source.content), source.content, digest))
        if len(parsed) >= BATCH_FILES:
            report.parsed += _write(owner, project, parsed)
            parsed = []
    report.parsed += _write(owner, project, parsed)
    if complete:
        gone += [path for path in known if path not in seen]
    with transaction.atomic():
        report.deleted = _drop_files(owner, project, gone)
    if report.parsed or report.deleted:  # else nothing any link could depend on moved
        link(owner, project)
    _count(owner, project, report)
    return report


FILE_COLUMNS = ("id", "owner", "project", "path", "language", "content_hash", "size",
                "lines", "indexed_at")
SYMBOL_COLUMNS = ("id", "owner", "project", "file", "kind", "name", "qualified_name",
                  "signature", "line", "end_line", "parent")
EDGE_COLUMNS = ("owner", "project", "kind", "file", "source", "target_text", "target_name",
                "target", "line")


def _shown(signature: str) -> str:
    """A signature as agents are handed it (code_file, the symbol lists): a secret in a
    default argument ("key='AKIA...'") redacted, as in memories. Only a string literal
    can hold one, so only a signature with a quote is scanned."""
    if "'" in signature or '"' in signature:
        signature = redaction.redact(signature).text
    return signature[:400]


def _write(owner, project: str, graphs: list[tuple[parsing.FileGraph, bytes, str]]) -> int:
    """Replace the stored version of each parsed file with its new graph, in one
    transaction; rows go in by COPY, twenty times faster than INSERT here."""
    if not graphs:
        return 0
    now = timezone.now()
    files, symbols, edges = [], [], []
    for graph, content, digest in graphs:
        file_id = new_id()
        files.append((file_id, owner.pk, project, graph.path, graph.language, digest,
                      len(content), content.count(b"\n") + 1, now))
        ids = [new_id() for _ in graph.symbols]
        for symbol, symbol_id in zip(graph.symbols, ids):
            parent = ids[symbol.parent] if symbol.parent is not None else None
            symbols.append((symbol_id, owner.pk, project, file_id, symbol.kind, symbol.name[:200],
                            symbol.qualified_name[:400], _shown(symbol.signature), symbol.line,
                            symbol.end_line, parent))
            edges.append((owner.pk, project, EdgeKind.CONTAINS.value, file_id, parent,
                          symbol.qualified_name[:200], symbol.name[:200], symbol_id, symbol.line))
        for reference in graph.references:
            edges.append((owner.pk, project, reference.kind, file_id,
                          ids[reference.source] if reference.source is not None else None,
                          reference.target, last_name(reference.target), None, reference.line))
    with transaction.atomic():
        _drop_files(owner, project, [graph.path for graph, _, _ in graphs])
        _copy(CodeFile, FILE_COLUMNS, files)
        _copy(CodeSymbol, SYMBOL_COLUMNS, symbols)
        _copy(CodeEdge, EDGE_COLUMNS, edges)
    return len(files)


def _copy(model, names: tuple[str, ...], rows: list[tuple]) -> None:
    columns = ", ".join(model._meta.get_field(name).column for name in names)
    with connection.cursor() as cursor, cursor.cursor.copy(
            f"COPY {model._meta.db_table} ({columns}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)


def last_name(target: str) -> str:
    """The name a target ends with: `self.store.save()` -> save, `crate::a::B` -> B."""
    parts = engine.target_parts(target)
    return (parts[-1] if parts else target)[:200]


def _drop_files(owner, project: str, paths: list[str]) -> int:
    """Delete files with their symbols and edges; links from other files into them
    become unresolved until `link` runs."""
    if not paths:
        return 0
    files = CodeFile.objects.for_owner(owner).filter(project=project, path__in=paths)
    ids = list(files.values_list("id", flat=True))
    in_project = CodeEdge.objects.for_owner(owner).filter(project=project)
    CodeEdge.objects.filter(file_id__in=ids).delete()
    in_project.filter(target__file_id__in=ids).update(target=None)
    in_project.filter(target_file_id__in=ids).update(target_file=None)
    CodeSymbol.objects.filter(file_id__in=ids).delete()
    CodeFile.objects.filter(id__in=ids).delete()
    return len(ids)


@transaction.atomic
def link(owner, project: str) -> int:
    """Resolve every import, call, inheritance and reference of the project again
    (`engine.link`); returns how many targets changed."""
    files = CodeFile.objects.for_owner(owner).filter(project=project)
    paths, path_of, id_of = {}, {}, {}
    for file_id, path, language in files.values_list("id", "path", "language"):
        paths[path], path_of[file_id], id_of[path] = language, path, file_id
    definitions = [
        engine.Definition(symbol_id, path_of[file_id], kind, name, qualified)
        for symbol_id, file_id, kind, name, qualified in
        CodeSymbol.objects.for_owner(owner).filter(
            project=project, kind__in=[SymbolKind.FUNCTION, SymbolKind.CLASS])
        .values_list("id", "file_id", "kind", "name", "qualified_name")]
    rows = list(CodeEdge.objects.for_owner(owner).filter(project=project).exclude(
        kind=EdgeKind.CONTAINS).values_list("id", "file_id", "kind", "source__qualified_name",
                                            "target_text", "target_file_id", "target_id"))
    uses = [engine.Use(edge_id, path_of[file_id], kind, source, text)
            for edge_id, file_id, kind, source, text, _, _ in rows]
    linked = engine.link(paths, definitions, uses)
    changed = []
    for edge_id, _, _, _, _, old_file, old_target in rows:
        path, target = linked[edge_id]
        new_file = id_of.get(path) if path else None
        if (new_file, target) != (old_file, old_target):
            changed.append((edge_id, new_file, target))
    table = CodeEdge._meta.db_table
    with connection.cursor() as cursor:
        for start in range(0, len(changed), UPDATE_BATCH):
            chunk = changed[start:start + UPDATE_BATCH]
            cursor.execute(
                f"UPDATE {table} e SET target_file_id = v.f, target_id = v.t FROM "
                "(SELECT unnest(%s::bigint[]) AS id, unnest(%s::uuid[]) AS f, "
                "unnest(%s::uuid[]) AS t) v WHERE e.id = v.id",
                [[c[0] for c in chunk], [c[1] for c in chunk], [c[2] for c in chunk]])
    return len(changed)


def _count(owner, project: str, report: IndexReport) -> None:
    report.files = CodeFile.objects.for_owner(owner).filter(project=project).count()
    kinds = dict(CodeSymbol.objects.for_owner(owner).filter(project=project).order_by()
                 .values("kind").annotate(n=Count("id")).values_list("kind", "n"))
    report.functions = kinds.get(SymbolKind.FUNCTION, 0)
    report.classes = kinds.get(SymbolKind.CLASS, 0)
    report.imports = kinds.get(SymbolKind.IMPORT, 0)
    edges = CodeEdge.objects.for_owner(owner).filter(project=project)
    report.edges = edges.count()
    report.resolved_edges = edges.exclude(target__isnull=True, target_file__isnull=True).count()
