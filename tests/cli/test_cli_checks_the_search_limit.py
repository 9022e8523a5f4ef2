"""`engram search --limit` takes what Engram's search takes, 1 to the bound of its
serializer (100 hits): any other limit is wrong usage (exit 2), checked as `engram list`
checks its own, not a request Engram refuses (exit 1)."""
import pytest

from engram_client import cli
from memories.api.views import MemorySearch

pytestmark = pytest.mark.django_db(transaction=True)

BOUND = MemorySearch.SearchInput().fields["limit"].max_value


@pytest.mark.parametrize("limit", [0, -3, BOUND + 1, 5000])
def test_a_limit_outside_the_searchs_bound_is_wrong_usage(engram, capsys, limit):
    with pytest.raises(SystemExit) as exited:
        engram("search", "deploys", "--limit", str(limit))
    assert exited.value.code == cli.USAGE
    assert (f"argument --limit: must be from 1 to {BOUND}, not {limit}"
            in capsys.readouterr().err)


def test_a_limit_at_the_searchs_bound_is_asked_for_and_answered(engram):
    assert engram("search", "deploys", "--limit", str(BOUND))[0] == cli.OK
