"""What `engram` prints to a terminal shows a memory's control characters as escapes
(`\x1b`) instead of sending them: a memory captured from a web page or a tool's output
cannot clear the screen, recolour it, write the clipboard or disguise a link."""
import re

import pytest

from memories.services.remembering import remember

pytestmark = pytest.mark.django_db(transaction=True)

PLANTED = "Deploys go out \x1b[2J\x1b[31mon Tuesdays\x1b]52;c;ZWNobyBoaQ==\x07 at\x9b14:00"
SHOWN = r"Deploys go out \x1b[2J\x1b[31mon Tuesdays\x1b]52;c;ZWNobyBoaQ==\x07 at\x9b14:00"
# every C0 and C1 control character but a newline and a tab
OBEYED = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


@pytest.fixture
def planted(alice, monkeypatch):
    monkeypatch.setenv("COLUMNS", "300")  # a table row whole, not cut to the terminal
    return remember(owner=alice, content=f"{PLANTED}\n\tRollbacks any day.").memory


@pytest.mark.parametrize("command", [["list"], ["search", "when do deploys go out"],
                                     ["context", "when do deploys go out"]])
def test_a_memorys_control_characters_print_as_escapes(engram, planted, command):
    code, said = engram(*command)
    assert code == 0 and SHOWN in said
    assert not OBEYED.search(said)


def test_show_prints_the_escapes_and_keeps_the_memorys_lines(engram, planted):
    code, said = engram("show", str(planted.pk))
    assert code == 0 and said.endswith(f"\n{SHOWN}\n\tRollbacks any day.\n")
    assert not OBEYED.search(said)
