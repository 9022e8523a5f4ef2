"""The code graph's pure rules: which paths are accepted, how imports find files, when a
call is linked and when it is left as written, and what a broken file still yields."""

import pytest

from codegraph import engine, parsing
from codegraph.engine import Definition, ModuleIndex, Use


@pytest.mark.parametrize("path, cleaned", [
    ("a/b.py", "a/b.py"), ("./a//b.py", "a/b.py"), ("a\\b.py", "a/b.py"), ("a/../b.py", "b.py")])
def test_paths_are_stored_relative_with_forward_slashes(path, cleaned):
    assert engine.clean_path(path) == cleaned


@pytest.mark.parametrize("path", ["", "/etc/x.py", "C:/x.py", "../x.py", "a/../../x.py", ".", "a\0.py"])
def test_paths_outside_the_project_are_refused(path):
    with pytest.raises(ValueError):
        engine.clean_path(path)


def test_languages_by_extension_skipping_minified_and_declaration_files():
    assert [engine.language_of(p) for p in ["a.py", "b.tsx", "c.mjs", "d.go", "e.rs", "f.txt",
                                            "g.min.js", "h.d.ts"]] == [
        "python", "tsx", "javascript", "go", "rust", None, None, None]
    assert engine.why_skipped(b"x\0y") == "binary"
    assert engine.why_skipped(b"x" * (engine.MAX_FILE_BYTES + 1)).startswith("larger than")
    assert engine.why_skipped(b"x = 1\n") is None


PYTHON = {p: "python" for p in ["django/__init__.py", "django/db/__init__.py",
                                "django/db/models/__init__.py", "django/db/models/base.py",
                                "src/tool/cli.py", "top.py"]}


@pytest.mark.parametrize("importer, target, found", [
    ("django/db/models/base.py", ".Model", "django/db/models/__init__.py"),
    ("django/db/models/base.py", "..models.base", "django/db/models/base.py"),
    ("django/db/models/__init__.py", ".base.Model", "django/db/models/base.py"),
    ("django/db/models/base.py", "....x", None),  # above the root
    ("top.py", "django.db.models.Model", "django/db/models/__init__.py"),
    ("top.py", "tool.cli", "src/tool/cli.py"),  # a src/ layout
    ("top.py", "json", None),
])
def test_python_imports_by_module_path(importer, target, found):
    assert ModuleIndex(PYTHON).resolve("python", importer, target) == found


def test_a_package_indexed_from_its_own_directory_resolves_its_absolute_imports():
    index = ModuleIndex({"db/models/base.py": "python", "db/models/__init__.py": "python"})
    assert index.resolve("python", "db/models/base.py", "django.db.models") == \
        "db/models/__init__.py"


def test_javascript_relative_imports_with_extensions_and_index_files():
    index = ModuleIndex({"src/a.ts": "typescript", "src/lib/index.js": "javascript",
                         "src/b.jsx": "javascript"})
    assert index.resolve("typescript", "src/a.ts", "./lib") == "src/lib/index.js"
    assert index.resolve("javascript", "src/lib/index.js", "../b") == "src/b.jsx"
    assert index.resolve("javascript", "src/lib/index.js", "../a.js") == "src/a.ts"
    assert index.resolve("javascript", "src/a.ts", "react") is None


def test_go_imports_by_the_longest_directory_ending_the_path():
    index = ModuleIndex({"store/a.go": "go", "store/a_test.go": "go", "x/store/b.go": "go"})
    assert index.resolve("go", "main.go", "example.com/m/x/store") == "x/store/b.go"
    assert index.resolve("go", "main.go", "example.com/m/store") == "store/a.go"
    assert index.resolve("go", "main.go", "fmt") is None


class NotWalked(dict):
    """Directories that may be looked up by name, never compared one by one."""

    def __iter__(self):
        raise AssertionError("every directory was compared with the import")


def test_a_go_import_is_found_without_comparing_it_with_every_directory():
    index = ModuleIndex({f"pkg{n}/store/a.go": "go" for n in range(100)} | {"main.go": "go"})
    index.go_dirs = NotWalked(index.go_dirs)
    assert index.resolve("go", "main.go", "example.com/m/pkg7/store") == "pkg7/store/a.go"
    assert index.resolve("go", "main.go", "example.com/m/store") is None
    assert index.resolve("go", "main.go", "example.com/m/") is None  # not the root's


