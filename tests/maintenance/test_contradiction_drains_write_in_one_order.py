"""Two drains of one owner check different memories in transactions that each hold their
group while they write what they find; when their memories neighbour each other they
judge the same pairs, and must write them in one order, or they deadlock."""

import uuid
from types import SimpleNamespace

from memories.maintenance.contradictions import pairs_in_order


def memory():
    return SimpleNamespace(pk=uuid.uuid4())


def shared(pairs, x, y, z):
    """The pairs both drains judge, {x, y} and {x, z}, in the order this one meets them."""
    wanted = [{x.pk, y.pk}, {x.pk, z.pk}]
    return [pair for pair in ({a.pk, b.pk} for a, b in pairs) if pair in wanted]


def test_two_groups_meet_the_pairs_they_share_in_the_same_order():
    x, y, z = memory(), memory(), memory()
    # one drain holds x, whose neighbours are y then z; the other holds z and y, each
    # with x as its neighbour: unordered, the first meets {x,y} first, the second {x,z}
    first = pairs_in_order([x], {x.pk: [y, z]})
    second = pairs_in_order([z, y], {z.pk: [x], y.pk: [x]})
    assert shared(first, x, y, z) == shared(second, x, y, z)
    assert len(shared(first, x, y, z)) == 2


def test_every_pair_of_every_memory_is_still_judged_once():
    x, y, z = memory(), memory(), memory()
    pairs = pairs_in_order([x, y], {x.pk: [y, z], y.pk: [z]})
    assert sorted((a.pk, b.pk) for a, b in pairs) == sorted(
        [(x.pk, y.pk), (x.pk, z.pk), (y.pk, z.pk)])
