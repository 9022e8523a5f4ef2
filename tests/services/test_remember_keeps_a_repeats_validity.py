"""A repeat that strengthens a stored memory brings its validity with it: the memory
then holds for as long as either statement says (from the earlier start, to the later
end, or for good when one of them has no end), and the repeat's version records it."""

from datetime import timedelta

from django.utils import timezone

from memories.models import Memory, VersionChange
from memories.services.remembering import remember

FACT = "Dana is on call for the payments service."


def test_a_repeat_with_no_end_keeps_the_fact_past_the_first_statements_expiry(alice):
    now = timezone.now()
    first = remember(owner=alice, content=FACT, expires_at=now + timedelta(days=1)).memory

    repeat = remember(owner=alice, content=FACT, now=now + timedelta(hours=1))

    assert repeat.created is False and repeat.memory.pk == first.pk
    first.refresh_from_db()
    assert first.expires_at is None
    assert Memory.objects.current(now + timedelta(days=2)).filter(pk=first.pk).exists()
    reinforced = first.versions.get(change=VersionChange.REINFORCED)
    assert reinforced.before["expires_at"] == (now + timedelta(days=1)).isoformat()
    assert reinforced.after["expires_at"] is None


def test_a_repeat_that_holds_now_makes_a_scheduled_fact_hold_from_now(alice):
    now = timezone.now()
    scheduled = remember(owner=alice, content=FACT, valid_from=now + timedelta(days=7)).memory

    remember(owner=alice, content=FACT, now=now)

    scheduled.refresh_from_db()
    assert scheduled.valid_from == now
    assert Memory.objects.current(now).filter(pk=scheduled.pk).exists()


def test_a_repeat_with_an_end_leaves_a_fact_with_none_as_it_was(alice):
    now = timezone.now()
    lasting = remember(owner=alice, content=FACT, now=now).memory

    remember(owner=alice, content=FACT, expires_at=now + timedelta(days=1),
             now=now + timedelta(hours=1))

    lasting.refresh_from_db()
    assert (lasting.valid_from, lasting.expires_at) == (now, None)
    assert "expires_at" not in lasting.versions.get(change=VersionChange.REINFORCED).after
