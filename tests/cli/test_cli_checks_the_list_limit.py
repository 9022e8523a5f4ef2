"""`engram list --limit` asks for one page of Engram's, 1 to 200 memories: any other limit
is wrong usage, not quietly listed as Engram's default page (50) or its largest (200)."""
import pytest

from engram_client import cli
from tests.helpers import closed_port_url


@pytest.mark.parametrize("limit", ["0", "-3", "201", "5000"])
def test_a_limit_outside_one_page_is_wrong_usage(limit, monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("ENGRAM_URL", closed_port_url())  # no Engram answers the list
    monkeypatch.setenv("ENGRAM_CONFIG", str(tmp_path / "none.json"))
    with pytest.raises(SystemExit) as exited:
        cli.main(["list", "--limit", limit])
    assert exited.value.code == cli.USAGE
    assert "argument --limit: must be from 1 to 200" in capsys.readouterr().err
