"""Importing Engram's JSONL: a line the database could store but not give back, or that
would hide or bend what is stored, is a bad line, reported with its number; the good
lines around it are imported, and the owner's store stays readable."""

import json
import uuid

import pytest
from django.db import DatabaseError

from memories.models import Entity, Job, JobStatus, Memory
from memories.services import remembering, transfer
from memories.services.transfer import import_jsonl, run_import_job, start_import_job

pytestmark = pytest.mark.django_db

GOOD = {"content": "Deploys run from the release branch on Tuesdays."}


def jsonl(*records) -> bytes:
    return "".join((r if isinstance(r, str) else json.dumps(r)) + "\n"
                   for r in records).encode()


def restored(content: str, **fields) -> dict:
    return {"id": str(uuid.uuid4()), "content": content,
            "created_at": "2026-03-01T10:00:00+00:00", **fields}


def import_with_one_bad_line(owner, bad) -> dict:
    report = import_jsonl(owner, jsonl(GOOD, bad)).as_dict()
    assert [error["line"] for error in report["errors"]] == [2], report
    assert report["imported"]["memories"] == 1
    return report


@pytest.mark.parametrize("moment", ["0001-01-01T00:00:00+05:00",
                                    "9999-12-31T23:59:59-05:00"])
@pytest.mark.parametrize("with_id", [True, False])
def test_a_moment_outside_the_years_1_to_9999_in_utc_is_a_bad_line(alice, moment, with_id):
    bad = restored("A fact from the edge of time.") if with_id else {
        "content": "A fact from the edge of time."}
    bad["created_at"] = moment
    report = import_with_one_bad_line(alice, bad)
    assert "outside the years 1 to 9999" in report["errors"][0]["message"]
    # every stored moment reads back: a year-0 row broke every later read of the owner
    assert [m.content for m in Memory.objects.filter(owner=alice)] == [GOOD["content"]]


def test_the_first_and_last_storable_days_still_import(alice):
    report = import_jsonl(alice, jsonl(
        restored("The oldest fact.", created_at="0001-01-01T00:00:00+00:00"),
        restored("The newest fact.", created_at="9999-12-31T23:59:59+00:00"))).as_dict()
    assert report["imported"]["memories"] == 2 and report["skipped"] == 0
    assert sorted(m.created_at.year for m in Memory.objects.filter(owner=alice)) == [1, 9999]


@pytest.mark.parametrize("bad", [
    '{"content": "Cache hit rate", "metadata": {"ratio": NaN}}',
    '{"content": "Cache hit rate", "importance": Infinity}',
    (f'{{"record": "entity", "id": "{uuid.uuid4()}", "name": "Cache", '
    f'"properties": {{"x": -Infinity}}}}'),
])
def test_nan_and_infinity_are_no_json_and_make_a_bad_line(alice, bad):
    report = import_with_one_bad_line(alice, bad)
    assert "no JSON number" in report["errors"][0]["message"]
    assert not Entity.objects.filter(owner=alice).exists()


def test_a_non_finite_number_handed_to_the_service_is_refused_too(alice):
    with pytest.raises(Exception, match="NaN or Infinity"):
        remembering.remember(owner=alice, content="Cache hit rate is measured hourly",
                             metadata={"ratio": float("nan")})
    assert not Memory.objects.filter(owner=alice).exists()


@pytest.mark.parametrize("field", ["access_count", "helpful_count", "harmful_count"])
def test_a_count_beyond_postgresqls_integers_is_a_bad_line(alice, field):
    report = import_with_one_bad_line(alice, restored("Counted too often.",
                                                      **{field: 2**31}))
    assert field in report["errors"][0]["message"]


def test_a_mention_count_beyond_postgresqls_integers_is_a_bad_line(alice):
    entity = {"record": "entity", "id": str(uuid.uuid4()), "name": "Billing",
              "mention_count": 3_000_000_000}
    import_with_one_bad_line(alice, entity)
    assert not Entity.objects.filter(owner=alice).exists()


def test_a_memory_superseded_by_itself_is_a_bad_line(alice):
    line = restored("I replace myself.")
    line["superseded_by"] = line["id"]
    report = import_with_one_bad_line(alice, line)
    assert "leads back to this memory" in report["errors"][0]["message"]


