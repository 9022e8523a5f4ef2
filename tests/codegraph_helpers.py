"""Reading a stored code graph back as plain tuples, for exact comparisons in tests."""

from pathlib import Path

from codegraph import engine, services
from codegraph.models import CodeEdge, CodeSymbol

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "codegraph"


def index_fixture(owner, language: str, project: str | None = None, root: Path | None = None):
    """Index the fixture repository of `language` (or `root`) as `project`."""
    root = root or FIXTURES / language
    return services.index_sources(
        owner, project or language,
        [services.SourceFile(path, absolute.read_bytes()) for path, absolute in engine.walk(root)],
        complete=True)


def nodes_of(owner, project: str) -> set[tuple]:
    """(path, kind, qualified name, signature, line) of every symbol."""
    return {(s.file.path, s.kind, s.qualified_name, s.signature, s.line)
            for s in CodeSymbol.objects.filter(owner=owner, project=project).select_related("file")}


def edges_of(owner, project: str) -> list[tuple]:
    """(kind, source, target) of every edge, sorted: the source is `path` or
    `path:qualified name`; the target a symbol (`path:name`), a file, or `?as written`
    when unresolved; a contains edge names the contained symbol's qualified name."""
    found = []
    for edge in CodeEdge.objects.filter(owner=owner, project=project).select_related(
            "file", "source", "target__file", "target_file"):
        source = edge.file.path + (f":{edge.source.qualified_name}" if edge.source else "")
        if edge.kind == "contains":
            target = edge.target.qualified_name
        elif edge.target:
            target = f"{edge.target.file.path}:{edge.target.qualified_name}"
        else:
            target = edge.target_file.path if edge.target_file else "?" + edge.target_text
        found.append((edge.kind, source, target))
    return sorted(found)
