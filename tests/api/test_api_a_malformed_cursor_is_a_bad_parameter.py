"""A cursor no list gave (typed by hand, cut short, made up) is a 400 naming the
cursor parameter, as any other bad parameter is, not a 404 as if the list were not
there."""

import pytest

pytestmark = pytest.mark.django_db


# not base64; "p=2025", whose position is no id
@pytest.mark.parametrize("cursor", ["zzz", "cD0yMDI1"])
@pytest.mark.parametrize("path", ["/api/v1/memories", "/api/v1/contradictions",
                                  "/api/v1/insights"])
def test_a_malformed_cursor_is_a_400_naming_the_cursor(alice, api_client_for, path, cursor):
    answer = api_client_for(alice).get(path, {"cursor": cursor})
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert list(error["fields"]) == ["cursor"]
    assert error["message"].startswith("cursor: Not a cursor this list gave")
