"""Dependencies point one way, and no module imports itself round a circle.

Every module of Engram is read as source (nothing is imported), each `import` and
`from ... import` found anywhere in it, inside functions too, becomes an edge; an edge
against the layer order below, an edge in a cycle, or a module in no layer fails the
test with the offending import named. docs/ARCHITECTURE.md draws the same picture.
"""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("memories", "reflection", "dashboard", "engram_site", "engram_client",
            "codegraph", "work")

# Lowest first. A module may import its own layer and the ones below, never above.
LAYERS = [
    ("pure", ["memories.engine", "memories.providers", "engram_site.db",
              "engram_site.settings", "engram_site.huey_connection", "engram_client",
              "codegraph.engine", "codegraph.parsing", "work.engine"]),
    ("models", ["memories.models", "reflection.models", "memories.migrations",
                "reflection.migrations", "engram_site.migrations",
                "codegraph.models", "codegraph.migrations", "work.models", "work.migrations"]),
    ("core", ["memories.selectors", "memories.signals", "memories.queue",
              "memories.llm_usage", "memories.jobs", "codegraph.selectors", "work.selectors"]),
    ("services", ["memories.services", "codegraph.services", "work.services"]),
    ("domain", ["memories.capture", "memories.maintenance", "memories.evaluation",
                "reflection.services", "reflection.receivers", "work.receivers",
                "work.prediction", "work.evaluation", "work.decisions"]),
    ("interfaces", ["memories.api", "memories.mcp", "reflection.api", "dashboard",
                    "memories.tasks", "reflection.tasks", "memories.management", "reflection.management",
                    "memories.admin", "reflection.admin", "engram_site.health",
                "codegraph.api", "codegraph.management",
                "work.api", "work.tasks", "work.management", "work.mcp"]),
    ("wiring", ["engram_site.urls", "reflection.urls", "memories.apps", "reflection.apps",
                "dashboard.apps", "engram_site.asgi", "engram_site.wsgi",
                "codegraph.urls", "codegraph.apps", "work.urls", "work.apps"]),
]
RANK = {prefix: (rank, name) for rank, (name, prefixes) in enumerate(LAYERS)
        for prefix in prefixes}


def layer_of(module: str):
    """(rank, name) of the longest layer prefix of `module`, None when it has none."""
    parts = module.split(".")
    for end in range(len(parts), 0, -1):
        found = RANK.get(".".join(parts[:end]))
        if found:
            return found
    return None


def read_sources(root: Path) -> dict[str, str]:
    sources = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            sources[".".join(parts)] = path.read_text()
    return sources


def imports_of(module: str, source: str, known: set[str], is_package: bool):
    """(imported module, line) for each of our modules that `module` imports."""
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            # `from a import b` imports the module a.b when there is one, else a name of a.
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                       for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known:  # `import a.b.c` of ours, or a name in it
                target = target.rpartition(".")[0]
            if target and target != module:
                yield target, node.lineno


def violations(sources: dict[str, str]) -> list[str]:
    known = set(sources)
    packages = {m for m in known if any(other.startswith(m + ".") for other in known)}
    found, edges = [], {m: {} for m in known}
    for module, source in sources.items():
        mine = layer_of(module)
        imported = list(imports_of(module, source, known, module in packages))
        # A package in no layer only groups its modules: it may import nothing of ours.
        if mine is None and (module not in packages or imported):
            found.append(f"{module} is in no layer: add it to LAYERS and docs/ARCHITECTURE.md")
        if mine is None:
            continue
        for target, line in imported:
            edges[module].setdefault(target, line)
            theirs = layer_of(target)
            if target in packages and theirs is None:
                continue  # a package that only groups layered modules
            if theirs is not None and theirs[0] > mine[0]:
                found.append(f"{module} (layer {mine[1]}) imports {target} (layer {theirs[1]}) "
                             f"at line {line}: dependencies point down only")
    found += [f"import cycle: {' -> '.join(cycle)}" for cycle in cycles(edges)]
    return found


def cycles(edges: dict[str, dict]) -> list[list[str]]:
    """One cycle through each strongly connected group of modules (Tarjan)."""
    index, low, stack, on_stack, groups = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in edges.get(node, {}):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                group.append(top)
                if top == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return [group + [group[0]] for group in groups]


def test_every_import_points_down_and_none_closes_a_circle():
    assert violations(read_sources(ROOT)) == []


def test_an_import_from_a_lower_layer_up_is_named():
    found = violations({
        "memories.models": "",
        "memories.services": "",
        "memories.services.remembering": "def f():\n    from memories.capture import observe\n",
        "memories.capture": "",
        "memories.capture.observe": "from ..services import remembering\n",
    })
    assert found == ["memories.services.remembering (layer services) imports "
                     "memories.capture.observe (layer domain) at line 2: dependencies "
                     "point down only",
                     "import cycle: memories.capture.observe -> "
                     "memories.services.remembering -> memories.capture.observe"]


def test_a_circle_inside_one_layer_is_named():
    found = violations({"memories.selectors": "from memories import jobs\n",
                        "memories.jobs": "from . import selectors\n", "memories": ""})
    assert found == ["import cycle: memories.jobs -> memories.selectors -> memories.jobs"]


def test_a_module_in_no_layer_is_named():
    assert violations({"memories.misc": ""}) == [
        "memories.misc is in no layer: add it to LAYERS and docs/ARCHITECTURE.md"]
