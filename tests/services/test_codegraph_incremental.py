"""Re-indexing parses only what changed, forgets what was deleted, and links the rest
of the project again; `manage.py index_code` does it from a directory."""

import shutil

import pytest
from codegraph_helpers import FIXTURES, edges_of, index_fixture
from django.core.management import call_command

from codegraph.models import CodeEdge, CodeFile, CodeSymbol

pytestmark = pytest.mark.django_db


@pytest.fixture
def shop(tmp_path):
    root = tmp_path / "shop"
    shutil.copytree(FIXTURES / "python", root)
    return root


def test_touching_one_file_reparses_only_that_file(alice, shop):
    index_fixture(alice, "python", "shop", shop)
    untouched = set(CodeSymbol.objects.filter(file__path="shop/checkout.py")
                    .values_list("id", flat=True))
    models = shop / "shop" / "models.py"
    models.write_text(models.read_text() + "\n\ndef helper():\n    return 1\n")
    report = index_fixture(alice, "python", "shop", shop)
    assert (report.parsed, report.unchanged, report.deleted) == (1, 2, 0)
    # checkout.py kept its rows; its links into models.py point at the new rows.
    assert set(CodeSymbol.objects.filter(file__path="shop/checkout.py")
               .values_list("id", flat=True)) == untouched
    assert ("calls", "shop/checkout.py:checkout", "shop/models.py:Cart.add") in edges_of(alice, "shop")
    assert CodeSymbol.objects.filter(file__path="shop/models.py", name="helper").exists()


def test_an_unchanged_tree_is_not_parsed_again(alice, shop):
    index_fixture(alice, "python", "shop", shop)
    before = edges_of(alice, "shop")
    report = index_fixture(alice, "python", "shop", shop)
    assert (report.parsed, report.unchanged) == (0, 3)
    assert edges_of(alice, "shop") == before


def test_a_deleted_file_disappears_and_links_into_it_become_unresolved(alice, shop):
    index_fixture(alice, "python", "shop", shop)
    (shop / "shop" / "models.py").unlink()
    report = index_fixture(alice, "python", "shop", shop)
    assert report.deleted == 1
    assert not CodeFile.objects.filter(project="shop", path="shop/models.py").exists()
    assert not CodeSymbol.objects.filter(project="shop", qualified_name="Cart.add").exists()
    edges = edges_of(alice, "shop")
    assert ("imports", "shop/checkout.py", "?.models.Cart") in edges
    assert ("calls", "shop/checkout.py:checkout", "?cart.add") in edges
    assert not any(target.startswith("shop/models.py") for _, _, target in edges)


def test_a_definition_added_later_resolves_calls_made_before(alice, shop):
    """Linking runs over the project after every index: checkout's call to `json.dumps`
    finds a dumps the project defines once one exists, without checkout being parsed."""
    index_fixture(alice, "python", "shop", shop)
    (shop / "shop" / "codec.py").write_text("def dumps(value):\n    return str(value)\n")
    report = index_fixture(alice, "python", "shop", shop)
    assert report.parsed == 1
    assert ("calls", "shop/checkout.py:checkout", "shop/codec.py:dumps") in edges_of(alice, "shop")


def test_the_command_indexes_a_directory_skipping_dependencies_binaries_and_huge_files(
        alice, shop, capsys):
    for skipped in ("node_modules/left-pad/index.js", ".git/hooks/pre-commit.py",
                    "env/lib/site.py", "vendor/lib/vendored.go"):
        (shop / skipped).parent.mkdir(parents=True, exist_ok=True)
        (shop / skipped).write_text("def hidden():\n    pass\n")
    (shop / "env" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (shop / "blob.py").write_bytes(b"x = 1\0\0\0")
    (shop / "huge.py").write_text("x = 1\n" * 200_000)
    call_command("index_code", str(shop), project="shop", owner="alice")
    out = capsys.readouterr()
    assert "3 files, 4 functions, 2 classes, 19 edges" in out.out
    assert "skipped blob.py: binary" in out.err and "skipped huge.py: larger than" in out.err
    assert not CodeSymbol.objects.filter(name="hidden").exists()
    call_command("index_code", str(shop), project="shop", owner="alice")
    assert "0 parsed, 3 unchanged, 0 removed" in capsys.readouterr().out


def test_the_command_refuses_an_unknown_owner_or_a_missing_directory(alice, tmp_path):
    from django.core.management.base import CommandError
    with pytest.raises(CommandError, match="No user 'mallory'"):
        call_command("index_code", str(tmp_path), project="p", owner="mallory")
    with pytest.raises(CommandError, match="is not a directory"):
        call_command("index_code", str(tmp_path / "nope"), project="p", owner="alice")
    assert not CodeEdge.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_two_reindexes_of_one_project_at_once_both_succeed(alice):
    """Each thread has its own connection; the second waits for the first's lock."""
    from concurrent.futures import ThreadPoolExecutor

    from django.db import connection

    from codegraph import services

    def reindex(text):
        try:
            return services.index_sources(alice, "p", [services.SourceFile(
                "new.py", text.encode())], complete=False).parsed
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=2) as pool:
        parsed = list(pool.map(reindex, ["def a():\n    pass\n", "def b():\n    pass\n"]))
    assert parsed == [1, 1]
    assert CodeFile.objects.filter(owner=alice, project="p", path="new.py").count() == 1
    assert CodeSymbol.objects.filter(owner=alice, project="p").count() == 1


def test_deleting_an_owner_deletes_their_graph_and_no_one_elses(alice, bob, shop):
    index_fixture(alice, "python", "shop", shop)
    index_fixture(bob, "python", "shop", shop)
    alice.delete()
    assert not CodeEdge.objects.exclude(owner=bob).exists()
    assert not CodeSymbol.objects.exclude(owner=bob).exists()
    assert CodeFile.objects.filter(owner=bob).count() == 3


def test_the_benchmark_times_a_copy_and_leaves_nothing_behind(alice, shop, capsys):
    call_command("bench_codegraph", str(shop), touch="shop/models.py", owner="alice")
    out = capsys.readouterr().out
    assert out.startswith("3 files, 8 nodes (4 functions, 2 classes, 2 imports), 19 edges")
    assert "(0 parsed); one file touched (shop/models.py)" in out and out.endswith(
        "(1 parsed)\n")
    assert "benchmark_added" not in (shop / "shop" / "models.py").read_text()
    assert not CodeFile.objects.exists() and not CodeEdge.objects.exists()


def test_the_benchmark_refuses_to_touch_a_file_outside_its_copy(alice, shop, tmp_path):
    from django.core.management.base import CommandError
    real = shop / "shop" / "models.py"
    before = real.read_text()
    for outside in (str(real), "../../../" + str(real)):
        with pytest.raises(CommandError, match="is not a source file of"):
            call_command("bench_codegraph", str(shop), touch=outside, owner="alice")
    assert real.read_text() == before
    (tmp_path / "empty").mkdir()
    with pytest.raises(CommandError, match="holds no source file"):
        call_command("bench_codegraph", str(tmp_path / "empty"), owner="alice")