def test_a_ring_of_supersessions_is_left_out_and_a_chain_is_kept(alice):
    a, b = restored("Ring A."), restored("Ring B.")
    a["superseded_by"], b["superseded_by"] = b["id"], a["id"]
    old, new = restored("Chain old."), restored("Chain new.")
    old["superseded_by"] = new["id"]
    report = import_jsonl(alice, jsonl(a, b, old, new)).as_dict()
    assert [error["line"] for error in report["errors"]] == [1, 2]
    stored = {m.content: m for m in Memory.objects.filter(owner=alice)}
    assert set(stored) == {"Chain old.", "Chain new."}
    assert stored["Chain old."].superseded_by == stored["Chain new."]


def test_an_id_twice_in_one_file_is_a_bad_line_the_second_time(alice):
    first = restored("The first line with this id.")
    again = {**restored("Another text under the same id."), "id": first["id"]}
    report = import_jsonl(alice, jsonl(first, again)).as_dict()
    assert report["errors"] == [{"line": 2, "message": f"id {first['id']} is on line 1 "
                                                       f"already"}]
    assert [m.content for m in Memory.objects.filter(owner=alice)] == [first["content"]]


def test_an_entity_id_twice_in_one_file_is_a_bad_line_the_second_time(alice):
    pk = str(uuid.uuid4())
    report = import_jsonl(alice, jsonl({"record": "entity", "id": pk, "name": "Billing"},
                                       {"record": "entity", "id": pk, "name": "Ledger"}))
    assert [error["line"] for error in report.as_dict()["errors"]] == [2]
    assert list(Entity.objects.filter(owner=alice).values_list("name", flat=True)) == [
        "Billing"]


def test_an_import_job_that_fails_part_way_says_how_much_is_stored(alice, monkeypatch,
                                                                     stopped_worker):
    lines = [{"content": f"Service {n} listens on port {8000 + n}."} for n in range(700)]
    job = start_import_job(alice, jsonl(*lines))
    stored = transfer.remember_many
    calls = []

    def fails_the_second_batch(**kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise DatabaseError("the disk is full")
        return stored(**kwargs)

    monkeypatch.setattr(transfer, "remember_many", fails_the_second_batch)
    job.refresh_from_db()
    with pytest.raises(transfer.ImportStopped, match="after 500 of 700 lines were stored: "
                                                    "the disk is full"):
        run_import_job(owner=alice, dry_run=False, job=job, **job.params)
    assert Memory.objects.filter(owner=alice).count() == 500
    assert Job.objects.get(pk=job.pk).status != JobStatus.DONE


def test_a_chain_that_runs_into_a_ring_keeps_its_head_and_refuses_the_ring(alice):
    head, a, b = restored("Chain head."), restored("Ring A."), restored("Ring B.")
    head["superseded_by"], a["superseded_by"], b["superseded_by"] = a["id"], b["id"], a["id"]
    report = import_jsonl(alice, jsonl(head, a, b)).as_dict()
    assert [error["line"] for error in report["errors"]] == [2, 3]
    assert [m.content for m in Memory.objects.filter(owner=alice)] == ["Chain head."]


def test_two_lines_that_are_one_memory_do_not_supersede_it_by_itself(alice):
    first = restored("The same memory, exported twice.")
    twin = restored("The same memory, exported twice.")  # same text, project and date
    first["superseded_by"] = twin["id"]
    report = import_jsonl(alice, jsonl(first, twin)).as_dict()
    assert report["errors"] == [{"line": 1, "message": transfer.RING_WITH_STORED}]
    [memory] = Memory.objects.filter(owner=alice)
    assert memory.superseded_by is None


class CountingLookups(dict):
    """A successor map that counts how often it is consulted."""

    lookups = 0

    def __contains__(self, key):
        self.lookups += 1
        return super().__contains__(key)

    def __getitem__(self, key):
        self.lookups += 1
        return super().__getitem__(key)


def test_a_long_chain_is_walked_once_not_once_per_memory():
    ids = [str(uuid.uuid4()) for _ in range(2_000)]
    chain = CountingLookups(zip(ids, [*ids[1:], None]))
    assert transfer._in_rings(chain) == set()
    # a walk from every memory to the chain's end consulted it about n² / 2 times (2
    # million here; a hostile file of 10,000 lines held a worker for tens of minutes)
    assert chain.lookups <= 5 * len(ids)
