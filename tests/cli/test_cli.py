"""`engram`, the command line: readable tables, --json, and exit codes scripts can rely on."""
import io
import json
import socket
from pathlib import Path

import pytest

from engram_client import cli
from memories.models import Memory, Status
from memories.services.remembering import remember

pytestmark = pytest.mark.django_db(transaction=True)


def test_remember_then_search_finds_it_in_a_table(engram, alice):
    code, said = engram("remember", "The staging database listens on port 5433.",
                        "--project", "shop", "--tag", "infra")
    assert code == 0 and said.startswith("created ")
    memory = Memory.objects.get(owner=alice)
    assert (memory.project, memory.tags) == ("shop", ["infra"])
    code, table = engram("search", "which port does staging use")
    assert code == 0
    header, row = table.splitlines()[:2]
    assert header.split() == ["id", "score", "kind", "content"]
    assert row.startswith(str(memory.pk)) and "port 5433" in row


def test_json_prints_engrams_answer(engram, alice):
    remember(owner=alice, content="Use pnpm, never npm.", project="shop")
    code, said = engram("--json", "list", "--project", "shop")
    assert code == 0
    assert [m["content"] for m in json.loads(said)] == ["Use pnpm, never npm."]
    code, said = engram("list", "--json")
    assert json.loads(said)[0]["project"] == "shop"


def test_show_forget_and_context(engram, alice):
    memory = remember(owner=alice, content="Dana reviews every migration.").memory
    code, said = engram("show", str(memory.pk))
    assert code == 0 and "Dana reviews every migration." in said and "importance:" in said
    code, said = engram("context", "who reviews migrations?")
    assert code == 0 and "Dana reviews every migration." in said
    code, said = engram("forget", str(memory.pk))
    assert code == 0 and said.startswith(f"forgot {memory.pk}")
    memory.refresh_from_db()
    assert memory.status == Status.DELETED


def test_bad_input_exits_1_with_engrams_message(engram, capsys):
    code, _ = engram("remember", "   ")
    assert code == cli.REFUSED
    assert "content" in capsys.readouterr().err
    code, _ = engram("show", "0190c2b4-0000-7000-8000-000000000000")
    assert code == cli.REFUSED


def test_another_owners_memory_is_not_found(engram, bob):
    memory = remember(owner=bob, content="Bob's private note.").memory
    code, said = engram("show", str(memory.pk))
    assert code == cli.REFUSED and "Bob" not in said


def test_a_wrong_key_exits_4_with_one_line(engram, monkeypatch, capsys):
    monkeypatch.setenv("ENGRAM_API_KEY", "engram_wrong")
    code, _ = engram("list")
    error = capsys.readouterr().err
    assert code == cli.UNAUTHORISED and error.count("\n") == 1 and "API key" in error


def test_engram_unreachable_exits_3_with_one_line(engram, monkeypatch, capsys):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("ENGRAM_URL", f"http://127.0.0.1:{port}")
    code, _ = engram("search", "anything")
    error = capsys.readouterr().err
    assert code == cli.UNREACHABLE and error.count("\n") == 1 and "Is it running?" in error


def test_wrong_usage_exits_2(engram):
    with pytest.raises(SystemExit) as exited:
        engram("search")
    assert exited.value.code == cli.USAGE


def test_export_writes_the_stores_lines_to_a_file(engram, alice, tmp_path):
    remember(owner=alice, content="Use pnpm, never npm.", project="shop")
    remember(owner=alice, content="Dana reviews every migration.")
    target = tmp_path / "memories.jsonl"
    code, said = engram("export", "-o", str(target))
    lines = [json.loads(line) for line in target.read_text().splitlines()]
    assert code == 0 and said.startswith(f"exported {len(lines)} lines")
    assert {line.get("content") for line in lines} >= {"Use pnpm, never npm.",
                                                        "Dana reviews every migration."}


def test_importing_the_mcp_memory_graph_reports_counts_and_bad_lines(engram, alice):
    graph = str(Path(__file__).parents[1] / "fixtures" / "mcp_memory_graph.jsonl")
    code, said = engram("import", graph, "--project", "shop")
    assert code == 0
    summary, *problems = said.splitlines()
    assert "memories" in summary and "entities" in summary and "skipped" in summary
    assert any(problem.strip().startswith("line 8:") for problem in problems)
    assert Memory.objects.filter(owner=alice, project="shop").exists()
    code, again = engram("import", graph, "--project", "shop")
    assert code == 0 and again.startswith(
        "0 memories, 0 entities, 0 relationships, 0 contradictions imported")


def test_importing_a_missing_file_exits_1(engram, capsys):
    code, _ = engram("import", "no/such/file.jsonl")
    assert code == cli.REFUSED and "Cannot read" in capsys.readouterr().err


def test_erase_needs_yes_then_prints_the_receipt(engram, alice, capsys, monkeypatch):
    memory = remember(owner=alice, content="The wifi password is kettle-77-lamp.").memory
    monkeypatch.setattr("sys.stdin", io.StringIO(""))  # not a terminal: --yes is required
    code, _ = engram("erase", str(memory.pk))
    assert code == cli.USAGE and "--yes" in capsys.readouterr().err
    assert Memory.objects.filter(pk=memory.pk).exists()
    code, said = engram("erase", str(memory.pk), "--yes")
    assert code == 0 and said.startswith(f"erased {memory.pk}")
    assert "removed:" in said and "memories 1" in said and "kettle" not in said
    assert not Memory.objects.filter(pk=memory.pk).exists()