def test_rust_paths_through_the_module_tree():
    index = ModuleIndex({"src/lib.rs": "rust", "src/net/mod.rs": "rust",
                         "src/net/tcp.rs": "rust", "src/util.rs": "rust"})
    assert index.resolve("rust", "src/lib.rs", "self::net") == "src/net/mod.rs"
    assert index.resolve("rust", "src/net/mod.rs", "self::tcp") == "src/net/tcp.rs"
    assert index.resolve("rust", "src/net/tcp.rs", "super::super::util::f") == "src/util.rs"
    assert index.resolve("rust", "src/net/tcp.rs", "crate::net::tcp::Stream") == "src/net/tcp.rs"
    assert index.resolve("rust", "src/lib.rs", "std::io::Read") is None


def _call(target, path="a.py", source=None):
    return Use("u", path, "calls", source, target)


def test_a_call_links_to_the_one_best_candidate_or_stays_as_written():
    definitions = [Definition(1, "a.py", "function", "save", "A.save"),
                   Definition(2, "b.py", "function", "save", "B.save"),
                   Definition(3, "b.py", "function", "only", "only")]
    paths = {"a.py": "python", "b.py": "python", "c.py": "python"}

    def target(use, imports=()):
        uses = [use, *(Use(f"i{n}", use.path, "imports", None, m) for n, m in enumerate(imports))]
        return engine.link(paths, definitions, uses)[use.id]

    assert target(_call("self.save", source="A.go")) == ("a.py", 1)  # its own class
    assert target(_call("obj.save", path="b.py")) == ("b.py", 2)  # the same file
    assert target(_call("obj.save", path="c.py")) == (None, None)  # two equal candidates
    assert target(_call("obj.save", path="c.py"), imports=["b"]) == ("b.py", 2)
    assert target(_call("B.save", path="c.py")) == ("b.py", 2)
    assert target(_call("Other.save", path="c.py")) == (None, None)  # names another type
    assert target(_call("only", path="c.py")) == ("b.py", 3)  # unique in the project
    assert target(_call("missing")) == (None, None)


class CountedDefinition(Definition):
    """A definition that counts how often its kind is read (once per look at it)."""

    reads = 0

    def __getattribute__(self, name):
        if name == "kind":
            CountedDefinition.reads += 1
        return super().__getattribute__(name)


def test_a_name_defined_and_called_many_times_is_linked_without_scoring_every_pair(
        monkeypatch):
    monkeypatch.setattr(CountedDefinition, "reads", 0)
    definitions = [CountedDefinition(n, "d.py", "function", "f", f"C{n % 2}.f")
                   for n in range(300)]
    uses = [Use(n, "u.py", "calls", None, f"a{n}.f") for n in range(300)]  # each its own
    uses += [Use("bare", "d.py", "calls", None, "f"), Use("C1", "u.py", "calls", None, "C1.f")]
    linked = engine.link({"d.py": "python", "u.py": "python"}, definitions, uses)
    assert len(linked) == 302 and set(linked.values()) == {(None, None)}  # equal candidates
    assert CountedDefinition.reads < 10 * 300  # every use scored every one: 90,600


def test_a_broken_or_empty_file_yields_what_can_be_read():
    broken = parsing.parse("x.py", "python", b"def ok(a):\n    return a\n\ndef broken(:\n")
    assert [s.qualified_name for s in broken.symbols][:1] == ["ok"]
    assert parsing.parse("e.py", "python", b"").symbols == []
    unicode = parsing.parse("u.py", "python", "def café(ü):\n    pass\n".encode())
    assert [(s.name, s.signature) for s in unicode.symbols] == [("café", "def café(ü)")]



def test_nul_and_invalid_utf8_in_a_source_never_reach_a_name_or_signature():
    graph = parsing.parse("x.py", "python", b"def ff(a='\0'):\n    pass\ndef g(b='\xff'):\n    pass\n")
    assert [(s.name, s.signature) for s in graph.symbols] == [
        ("ff", "def ff(a='\ufffd')"), ("g", "def g(b='\ufffd')")]


def test_tsx_components_re_exports_and_calls_inside_jsx():
    graph = parsing.parse("a.tsx", "tsx", b'import React from "react";\n'
                          b'export { helper } from "./helper";\n'
                          b"export function Button(props: Props) {\n"
                          b"  return <div onClick={() => track()}>{props.label}</div>;\n}\n")
    assert [(s.kind, s.qualified_name, s.signature) for s in graph.symbols] == [
        ("function", "Button", "function Button(props: Props)"),
        ("import", "react", 'import React from "react";'),
        ("import", "./helper", 'export { helper } from "./helper";')]
    assert [(r.kind, r.source, r.target, r.line) for r in graph.references] == [
        ("imports", None, "react", 1), ("imports", None, "./helper", 2),
        ("references", 0, "Props", 3), ("calls", 0, "track", 4)]
