"""Sources no one should write still index: what PostgreSQL cannot store is made storable."""

import os

import pytest
from django.core.management import call_command

from codegraph import engine, parsing, services
from codegraph.models import CodeEdge, CodeSymbol

pytestmark = pytest.mark.django_db


def test_a_name_longer_than_its_column_nul_and_invalid_utf8_are_made_storable(alice):
    long_name = "f" * 300
    # A NUL past the first 8 KiB, where binary files are told apart, and a stray byte.
    source = b"#" * 9000 + b"\n" + f"def {long_name}(a='\0'):\n    pass\n".encode() \
        + b"def g(b='\xff'):\n    pass\n"
    report = services.index_sources(alice, "p", [services.SourceFile("x.py", source)],
                                    complete=True)
    assert (report.parsed, report.functions) == (1, 2)
    stored = {s.name: s.signature for s in CodeSymbol.objects.filter(owner=alice, project="p")}
    assert set(stored) == {long_name[:200], "g"}
    assert "\0" not in stored[long_name[:200]] and stored["g"] == "def g(b='\ufffd')"


def test_a_rust_use_nested_deeper_than_pythons_recursion_limit_is_indexed(alice):
    # Read by recursion, it raised RecursionError: the REST API answered "The JSON is
    # nested too deeply" and refused the whole batch; `index_code` stopped with a traceback.
    source = ("use " + "a::{" * 2000 + "B" + "}" * 2000 + ";\n").encode()
    report = services.index_sources(alice, "p", [services.SourceFile("src/lib.rs", source)],
                                    complete=True)
    assert report.parsed == 1 and report.skipped == {}
    imports = CodeEdge.objects.filter(owner=alice, project="p", kind="imports")
    assert [e.target_text[:12] for e in imports] == ["a::a::a::a::"]


class CountingList(list):
    """A list that counts the items read from it."""

    reads = 0

    def __getitem__(self, index):
        CountingList.reads += 1
        return super().__getitem__(index)

    def __iter__(self):
        for item in super().__iter__():
            CountingList.reads += 1
            yield item


class CountingExtractor(parsing._Extractor):
    """Reads its scopes and symbols through CountingLists."""

    def __init__(self, *args):
        super().__init__(*args)
        self.scopes, self.graph.symbols = CountingList(), CountingList()


@pytest.mark.parametrize("language, source", [
    # Methods of a type the file does not declare: each was looked for among every symbol.
    ("go", "package a\n" + "".join(f"func (s *T) M{n}() {{}}\n" for n in range(300))),
    # A nesting closed before the references: each walked up through all of it.
    ("javascript", "function a(){" * 300 + "}" * 300 + "\nlet x = [" + "Ref, " * 300 + "];\n"),
    # Functions inside nested impls: each method's owner was looked for through every impl.
    ("rust", "impl A {" * 300 + "fn g() -> B { }\n" * 300 + "}" * 300),
])
def test_a_file_of_many_definitions_is_read_in_time_linear_in_its_size(monkeypatch, language,
                                                                       source):
    monkeypatch.setattr(CountingList, "reads", 0)
    graph = CountingExtractor("x", language, source.encode()).run()
    assert len(graph.symbols) >= 300
    assert CountingList.reads < 20 * 300  # it was 45,000 to 90,000: the square of the size


class NoParent:
    """A captured node that refuses to name its parent: tree-sitter finds a parent by
    walking down from the root, so one lookup per call made a deep file quadratic."""

    def __init__(self, node):
        self._node = node

    def __getattr__(self, name):
        if name == "parent":
            raise AssertionError("a call was read through its node's parent")
        return getattr(self._node, name)


class ParentlessExtractor(parsing._Extractor):
    def __init__(self, *args):
        super().__init__(*args)
        self.captures = {name: [NoParent(node) for node in nodes]
                         for name, nodes in self.captures.items()}


@pytest.mark.parametrize("language, source, called", [
    ("javascript", "function a(){ b(); c.d(); new e.F(); }", ["b", "c.d", "e.F"]),
    ("python", "def a():\n    b()\n    c.d()\n", ["b", "c.d"]),
    ("go", "package a\nfunc a() { b(); c.D() }", ["b", "c.D"]),
    ("rust", "fn a() { b(); c.d(); E::new(); }", ["E::new", "b", "c.d"]),
])
def test_calls_in_functions_nested_thousands_deep_are_read_without_asking_for_parents(
        language, source, called):
    graph = ParentlessExtractor("x", language, source.encode()).run()
    assert sorted(r.target for r in graph.references if r.kind == "calls") == called


def test_files_whose_paths_cannot_be_stored_are_skipped_and_the_rest_indexed(
        alice, tmp_path, capsys):
    # Each failed the COPY of its whole batch: `index_code` stopped with a traceback.
    (tmp_path / "ok.py").write_text("def ok():\n    pass\n")
    (tmp_path / os.fsdecode(b"caf\xe9.py")).write_text("def latin():\n    pass\n")
    deep = tmp_path.joinpath(*["d" * 250] * 4)
    deep.mkdir(parents=True)
    (deep / "deep.py").write_text("def deep():\n    pass\n")
    call_command("index_code", str(tmp_path), project="p", owner="alice")
    out = capsys.readouterr()
    assert "1 files, 1 functions" in out.out
    assert "skipped caf\\xe9.py: a path that is not UTF-8" in out.err
    assert "a path longer than 1000 characters" in out.err
    assert list(CodeSymbol.objects.filter(owner=alice).values_list("name", flat=True)) == ["ok"]


def test_index_code_reads_no_more_of_an_enormous_file_than_it_takes_to_skip_it(
        alice, tmp_path, capsys, monkeypatch):
    with open(tmp_path / "generated.py", "wb") as enormous:
        enormous.truncate(200_000_000)  # sparse: 200 MB on no disk
    read = []
    index_sources = services.index_sources

    def index_and_note_the_sizes(owner, project, sources, **options):
        sources = list(sources)
        read.extend(len(source.content) for source in sources)
        return index_sources(owner, project, sources, **options)

    monkeypatch.setattr(services, "index_sources", index_and_note_the_sizes)
    call_command("index_code", str(tmp_path), project="p", owner="alice")
    assert "skipped generated.py: larger than 1000000 bytes" in capsys.readouterr().err
    assert read == [engine.MAX_FILE_BYTES + 1]
