"""Contradiction Scanner: whether two memories cannot both be true, by rules or a model.

Seed 001 "Contradiction Scanner" asks an LLM judge, cached per pair; with the `rules`
provider (and whenever no model is configured) the rules below answer instead. Both
answer with a JudgeVerdict, so the scanner stores one shape whoever judged.

The rules compare the two statements clause by clause ("...; they live in a YAML file"
is a clause of its own), as sequences of stemmed content words (dedup's `details`,
kept in order) with the polarity words taken out. An opposite word reads as a negation
("disabled" is "not enabled", "private" "not public", "local time" "not UTC", "switched
off" "disabled", "kept out of" "not in"; "avoid" and "skip" are "not use"; the word
lists are in contradiction_words.py). A pair contradicts when:

- negation: one clause is negated ("not", "n't", "never", "no", "dislikes", an
  opposite word, a state that undoes a participle: "is unpartitioned") and the other
  is not, the other says the word negated (or a verb of
  its kind: "like", "want" and "prefer" are one), and most of the negated clause's words
  ("we use Redis for sessions" / "we don't use Redis for sessions"; "always squash" /
  "never squash"); in another word order, or when the negated word only ties a subject
  to its value ("does not run on Windows" / "supports Windows"), most subject words of
  each are in the other, and the other names what a denied tie denies ("we don't use
  ORMs here" says nothing of "... uses Postgres"); not when each puts a word of its own
  after the same preposition ("enabled in development" / "disabled in production") or
  narrows to a place or time of its own ("encrypted at rest" / "not encrypted in
  transit"), nor when each opens on a name of its own ("the `new-checkout` flag" / "the
  `new-search` flag");
- a changed slot: same polarity, same opening, and every difference is one value put
  in the place of another (ports, versions, names, hosts, durations: "the API port is
  8080" / "... 9090", "X uses MySQL" / "X uses PostgreSQL"); a word that is not a value
  counts only where the slot holds one thing: after "is" ("the default branch is main"
  / "... master", a name given too: "is called `develop`", "default branch: main";
  not a quality: "... is protected", nor a quality against a name: "is `cold-archive`"
  / "is encrypted"), under "prefer" ("I prefer tabs" /
  "I prefer spaces"), or where one says "only" ("deploys are only triggered by tags").
  A swap that brings other words with the value ("uses Redis for caching" / "uses
  PostgreSQL" or "... PostgreSQL for orders") fills another slot, unless a shared word
  after it pins the slot ("a real PostgreSQL database" / "an in-memory SQLite
  database"); two known things of two kinds ("Postgres" / "Redis") are two subjects, and
  a number does not replace a name without a digit ("after 30" / "Unix epoch"); a
  word added anywhere makes a different statement, and so do two places changed at once
  ("Node 20 in CI" / "Node 18 on developer laptops");
- a changed member of a closed category (value_categories.py: data formats, databases,
  CI services, package managers, regions, ... and the ends of scales: short / detailed,
  lazily / eagerly, soft / hard deletes): each names one the other does not, on one
  subject ("the deploy manifests are written in YAML" / "we keep our deploy manifests
  in TOML"); a word naming the kind of thing ("the worker language is Elixir") names
  the slot, not the subject;
- the only one of a kind: one statement says its member is the only one ("provisioned
  exclusively with Terraform", "Rollbar, our only error tracker"), the other names
  another member, and the two share a word of their subject; not when one speaks of what
  comes in ("only accepts JSON") and the other of what goes out ("returns XML");
- a thing denied outright: a known thing denied with nothing to narrow it, or nothing
  the other does not say too ("pnpm is not used", "there is no Celery anywhere in the
  stack", "CI doesn't run mypy at all") against a statement that uses or chose it, or
  does the work by it ("processed by Celery workers", "goes through RQ"); a thing
  denied "at all" or "of any kind" clashes with a statement that it is there, on a
  subject the two share, whatever else each says;
- a member passed over: one statement passes over a member of a category ("Zustand
  stores instead of Redux", "rather than", "in place of", "replaced Jenkins with ...",
  "moved off Heroku") and the other states it, on a subject the two share two words of
  that neither opens on a word of its own ("the frontend manages client state with
  Redux Toolkit");
- a changed holder of a role: the first words differ, are both names, and the rest says
  who owns, leads or "is the" something ("Alice owns the payments service" / "Bob
  ..."); or, in any form, one role over one thing with two holders, a person or a team:
  a passive ("the rotation is run by Kenji"), a name and a verb of a role ("Aisha runs
  the rotation"), or a noun of one ("Lena is the reviewer for migrations", "the
  maintainer of the modules is Ravi", "ownership of X sits with the Mobile team"); a
  role said with a phrase ("belongs to", "falls under", "looked after by"), running,
  managing and coordinating as one role, "the Payments team" and "Payments" as one
  holder;
- a reversed preference ("prefers pytest over unittest" / "prefers unittest over
  pytest"; "explicit imports over wildcard imports" / "wildcard imports to explicit
  ones"; "prefers X over Y" / "prefers Y", or wants, likes or asks for a known Y), by
  the same person (an instruction, "prefer X over Y", is the speaker's: "I would rather
  ..."; a team is named by its field: "the FE folks" are the frontend team, not the
  mobile team);
- a denied value: "with pip-tools, not Poetry" against a statement, on the same subject,
  that uses Poetry; or a choice denied ("wants spaces, not tabs") against the same
  person's choice of it ("prefers tabs"); not when each names a thing of its own;
- a changed measure: the same quantity (a duration, a size, a percentage, a number of
  attempts, a count of the same things, "4 worker processes" counting processes, a
  named version, "our Kubernetes version is 1.30" too, a port, what "a line length of
  88" names, or a schedule from schedules.py: how often, on which day, on which day of
  the year, at what time; "on a daily schedule" is daily, "interval", "cadence" and
  "schedule" name the schedule, not the subject, and "Monday through Thursday" names no
  one day) with another value, on one subject ("the cache TTL is 5
  minutes" / "... one hour"; "5 minutes" equals "300 seconds", "retried 2 times" "3
  attempts", "every 12 hours" "twice a day", "December 15th" / "20 Dec"); a phrase whose
  own word follows the shared ones restates the subject ("the TTL for the product-page
  cache"), and so does one that only one side adds when the other says nothing of its
  own ("Renovate runs nightly" / "Renovate checks for updates monthly"), unless a word of
  it modifies a shared one ("the admin server"); not when each names a thing of its own
  ("2-space indentation in YAML" / "4-space indentation in Python"), one noun is
  numbered two ways ("sprint one" / "sprint two"), one rate is said in two units, or,
  against a negation, of a schedule ("blocked on Fridays" / "allowed on Saturdays"); a
  word that narrows the subject on one side only ("Session cache TTL in Redis" / "Redis
  session keys expire") keeps one subject when the other names no rival, no qualifier,
  no earlier thing ("the old policy") and no list of amounts; years and months of one
  length are one ("seven years" / "84 months");
- a reversed direction: the same words with two of them exchanging their roles ("the
  billing service depends on the auth service" / "the auth service depends on the
  billing service"; "from A to B" / "from B to A"), not one fact in two voices ("is
  built with MkDocs" / "MkDocs builds"); or the ends of a flow swapped in other words
  (flows.py: "events flow from orders to analytics" / "analytics sends events to
  orders", "A consumes events published by B", "A subscribes to the events that B
  publishes", "A publishes events that B consumes", "moving off A onto B", "A feeds
  B", "X gets copied from Y", "the nightly job loads X into Y"; an end named with more
  words is the same end: "Frankfurt" / "the Frankfurt replica"), unless what moves
  differs; or a need the other way round, whatever verb says it (flows.dependency:
  "A depends on B", "A calls B", "A imports B", "A triggers B", "B is called by A";
  "A is upstream of B" is a flow), unless the need is denied;
- a rule for every case ("always", "every PR", "must"; not how often: "every ten
  seconds") against its denial in other words ("Always write tests for bug fixes" /
  "Bug fixes never need tests"), the denial "never", a word the rule says, or skipping
  what it requires, of what the rule speaks of, most words of the shorter clause shared;
  a case only the denial names is an exception, still a contradiction ("all migrations
  run in a transaction" / "orders-db migrations never do"), and a denial with no object
  denies the rule's verb ("never squash, we keep merge commits");
- a move off one member onto another ("we migrated search from Solr to OpenSearch")
  against a statement still stating the first, of the same thing, in the present;
- a swapped source (sources.py): one named thing the source in one statement and a copy
  in the other ("pg-1 is the primary and pg-2 its replica" / "pg-2 is primary and
  replicates to pg-1", "X is a replica of Y" / "Y is a replica of X", "Salesforce is
  the source of truth; our CRM mirrors it" / "our CRM is canonical"), or two sources of
  one thing that name each other; not of a past state, a denial or two environments;
- a changed value in any word order: each statement names a value the other does not,
  of the same kind (a number does not replace a name, a known format is no unknown
  name, a name with a digit in it, "prod-eu-1", is a name) and in the same role
  ("pushed to ECR" is not "scanned with Trivy"), and their other words speak of one
  subject, a known thing saying its kind ("Staging's Postgres instance" is the staging
  database); not when one opens on a name the other does not say and the other on a
  word of its own ("the CLI ..." / "the web app ..."), when one shared word is all that
  ties names no category knows ("the `new-checkout` flag is enabled in production" /
  "production runs 6 API replicas"), nor for a version and a release of it ("PG 16" /
  "pg: 16.2"); a day or a month is a schedule, never such a value, a year when
  something happened ("moved to Postgres in 2022") no value at all, and a value said
  with "was" against the present is its history.

One subject (subject_match) is read from the words that say what a statement is about:
not its values, prepositions, verbs that only tie a subject to a value ("runs on",
"lives in"), bounds and settings ("capped at", "configured with"), words of time
("now") or quantity ("all"); verbs of one kind as one ("written in" / "defined with"),
kin words as one ("inactive" / "inactivity", "manager" / "management"), short forms as
their words ("docs", "repo", "prod", "DB", inside a compound too: "auth-service"), a
compound by its parts ("per-file", "type-check"), nouns of a running piece of software
as one ("the search API", "the search service", "search-svc"), and a scope that
narrows nothing left out ("in every environment", "with no exceptions", "at the
moment", "since the last upgrade", "the team's ...", "in the repo"). Two
statements speak of one subject when one says nothing the other does not, or most
words are shared, and no word of one modifies a shared one, as "free" in "the free
plan" against "the team plan" (a word after "we", "to" or "can", or an "-s" verb after
its subject, is a verb: "we process background jobs", "the CLI supports Windows");
never when they name two of a kind of thing that tells subjects apart ("production" /
"staging", "frontend" / "backend") or open on two words of their own ("each pod" /
"each sidecar"), nor when each names a thing the other does not ("quartz-cli" /
"quartz-agent"). A thing both name (a compound, a capitalised name, an acronym) pins the
subject whatever context one adds ("search-gateway uses Elasticsearch 7.17" /
"search-gateway's cluster was upgraded to Elasticsearch 8.11 last sprint"): when neither
names another thing, both say the same qualifiers, one says at most one word of its own
and the other at most three, no word of one modifies a shared one, neither says a state
in the past tense, not both narrow with a phrase of their own, and the two say no two
measures or roles of the thing ("is version 15" / "listens on port 5433"). A statement
that adds ("also", "too") replaces no value. A plain word both end on as what their
subject is ("is develop" / "is trunk") is a value of both; a person and a thing named
together, or a name right before a word of its own ("the p95 latency target"), fill no
one slot.

Before a statement is read, its short forms, cron expressions, glued units, slash rates
and numbers of several words are written out (short_forms.py: "billing-svc" is
"billing-service", "0 6 * * *" "daily at 06:00", "10MB" "10 MB", "1,000 req/min" "1000
requests per min", "twenty-five" "25", "2-space" "2 space", "Node v20" "Node 20",
"larger than 10 MB are rejected" "capped at 10 MB", "the minimum SDK is 26" a version
of the SDK, "512Mi" "512 MiB", "a full year" a year, "the single" "the only", "2FA"
"two-factor authentication", "ahead of" "before", "CRM -> billing" "from CRM to
billing", a role as teams shorten it ("TL" the tech lead, "the DRI" the owner, "FE"
frontend), money ("$5k", "$12,000" and "twelve thousand dollars" are dollars, "10k"
10000, a spending limit a budget), one counted thing of two names ("six pods" are 6 replicas, "hosts" and "VMs"
machines), "12 chars" 12 characters, "gives up after ten seconds" a timeout; "TS", "TL"
and "PRs" only in capitals, "30d" only with a small "d"); a rate compares per hour
whatever its unit, and a retry verb counts the tries said after what it retries
("retries a failed webhook 5 times"), and how the tries end ("gives up", "dropped") is
part of their count, not of its subject; a unit is no value of its own ("1024 MiB" / "1
GiB", and "2 GB" / "2048 MB": decimal and binary units say one size), and a chat
channel ("#deploys") is a name, no plain word nor a name of another kind. "And then
...", ", including ...", ", using ...", "... because ...", "... so the ...", ", right
after standup" and a remark on a thing of its own (",
migration still not done") are clauses of their own; the event after which a statement
holds ("... after the load test") and a closing remark in brackets ("works offline
(cached data ...)") are left out. Of a count's words ("12 ingest
worker replicas") the last is what it counts, the others say which ones. An opposite said
by a phrase is read as its word ("keeps session state" is "stateful", "has no dependency
on" "does not depend on", "imports from" "depends on", "works offline" or "without a
network connection" "supports offline", "has no offline support" "does not support
offline"), and a verb of a compound negates it by its first part ("never
squash" / "squash-merge"). A language, cloud or database named right before a noun says
which things a statement is about ("the Python services" / "Go services").

A clause about the past ("used to", "previously", "at first", "back in 2022", "until last
quarter", "until then", "was owned by X until the reorg", "was on Python 3.9 until ...",
"until March", "before the fix, p99 was 1.2 s", "was 15 minutes before the complaints")
or about a change under way or planned ("is being rewritten in Go", "will migrate to
...", "will rise to 100 MB") contradicts nothing, nor does a state in the
past tense against one said to hold now
("the CI ran on Jenkins" / "our CI now runs on GitHub Actions"). Only what a statement
asserts is judged (`asserted`): a transcript's "[date] Speaker:" stamp is
taken off, and questions, greetings and short reactions are left out; two speakers each
saying "I" speak of two people. A note written as a label and its value ("Firmware owner:
Emeka Eze", "Warehouse: BigQuery") reads as "the label is the value".

In a store of facts most of a statement's neighbours agree, so some pairs are held apart
on purpose: a person's first or last name beside the full name is one holder; who holds a
thing and what the thing is fill two slots; a word beside its modifier is no pair of
ends; a version of a product the other statement never names, against another name, is
another thing ("Go 1.22" / "urfave/cli v2"). Every verdict has a confidence; talk marks (an
exclamation, words to "you") lower it, and only a verdict at CONFIDENT or above enters
the queue a person works through. The rest is kept and shown on request.

What the rules miss: a subject named by other nouns ("the support inbox" / "support
email", "the main branch" / "our default branch", "dates" / "timestamps", "the wire
format" / "service-to-service calls"), a subject narrowed on one side only ("the web
frontend" / "frontend builds", "database migrations" / "migrations", "the CI build
timeout" / "a build"), a count of one thing by two nouns ("12 machines" / "sixteen
runners"), a bare version away from its product ("the Go toolchain pinned in CI is
1.22"), a value named only by a word of its own ("the default 6379" against "port 6380",
"the 'prod' namespace"), a limit said as a direction ("from SDK 23 upwards" against a
maximum), an opposite said by a phrase they do not
know ("supports offline" / "needs a network connection", "retried" / "discarded without
another attempt"), verbs of one act in other words ("run migrations" / "apply
migrations"), a grouping ("partitioned by day" / "by month") and a preference or
negation in other words ("asked for light-theme screenshots", "must have a docstring" /
"never write docstrings"). Words to "you" keep a
clash out of the queue by design ("I'd rather you use ..."). What they wrongly flag: two
values that can coexist in one slot ("Bob maintains the CLI" / "Bob maintains the SDK";
"the CLI supports Windows" / "... macOS"). A model judge is the answer to both.
"""

import difflib
import functools
import hashlib
import itertools
import math
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from pydantic import Field, field_validator, model_validator

from . import contradiction_words as lexicon
from . import flows, schedules, short_forms, sources, value_categories
from .dedup import (
    _FUNCTION_WORDS,
    PREPOSITIONS,
    _stem,
    arrangement,
    conflicting_arrangement,
)
from .llm_json import StrictReply

NEGATION_OVERLAP = 0.6  # share of the negated clause's words the other clause must say
KEY_WORDS = 2  # shared words that pin the subject and slot of a changed value
RATE_ROUNDING = 0.01  # two rates this close are one, rounded in another unit
SAME_SUBJECT = 0.5  # share of their other words two statements of one subject have in common
SHORT_SLOT = 2  # words a swapped non-value may have
ANCHORED_CONTEXT = 3  # words of its own a statement on a named thing may add
SUBJECT_HEAD = 2  # content words that open a statement and name what it speaks of
# A verdict at or above this enters the open queue a person works through; below it the
# contradiction is kept and shown only on request. Whoever judged, the same rule.
CONFIDENT = 0.75
NO_RULE_CONFIDENCE = 0.5
ASSERTS_NOTHING_CONFIDENCE = 0.9  # a question cannot contradict a claim  # "no rule fired" is weak evidence that nothing conflicts
MAX_REASON = 500  # characters of a verdict's reason
# What the rules compare is a sentence or two; reading only this much keeps a judgement
# of two long memories (every clause against every clause) from taking minutes.
RULES_READ_CHARS = 2_000
MAX_CLAUSES = 20  # clauses of a statement compared one by one
MAX_SLOT_WORDS = 100  # content words beyond which two clauses are not aligned word by word


class JudgeVerdict(StrictReply):
    """Whether two statements contradict, why, and how sure the judge is."""

    contradicts: bool
    reason: str = Field(default="", max_length=MAX_REASON)
    confidence: float = Field(ge=0.0, le=1.0)

    @field_validator("reason", mode="before")
    @classmethod
    def _shortened(cls, reason):
        """A reason quoting two long memories is cut, never refused: refusing it used to
        fail the whole check, so long memories were never judged."""
        if isinstance(reason, str) and len(reason.strip()) > MAX_REASON:
            return reason.strip()[:MAX_REASON - 1] + "…"
        return reason


MAX_SLOT = 200  # characters of a model verdict's subject and of each value


class ModelVerdict(JudgeVerdict):
    """A model's verdict: a contradiction must name what it is about and the two values
    that conflict (a number, a version, a named choice, "does" / "does not", "A depends
    on B" / "B depends on A"), which must differ. A "contradiction" that cannot say them
    is refused and asked again, as any malformed reply is."""

    subject: str = Field(default="", max_length=MAX_SLOT)
    value_a: str = Field(default="", max_length=MAX_SLOT)
    value_b: str = Field(default="", max_length=MAX_SLOT)

    @model_validator(mode="after")
    def _names_the_conflict(self):
        if self.contradicts:
            if not (self.subject and self.value_a and self.value_b):
                raise ValueError("a contradiction must name its subject, value_a and value_b")
            if self.value_a.casefold() == self.value_b.casefold():
                raise ValueError("value_a and value_b are the same: that is no contradiction")
        return self


def described(verdict: JudgeVerdict) -> str:
    """The verdict's reason, led by the subject and the two values when a model named
    them: what a person reads in the queue."""
    subject = getattr(verdict, "subject", "")
    if not (verdict.contradicts and subject):
        return verdict.reason
    text = f"{subject}: {verdict.value_a!r} against {verdict.value_b!r}. {verdict.reason}"
    return text.strip()[:MAX_REASON]


def pair_key(a_hash: str, b_hash: str) -> str:
    """The cache key of a pair of content hashes, the same in either order."""
    low, high = sorted((a_hash, b_hash))
    return hashlib.sha256(f"{low}:{high}".encode()).hexdigest()


# --- Reading a statement ---------------------------------------------------------------------

_I = re.IGNORECASE
_CONTRACTIONS = [(re.compile(pattern, _I), replacement) for pattern, replacement in (
    # a possessive said of a thing is who holds it: "the ETL job is Rosa's", "the state
    # migration is on Ines's plate" (read before "'s" is dropped)
    (r"\b(is|are)\s+(?:on\s+)?([A-Z][\w-]*(?:\s+[A-Z][\w-]*)?)'s(?:\s+plate)?(?=\s*[.;,!]|\s*$)",
     r"\1 owned by \2"),
    (r"\bwon't\b", "will not"), (r"\bcan't\b", "can not"), (r"\bcannot\b", "can not"),
    (r"n't\b", " not"), (r"['\u2019]s\b", ""), (r"'re\b", " are"), (r"'m\b", " am"),
    (r"'ve\b", " have"), (r"'ll\b", " will"), (r"'d\b", " would"),
)]
_APOSTROPHE = str.maketrans({"\u2019": "'"})
_RAW_TOKEN = re.compile(r"[\w][\w.\-/:@]*[\w]|[\w]|%", re.UNICODE)
# Gaps are matched from the start of a whitespace run only: from every space of a long
# run, each would read the rest of the run again.
# ", not in Europe" denies another value beside the one the clause states: a clause of
# its own, so the statement is still read as saying its value; ", so ..." tells what
# follows from it, ", right after standup" what comes next to it.
_CLAUSE_BREAK = re.compile(r"(?<!\s)\s*;\s*|(?<!\s)\s+[\u2013\u2014-]\s+|,\s+(?=not\b)|,\s+(?=so\b)"
                           r"|,\s+(?=including\b|using\b|leaving\b|meaning\b)|(?:,|(?<![\s,]))\s+and\s+then\s+"
                           r"|,\s+(?=(?:right|just|straight)\s+(?:after|before)\b)"
                           r"|(?<![\s,])\s+so\s+(?=(?:that|the|we|it|they|our|a|an|i)\b)"
                           r"|,?\s+because\s+(?=\w+\s+\w+)"
                           # a remark on a thing of its own: "React 17, migration still not done"
                           r"|,\s+(?=[\w-]+\s+(?:still\s+|(?:is|are)\s+)?(?:not|pending)\b)"
                           r"|(?:,|(?<![\s,]))\s+\b(?:but|whereas|while)\b\s+"
                           r"|\.\s+(?=[A-Z])", _I)
# Words within one clause, a dot inside a number too ("was on Python 3.9 until ...").
_IN_CLAUSE = r"(?:[^.;]|\.(?=\d))"
_PAST = re.compile(r"\b(used to|previously|formerly|originally|initially|at first|in the past|"
                   r"back in \d{4}|back then|in the old days|in the early days|early on|"
                   r"in the beginning|"
                   r"until recently|"
                   r"until last \w+|until \w+ \w+ ago|until then|before that|up to then"
                   r"|until (?:q[1-4]|h[12])\b"
                   # a change under way or planned says what will be, not what is
                   r"|(?:is|are)\s+being\s+(?:re\w+|migrated|moved|ported|converted|switched)"
                   r"|(?:will|plans?\s+to|planning\s+to|going\s+to)\s+(?:be\s+)?"
                   r"(?:re\w+|migrated?|move[sd]?|port(?:ed)?|convert(?:ed)?|switch(?:ed)?"
                   r"|rise|grow|shrink|drop|go\s+(?:up|down)|(?:increas|decreas|rais|lower|bump"
                   r"|chang)(?:e|es|ed)?)"
                   # a state in the past tense that ended: "was owned by X until the reorg",
                   # "Team Atlas owned payments until ...", "was 15 minutes before the ..."
                   rf"|(?:was|were|had been|owned|ran|led|managed|maintained|hosted|used)\b"
                   rf"{_IN_CLAUSE}{{1,80}}?\buntil"
                   rf"|(?:was|were|had been)\b{_IN_CLAUSE}{{1,80}}?\bbefore\s+(?:the|we|our|it)\b"
                   # or one that ended at an event: "before the caching fix, p99 was 1.2 s",
                   # "until the region move, the primary was in Dublin"
                   # or at one ("when the platform launched, the region was us-east1")
                   rf"|^\s*(?:before|until|when|back\s+when)\b(?:[^,.;]|\.(?=\d)){{1,80}}?,?"
                   rf"{_IN_CLAUSE}*?"
                   rf"\b(?:was|were|had)\b"
                   # a period named by its year: "before 2021 we ran Resque"
                   r"|^\s*before\s+(?:(?:early|mid|late|spring|summer|autumn|fall|winter)\s+)?"
                   r"\d{4}\b"
                   r"|until\s+(?:(?:early|mid|late|the end of|spring|summer|autumn|fall|winter)"
                   r"\s+)?(?:january|february|march|"
                   r"april|may|june|july|august|september|october|november|december|\d{4}))\b",
                   _I)
# A state said in the past tense ("the CI ran on Jenkins", "v1 required Node 14") against
# one said to hold now ("our CI now runs on ...", "the current SDK requires ..."): a
# change told over time, not two claims about the present.
_NOW = frozenset({"now", "current", "currently", "nowadays", "today"})
_PAST_STATES = frozenset({"was", "were", "had", "ran", "required", "needed", "used",
                          "supported", "targeted", "depended", "relied", "lived"})
_ROLE = re.compile(r"\b(owns?|owned by|leads?|maintains?|is the|are the|is responsible for|"
                   r"is in charge of)\b", _I)
# "prefers X over Y": X is bounded and Y is the rest of the clause, taken without a
# pattern (two open-ended lazy groups tried every split of the text).
_PREFERENCE_ORDER = re.compile(
    r"\bprefers?\s+(.{1,120}?)\s+(?:over|to|rather than|instead of|than)\s+(?=\S)", _I)
# Where the passed-over choice of "prefers X over Y" ends: a phrase of its own.
_PHRASE_AFTER = re.compile(r"\s+(?=(?:in|for|when|with|because|on|at)\b)|\s*[,;]", _I)
# "prefers X" and what follows X: a phrase of its own ("for formatting") or the end.
_PLAIN_PREFERENCE = re.compile(r"\bprefers?\s+(.{1,120}?)(?=\s+(?:for|in|on|when|with|"
                               r"because)\b|\s*[.,;!]|\s*$)", _I)
_DENIED = re.compile(r"(?:\bnot|\bno|\binstead of|\brather than)\s+(?:the\s+|a\s+|an\s+)?"
                     r"([\w](?:[\w.\-/:@]*[\w])?)", _I)

NEGATORS = frozenset({"not", "no", "never"})
# Words that say "the opposite of like": read as "not like".
_DISLIKE = {"dislike": "like", "dislikes": "likes", "disliked": "liked", "hate": "like",
            "hates": "likes", "hated": "liked", "avoid": "use", "avoids": "uses",
            "avoided": "used", "skip": "use", "skips": "uses", "skipped": "used",
            "bypass": "use", "bypasses": "uses", "bypassed": "used"}
_POSITIVE_MARKERS = frozenset({"always"})
_COPULAS = frozenset({"is", "are", "was", "were", "be"})
_CHOOSING = frozenset({"use", "uses", "using", "prefer", "prefers", "choose", "chooses",
                       "pick", "picks"})
NUMBER_WORDS = {
    "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
    "seven": "7", "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12",
    "thirteen": "13", "fourteen": "14", "fifteen": "15", "sixteen": "16",
    "seventeen": "17", "eighteen": "18", "nineteen": "19", "twenty": "20", "thirty": "30",
    "forty": "40", "fifty": "50", "sixty": "60", "seventy": "70", "eighty": "80",
    "ninety": "90", "hundred": "100", "thousand": "1000",
}

# Units as _norm writes them: "minutes" is "minut", "bytes" is "byt".
_SECONDS = {"ms": 0.001, "millisecond": 0.001, "s": 1, "sec": 1, "second": 1, "min": 60,
            "minut": 60, "h": 3600, "hr": 3600, "hour": 3600, "day": 86400,
            "d": 86400, "week": 604800, "month": 2592000, "year": 31536000}
_BYTES = {"b": 1, "byt": 1, "kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12, "kib": 1024,
          "mib": 1024**2, "gib": 1024**3, "kilobyt": 1e3, "megabyt": 1e6, "gigabyt": 1e9,
          "terabyt": 1e12}
_NUMBER = re.compile(r"^\d+(?:\.\d+)*$")


@dataclass(frozen=True)
class Token:
    raw: str
    norm: str  # stemmed, casefolded, number words as digits
    at: int  # index among all the clause's words, function words included
    value: bool  # names a specific thing: a number, version, identifier or proper name
    opposite: bool = False  # read as "not" and its norm: "disabled" is "not enabled"


@dataclass(frozen=True)
class Clause:
    text: str
    raws: tuple[str, ...]  # every word as written, function words included
    tokens: tuple[Token, ...]  # the content words, polarity words left out
    negative: bool
    past: bool
    negated: str = ""  # the first content word a negation applies to ("use" in "don't use")
    exclusive: bool = False  # says "only": its value leaves no room for another

    @property
    def words(self) -> list[str]:
        return [raw.casefold() for raw in self.raws]

    @property
    def norms(self) -> list[str]:
        return [token.norm for token in self.tokens]

    def word_before(self, token: Token) -> str:
        return self.raws[token.at - 1].casefold() if token.at else ""


# Irregular past forms read as their verb: "the docs are built" says "we build the docs".
IRREGULAR = {"built": "build", "ran": "run", "written": "write", "wrote": "write",
             "kept": "keep", "held": "hold", "sent": "send", "made": "make", "done": "do",
             "gone": "go", "went": "go", "given": "give", "gave": "give", "taken": "take",
             "took": "take", "chosen": "choose", "chose": "choose", "known": "know",
             "shown": "show", "bought": "buy", "brought": "bring", "left": "leave",
             "found": "find", "told": "tell", "paid": "pay", "led": "lead"}


# Consonants an ending doubles ("pinned", "shipped"); "ss", "ll", "dd" are the word's own.
_DOUBLED = frozenset("bgmnprt")


def _acronym(raw: str) -> bool:
    return len(raw) > 1 and raw.isupper()


def _norm(word: str, raw: str = "") -> str:
    """dedup's stem, without a final "e", a final "y" as "i": "like", "likes" and "liked"
    are all "lik", "body" and "bodies" "bodi"; an acronym as written ("HTTPS" is not "HTTP")."""
    if _acronym(raw):
        return word
    stem = _stem(IRREGULAR.get(word, word))
    if stem != word and len(stem) > 3 and stem[-1] == stem[-2] and stem[-1] in _DOUBLED:
        stem = stem[:-1]  # "pinned" is "pin", "running" "run"
    # "body" is "bodies", "policy" "policies"; a word of a schedule ("every", "hourly")
    # stays as schedules.py reads it
    if (len(stem) > 3 and stem.endswith("y") and stem[-2] not in "aeiou"
            and word not in schedules.WORDS):
        stem = stem[:-1] + "i"
    return stem[:-1] if len(stem) > 3 and stem.endswith("e") else stem


def _is_value(raw: str, at: int) -> bool:
    if any(char.isdigit() for char in raw) or raw.casefold() in NUMBER_WORDS:
        return True
    if any(char in ".:/_@" for char in raw) or raw.count("-") >= 2:
        return True
    # a capital inside the word (GitHub, JSON), or on any word but the first
    return any(char.isupper() for char in raw[1:]) or (at > 0 and raw[:1].isupper())


# The whole of what is remembered as an owner: "the team's PR size cap" is the PR size
# cap; "our company's" and "the project's" narrow nothing either.
_WHOLE_POSSESSIVE = re.compile(r"(?<=\b(?:the|our|The|Our) )(?:team|company|org|organi[sz]ation|"
                               r"project|repo|repository|codebase)'s\s+")
_CODE_SPAN = re.compile(r"`([^`\n]{1,80})`")


def _same(word: str) -> str:
    """The word lexicon.SAME reads `word` as, a compound's parts each ("auth-service" is
    "authentication-service", "prod-db" "production-database")."""
    if word in lexicon.SAME or "-" not in word or _is_value(word, 0):
        # a name of its own keeps its parts: "prod-eu-1", "acme-media-prod"
        return lexicon.SAME.get(word, word)
    return "-".join(lexicon.SAME.get(part, part) for part in word.split("-"))


_PHRASES = [(re.compile(pattern, _I), replacement)
            for pattern, replacement in lexicon.PHRASES]


_STATE_VERBS = frozenset({"is", "are", "was", "were", "be", "been", "stays", "stay",
                          "remains", "remain", "left"})


def _undoing(word: str) -> str:
    """The participle a word undoes ("unpartitioned" undoes "partitioned", "unlimited"
    "limited"), or ""; not a word of its own ("united", "understood")."""
    if (word.startswith("un") and not word.startswith(("under", "unit", "unif", "union"))
            and len(word) > 6 and word.endswith(("ed", "able"))):
        return word[2:]
    return ""


def _undone(word: str, before: str, after: str) -> str:
    """The participle a state undoes ("is unpartitioned" is "is not partitioned", "are
    unversioned", "stays unlimited"), or "". Only a state said of the subject: "unfinished
    work" names a thing, "is unloaded out of Snowflake" is an action."""
    if (before in _STATE_VERBS and after not in PREPOSITIONS
            and after not in lexicon.MORE_PREPOSITIONS
            and after not in ("out", "off", "up", "down")):
        return _undoing(word)
    return ""


def read_clause(text: str) -> Clause:
    text = _WHOLE_POSSESSIVE.sub("", short_forms.spell_out(text.translate(_APOSTROPHE)))
    for pattern, replacement in (*_CONTRACTIONS, *_PHRASES):
        text = pattern.sub(replacement, text)
    found = list(_RAW_TOKEN.finditer(text))
    raws = [match.group() for match in found]
    # a word in a code span is a name of its own ("the `new-checkout` flag")
    code = {raw for span in _CODE_SPAN.findall(text) for raw in _RAW_TOKEN.findall(span)}
    # so is a chat channel, apart from the word it is made of ("#deploys" / "deploys")
    channels = {at for at, match in enumerate(found) if text[match.start() - 1:match.start()] == "#"
                and not text[max(0, match.start() - 2):match.start() - 1].isalnum()}
    tokens, negations, negated, exclusive = [], 0, "", False
    for at, raw in enumerate(raws):
        word = _same(raw.casefold())
        undone = _undone(word, raws[at - 1].casefold() if at else "",
                         raws[at + 1].casefold() if at + 1 < len(raws) else "")
        opposite = word in _DISLIKE or word in lexicon.OPPOSITES or bool(undone)
        if opposite:
            # "dislikes X" is "not likes X", "disabled" is "not enabled", "unsigned" "not
            # signed"
            negations += 1
            word = _DISLIKE.get(word) or lexicon.OPPOSITES.get(word) or undone
        if word in NEGATORS:
            negations += 1
            continue
        if word in lexicon.EXCLUSIVE:
            exclusive = True
            continue
        # "US" is a region, not "us": an acronym is no function word
        if (word in _FUNCTION_WORDS and not _acronym(raw)) or word in _POSITIVE_MARKERS:
            continue
        # a short form is no acronym once written out: "DB" is "database"
        norm = NUMBER_WORDS.get(word) or _norm(word, raw if word == raw.casefold() else "")
        if negations and not negated and word not in lexicon.TIME_WORDS:  # "no longer uses"
            negated = norm
        # a short form written out is a common noun ("DB" is "database"), no name
        value = (_is_value(raw, at) and word == raw.casefold()) or raw in code or at in channels
        if at in channels:
            norm = "#" + norm
        tokens.append(Token(raw, norm, at, value, opposite))
    return Clause(text.strip(), tuple(raws), tuple(tokens), negative=negations % 2 == 1,
                  past=bool(_PAST.search(text)), negated=negated, exclusive=exclusive)


# --- What a statement asserts -----------------------------------------------------------------

# A transcript's line stamp: "[8 May 2023] Caroline: ..." (a date, then who spoke).
_STAMP = re.compile(r"^\s*(?:\[[^\]\n]{1,60}\]\s*)?(?:(?P<speaker>[A-Z][\w.'-]{0,30}"
                    r"(?: [A-Z][\w.'-]{0,30})?):\s+)?")
_FIRST_PERSON = re.compile(r"\b(i|i'm|i've|i'd|i'll|me|my|mine|myself)\b", _I)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
# Words that open a reaction rather than a claim: greetings, thanks, agreement, feelings.
REACTIONS = frozenset({"hi", "hey", "hello", "thanks", "thank", "wow", "whoa", "yep",
                       "yeah", "yes", "yup", "nope", "ok", "okay", "cool", "awesome",
                       "great", "nice", "lol", "haha", "bye", "congrats", "congratulations",
                       "sure", "absolutely", "totally", "aw", "aww", "oh", "ooh", "omg",
                       "sounds", "glad", "sorry", "welcome", "agreed", "exactly", "indeed",
                       "definitely", "love", "hope", "hahaha"})
REACTION_WORDS = 6  # a sentence opened by a reaction word and shorter than this is a reaction
CLAIM_WORDS = 2  # content words a sentence needs to claim something


def _claims(sentence: str) -> bool:
    """Whether a sentence asserts something: not a question, not a greeting or reaction,
    not too short to say anything."""
    sentence = sentence.strip()
    if sentence.endswith("?"):
        return False
    raws = _RAW_TOKEN.findall(sentence)
    content = [raw for raw in raws if raw.casefold() not in _FUNCTION_WORDS]
    if len(content) < CLAIM_WORDS:
        return False
    opens_with_reaction = bool(raws) and raws[0].casefold() in REACTIONS
    return not (opens_with_reaction and (sentence.endswith("!")
                                         or len(content) < REACTION_WORDS))


# Marks of talk addressed to someone rather than a fact put on record: each lowers a
# verdict's confidence, so a clash between two chat lines is kept but not queued.
_ADDRESSED = re.compile(r"\b(you|your|yours|you're|you've|you'll|ya)\b", _I)
TALK_PENALTY = 0.1  # per mark: an exclamation, words to "you"
LONG_SWAP = 3  # words a changed value may span before the verdict is less sure


def talk_marks(text: str) -> int:
    """How much a statement reads as conversation: an exclamation, words to "you"."""
    return int("!" in text) + int(bool(_ADDRESSED.search(text)))


def asserted(text: str) -> str:
    """The part of a statement that asserts something: its line stamp taken off, and its
    questions, greetings and reactions left out. Empty when it asserts nothing."""
    text = text[:RULES_READ_CHARS]
    stamp = _STAMP.match(text)
    text = _labelled_in_one_word(stamp, text[stamp.end():]) or text[stamp.end():]
    return " ".join(_LABELLED.sub(r"\g<label> is \g<value>", s)
                    for s in _SENTENCE_END.split(text.strip()) if s.strip() and _claims(s))


def _labelled_in_one_word(stamp: re.Match, rest: str) -> str | None:
    """A note such as "Warehouse: BigQuery (project riverbed-prod)" read as "Warehouse is
    BigQuery ...". _STAMP takes a word before a colon for a speaker's name, as a chat
    turn has it ("Lena: Thanks!", "[8 May 2023] Caroline: 3 kids now!"); it is a label
    only outside a dated transcript line, when what follows is a short note with no
    sentence of its own that opens on a known product, or is a number alone ("Replicas:
    3", "Port: 7777/udp"). None when it is no such note."""
    label, words = stamp["speaker"], rest.split()
    if (not label or (" " in label and not _names_a_thing(label))
            or stamp.group().lstrip().startswith("[")
            or not 1 <= len(words) <= 8 or _SENTENCE_END.search(rest.strip())
            or _FIRST_PERSON.search(rest) or any(w.casefold() in _COPULAS for w in words)):
        return None  # a sentence of its own: "Melanie: Postgres is great"
    first = words[0].strip(".,;()!").casefold()
    if not (value_categories.members((first,))
            or (len(words) == 1 and _VERSION_LIKE.match(first))
            or _names_a_holder(label, words)):
        return None
    return f"{label} is {rest}"


def _names_a_thing(label: str) -> bool:
    """Whether a label of two words names a thing, not a speaker: it has an acronym or
    says which environment or side ("Staging DB", "Prod API")."""
    words = tuple(label.split())
    return any(_acronym(word) for word in words) or bool(value_categories.qualifiers(words))


HOLDER_WORDS = 3  # "Owner: Priya", "On-call: Ana María Ruiz"


def _names_a_holder(label: str, words: Sequence[str]) -> bool:
    """Whether a label of one word is a role ("Owner", "Reviewer", "On-call") and what
    follows is a name that holds it, no reaction: no chat speaker is called "Owner"."""
    role = label.casefold()
    return ((role in lexicon.ROLE_NOUNS or role in lexicon.ROLE_STATES)
            and len(words) <= HOLDER_WORDS
            and all(_capitalised(word) and word.strip(".,;!").casefold() not in REACTIONS
                    for word in words))


# A note written as a label of two to five words and its value ("Firmware owner: Emeka
# Eze", "Storefront Node runtime: 20 LTS") says the label is the value.
_LABELLED = re.compile(r"^(?P<label>[A-Za-z][\w/.-]*(?:\s+[\w/.-]+){1,4}):\s+"
                       r"(?P<value>\S+(?:\s+\S+){0,7})$")


def clauses(text: str) -> list[Clause]:
    """The whole statement, then each of its clauses when it has more than one (the first
    MAX_CLAUSES of the first RULES_READ_CHARS characters)."""
    text = text[:RULES_READ_CHARS]
    parts = [part for part in _CLAUSE_BREAK.split(text.strip()) if part.strip()][:MAX_CLAUSES]
    # a clause without the reason it gives ("WARNING to keep logging costs down" says
    # WARNING): the reason is no clause of its own
    stated = [_REASON.sub("", _PURPOSE.sub("", part)) for part in parts]
    if len(parts) == 1 and stated[0] == parts[0]:
        return [read_clause(text)]
    return [read_clause(text)] + [read_clause(_named_again(part, before))
                                  for part, before in zip(stated, ["", *stated])]


# A reason given after what is said: "... to keep costs down", "... in order to save
# time"; not a verb's object ("wants to keep PRs small").
_PURPOSE = re.compile(r"(?<!\bwant)(?<!\bwants)(?<!\bneed)(?<!\bneeds)(?<!\blike)(?<!\blikes)"
                      r"(?<!\bprefer)(?<!\bprefers)(?<!\btry)(?<!\btries)(?<!\bhave)"
                      r"(?<!\bhas)(?<!\bused)(?<!\bgoing)(?<!\bplan)(?<!\bplans)"
                      r"\s+(?:in\s+order\s+)?to\s+(?:keep|save|avoid|reduce|cut|lower|speed|"
                      r"prevent|stay|match|ensure|limit|protect|preserve|free|spare)\b[^.;,]*", _I)
# ... or said as one: "for GDPR reasons", "mostly because of cost", "due to a vendor bug".
_REASON = re.compile(r"\s+(?:for\s+(?:[\w-]+\s+){1,2}reasons?\b|(?:(?:mostly|mainly|partly)\s+)?"
                     r"(?:because|due\s+to)\b)[^.;,]*", _I)
# A clause that opens on a pronoun and its verb: "it is not idempotent".
_PRONOUN_OPENING = re.compile(r"^\s*(?:it|they)\s+(?=(?:is|are|isn't|aren't|does|do|doesn't|"
                              r"don't|has|have|can|cannot|can't|will|won't|never|only)\b)", _I)


def _named_again(part: str, before: str) -> str:
    """A clause that opens on "it" or "they" with the name of the clause before it in
    their place ("replaying into notification-worker sends duplicates - it is not
    idempotent": notification-worker is not); else the clause as written."""
    opening = _PRONOUN_OPENING.match(part)
    if not opening or not before:
        return part
    names = [token.raw for token in read_clause(before).tokens
             if token.value or _thing_name(token.raw, token.at)]
    return f"{names[0]} {part[opening.end():]}" if names else part


# --- Measures: "5 minutes", "10 MB", "3 replicas", "Python 3.11" ------------------------------

def _number(word: str) -> float | None:
    word = NUMBER_WORDS.get(word, word)
    if re.fullmatch(r"\d+(?:\.\d+)?", word):
        return float(word)
    return None


def measures(words: Sequence[str], raws: Sequence[str] = ()) -> dict:
    """{what is measured: value} for each number with a unit, a number of things ("3
    replicas", "100 requests per minute") or a named version ("Python 3.11", given the
    raw words to see the capital)."""
    found = schedules.schedule(words)
    for word in words:
        # an image and its tag ("python:3.11", "node:20"), not a host and its port
        if (tagged := _IMAGE_TAG.match(word)) and tagged.group(1) != "localhost" and (
                "." in tagged.group(2) or len(tagged.group(2)) <= 2):
            found[f"version of {tagged.group(1)}"] = tagged.group(2)
        elif address := _HOST_PORT.match(word):  # "grafana.internal:3000"
            found["port"] = float(address.group(1))
    rated = set()  # where a rate's unit is said with "a": "1000 requests a minute"
    for i, word in enumerate(words):
        if i in rated:
            continue
        following = words[i + 1] if i + 1 < len(words) else ""
        # "for a full year" is a year: a word that only stresses the whole of one unit
        if word in ("a", "an") and following in _WHOLE and i + 2 < len(words):
            following = words[i + 2]
        unit = _norm(following)
        # "after the fifth retry", "on the 3rd attempt": how many tries
        if word in _ORDINALS and (tries := _attempts(words, i, unit, _ORDINALS[word])) and (
                unit != "tim"):
            found["attempts"] = tries
            continue
        amount = 1.0 if word in ("a", "an") else _number(word)
        # "every 6 hours", "once a day" are how often, which the schedule says
        if amount is None or _number(following) is not None or (
                i and words[i - 1] in _HOW_OFTEN):
            continue
        if unit in _SECONDS:
            found["duration"] = amount * _SECONDS[unit]
        elif unit in _BYTES:
            found["size"] = amount * _BYTES[unit]
        elif word in ("a", "an"):
            continue
        elif unit in _PERCENT:
            found["percent"] = amount
        elif unit == _NINES and 1 < amount < 10:  # "three nines" is 99.9 %
            found["percent"] = round(100 - 10 ** (2 - amount), 6)
        elif attempts := _attempts(words, i, unit, amount):
            found["attempts"] = attempts
        elif i and words[i - 1] == "port":  # "port 8081 when run locally"
            found["port"] = amount
        elif (raws and i > 0 and _capitalised(raws[i - 1]) and _NUMBER.match(word)
              and "per" not in words[i + 2:i + 2 + COUNTED_RUN]  # "API: 500 req per min"
              and words[i - 1] not in _CALENDAR):  # "March 3" is a day
            # a product of several words is named whole ("React Native 0.73")
            found[f"version of {_product_ending(raws, i - 1) or words[i - 1]}"] = word
        elif (following and following not in _FUNCTION_WORDS and following not in NEGATORS
              and following not in lexicon.CONJUNCTIONS):
            # "4 worker processes" counts processes: the last word of the run counts too
            end = _counted_run(words, i)
            per = (_norm(words[end + 2]) if end + 2 < len(words) and (
                words[end + 1] == "per" or words[end + 1] in ("a", "an")
                and _norm(words[end + 2]) in _SECONDS) else "")
            if words[end + 1:end + 2] in (["a"], ["an"]) and per:
                rated.add(end + 1)
            for counted in {unit, _norm(words[end])}:
                if per in _SECONDS:  # a rate, per hour whatever its unit: 100/min is 6000/h
                    found[f"{counted}/hour"] = round(amount * _SECONDS["hour"] / _SECONDS[per], 6)
                else:
                    found[counted + (f"/{per}" if per else "")] = amount
                    if per:  # "50 items per page" is 50 items
                        found.setdefault(counted, amount)
        elif (i and words[i - 1].isalpha() and words[i - 1] not in _FUNCTION_WORDS
              and words[i - 1] not in PREPOSITIONS and words[i - 1] not in lexicon.BOUND_WORDS):
            # "port 9090", "level 3"; a version as written ("1.30" is not "1.3")
            found.setdefault(_norm(words[i - 1]),
                             word if _names_a_version(words[i - 1]) else amount)
        # "a line length of 88", "the minimum password length is 8": what the number is,
        # unless a unit says it ("the TTL is 5 minutes" is a duration, 300 seconds too)
        if (i >= 2 and words[i - 1] in _NAMING and words[i - 2] not in _FUNCTION_WORDS
                and _number(words[i - 2]) is None and word not in ("a", "an")
                and not (unit in _SECONDS or unit in _BYTES or unit in _PERCENT)):
            found.setdefault(_norm(words[i - 2]),
                             word if _names_a_version(words[i - 2]) else amount)
            # "the minimum SDK is 26" names the version of the SDK, as "SDK 23" does
            if raws and _capitalised(raws[i - 2]) and _NUMBER.match(word):
                found.setdefault(f"version of {words[i - 2]}", word)
    # "our Kubernetes version is 1.30" names the version of Kubernetes
    # "Postgres on the analytics cluster is version 14": the known product before it
    # ("versions" is counted under "version" too, so its place is found by its stem)
    if "version" in found and (product := _named_before(words, raws, "version")
                               or _known_before(raws, next(
                                   i for i, w in enumerate(words) if _norm(w) == "version"))):
        found.setdefault(f"version of {product}", found.pop("version"))
    # "our ClickHouse cluster is on 23.8": a dotted number is the version of the name
    # that comes last before it, when nothing else is
    if raws and not any(key.startswith("version of ") for key in found):
        for i, word in enumerate(words):
            # "5.3.x" is the 5.3 series
            if _DOTTED.match(word) and (name := _last_name(raws, i)):
                found[f"version of {name}"] = word.removesuffix(".x")
                break
    # a setting whose name ends on its unit: "retention.ms = 259200000", "timeout_s: 30"
    for i, word in enumerate(words):
        if (unit := _UNIT_KEY.match(word)) and (amount := next(
                (_number(after) for after in words[i + 1:i + 5] if _number(after) is not None),
                None)) is not None:
            if (seconds := _SECONDS.get(_norm(unit.group(1)))) is not None:
                found["duration"] = amount * seconds
            elif (size := _BYTES.get(_norm(unit.group(1)))) is not None:
                found["size"] = amount * size
    # a setting named for a product's version: "rust-version = 1.74", "node_version: 20"
    for key in [key for key in found if _VERSION_KEY.match(key)]:
        found.setdefault(f"version of {_VERSION_KEY.match(key).group(1)}", found.pop(key))
    # a known product glued to its version as cloud consoles write it: "POSTGRES_13"
    for word in words:
        if (glued := _GLUED_RELEASE.match(word)) and value_categories.members((glued.group(1),)):
            found.setdefault(f"version of {glued.group(1)}", glued.group(2))
    # "20 items per page" and "a page size of 20" say one thing: how many a page holds
    per_page = [amount for key, amount in found.items() if key.endswith(("/pag", "pag"))]
    amounts = [_number(word) for word in words if _number(word) is not None]
    if per_page or ("page", "size") in itertools.pairwise(words) and len(amounts) == 1:
        found["page size"] = per_page[0] if per_page else amounts[0]
    # a product by the name its category knows it by: "EKS 1.29" is a Kubernetes version
    return {_known_as(key): value for key, value in found.items()}


def _names_a_version(word: str) -> bool:
    """Whether the word before a number names a version, kept as written ("1.30" is not
    "1.3"): "version", "rust-version"."""
    return word == "version" or bool(_VERSION_KEY.match(word))


def _known_as(key: str) -> str:
    name = key.removeprefix("version of ")
    if name == key:
        return key
    known = value_categories.members((name,))
    return f"version of {known[0].member}" if len(known) == 1 else key


_DOTTED = re.compile(r"^\d+\.\d+(?:\.\d+|\.x)?$")
_GLUED_RELEASE = re.compile(r"^([a-z]+)_(\d+(?:\.\d+)*)$")
_VERSION_KEY = re.compile(r"^([a-z]+)[-_]version$")
_UNIT_KEY = re.compile(r"^[a-z][\w.-]*?[._-](ms|millis|s|sec|secs|seconds|m|min|mins|minutes|h|"
                       r"hours|d|days|bytes|kb|mb|gb|kib|mib|gib)$")
_NINES = _norm("nines")
NAME_REACH = 5  # words back a dotted version looks for the name it belongs to


def _last_name(raws: Sequence[str], at: int) -> str:
    """The last name (a capital after the first word, or inside a word) among the few
    words before `at`; a known product first ("the Go toolchain pinned in CI is 1.22")."""
    reach = range(at - 1, max(0, at - NAME_REACH) - 1, -1)
    known = {i for found in value_categories.members(tuple(raws)) for i in found.at}
    # a known product written as a name is one as the first word too ("Django is pinned
    # at 5.2")
    # and so is one right before the version, as a pin writes it ("torch==2.3.0")
    names = [i for i in reach if (_is_value(raws[i], i) or (i == 0 and i in known
                                                            and _capitalised(raws[i]))
                                  or (i == at - 1 and i in known))
             and not any(char.isdigit() for char in raws[i])]
    chosen = next((i for i in names if i in known), names[0] if names else None)
    return "" if chosen is None else raws[chosen].casefold()


def _product_ending(raws: Sequence[str], at: int) -> str:
    """The known product (value_categories) whose name ends at `at`, if one does."""
    return next((found.member for found in value_categories.members(tuple(raws))
                 if max(found.at) == at), "")


def _known_before(raws: Sequence[str], at: int) -> str:
    """The last known product (value_categories) named before `at`, however far."""
    ends = [max(found.at) for found in value_categories.members(tuple(raws)) if max(found.at) < at]
    return raws[max(ends)].casefold() if ends else ""


def _named_before(words: Sequence[str], raws: Sequence[str], noun: str) -> str:
    """The name written with a capital right before `noun` ("Kubernetes version")."""
    at = list(words).index(noun) if noun in words else 0
    return words[at - 1] if raws and at > 0 and _capitalised(raws[at - 1]) else ""


def _capitalised(raw: str) -> bool:
    """Whether a word is written as a name: "Python", "iOS", "macOS"."""
    return any(char.isupper() for char in raw) and raw.casefold() not in _FUNCTION_WORDS


COUNTED_RUN = 3  # words after a number that may name what it counts ("4 worker processes")


def _counted_run(words: Sequence[str], i: int) -> int:
    """The index of the last word of the run after the number at `i` that names what it
    counts: no function word, number, linking verb or "-ing" form ("3 replicas running")."""
    end = i + 1
    while (end + 1 < len(words) and end + 1 - i <= COUNTED_RUN
           and words[end + 1] not in _FUNCTION_WORDS and words[end + 1] not in PREPOSITIONS
           and _number(words[end + 1]) is None and words[end + 1] not in lexicon.LINKING_VERBS
           and not words[end + 1].endswith("ing")):
        end += 1
    return end


@functools.lru_cache(maxsize=4096)  # a judgement asks again of every clause it compares
def _measures_of(raws: tuple[str, ...]) -> dict:
    return measures([raw.casefold() for raw in raws], raws)


# An address with its port ("grafana.internal:3000", "http://localhost:8080/health").
_HOST_PORT = re.compile(r"^(?:[a-z][a-z0-9+.-]*://)?[a-z0-9.-]*[a-z][a-z0-9.-]*"
                        r":(\d{2,5})(?:/\S*)?$")
# What says how many a page holds, beside its number: "20 items per page", "page size".
_PAGE_WORDS = frozenset(_norm(word) for word in ("page", "size", "per", "items", "results",
                                                 "entries", "records", "rows"))
_IMAGE_TAG = re.compile(r"^(?:[\w.-]+/)*([a-z][a-z0-9_-]*):v?(\d+(?:\.\d+)*)$")
_PERCENT = frozenset({"%", "percent", "pct"})
_SCHEDULE_WORDS = frozenset(_norm(word) for word in schedules.WORDS)
_VERSION_NOUNS = frozenset(_norm(word) for word in value_categories.VERSION_NOUNS)
_VERSION_RUNNERS = frozenset(_norm(word) for word in value_categories.RUNNING_NOUNS)
_ADMITTING = frozenset(_norm(word) for word in lexicon.ADMITTING)
_TRYING = frozenset(_norm(word) for word in lexicon.TRYING)
_CALENDAR = frozenset({*schedules.MONTHS, *schedules.WEEKDAYS})
# The nouns that name a kind of measure ("the max upload size is 10 MB"): what is
# measured, not of what.
_MEASURE_NOUNS = {"size": {_norm(word) for word in ("size", "sizes")},
                  "percent": {_norm(word) for word in ("percentage", "share", "ratio")}}
_HOW_OFTEN = frozenset({"every", "each", "per", "times", *schedules.TIMES})
# Measures with a kind of their own, whatever their unit: not a count of something.
_MEASURE_KINDS = frozenset({"duration", "size", "percent", "attempts", "period", "weekday",
                            "day of year"})
_SCHEDULE_KEYS = frozenset({"period", "weekday", "day of year"})
_RETRIES = frozenset({"retri", "retry"})  # as _norm writes "retries", "retried", "retry"
_ORDINALS = {word: float(at) for at, words in enumerate(
    ("", "first 1st", "second 2nd", "third 3rd", "fourth 4th", "fifth 5th", "sixth 6th",
     "seventh 7th", "eighth 8th", "ninth 9th", "tenth 10th")) for word in words.split()}
_WHOLE = frozenset({"full", "whole", "single", "entire"})
_COUNTING = frozenset({"tim", "attempt", "tri", *_RETRIES})
_NAMING = frozenset({"of", "is", "are", "="})


def _attempts(words: Sequence[str], i: int, unit: str, amount: float) -> float | None:
    """How many attempts a count of tries says: "gives up after 3 attempts" is 3,
    "retried 5 times" and "5 retries" are 6 (the first try and five more)."""
    if unit in ("attempt", "tri"):
        return amount
    # the verb may come before what it retries ("retries a failed webhook 5 times")
    retried = unit == "tim" and _RETRIES & {_norm(word) for word in words[:i]}
    return amount + 1 if unit in _RETRIES or retried else None


# --- Subjects: what a statement is about ------------------------------------------------

_LINKING = frozenset(_norm(word) for word in lexicon.LINKING_VERBS)
_TIME = frozenset(_norm(word) for word in lexicon.TIME_WORDS)
_DIMENSIONS = {_norm(word): _norm(noun) for word, noun in lexicon.DIMENSIONS.items()}
_VERB_KINDS = {_norm(verb): kind for kind, verbs in lexicon.VERB_KINDS.items()
               for verb in verbs.split()}
_KINDS = frozenset(lexicon.VERB_KINDS)
DERIVED_STEM = 5  # letters two words must share before they are read as kin
KIN_ENDING = 2  # letters of the shorter word that may differ from its kin's


@dataclass
class Subject:
    """What a statement is about: for each of its tokens that says it, the word it adds
    (its stem, a compound's last part, a dimension's noun, or a kin word's stem)."""

    clause: Clause
    words: dict[int, str]

    def word(self, at: int) -> str:
        return self.words.get(at, self.clause.tokens[at].norm)

    @property
    def key(self) -> set[str]:
        # a compound by its parts: "type-check" says what "type checking" says
        return {part for word in self.words.values() for part in word.split("-")}


_CONFIG_FILE = re.compile(r"^\.?([a-z][\w-]*)\.(?:ini|conf|cfg|toml|ya?ml|json|properties)$")
# Nouns that name a running piece of software by what it is: "the search API", "the
# search service", "search-svc" and "the search server" are one thing.
_RUNNING_THINGS = {_norm(word): "servic" for word in lexicon.RUNNING_THINGS}


def subject(clause: Clause, leave_out, *, opposites: bool = True) -> Subject:
    """The words of `clause` that say what it is about: not those `leave_out(token)`
    picks (its values, or its measures), nor prepositions, verbs that only tie a subject
    to its value ("runs on", "lives in"), words of bounds and settings ("capped at",
    "configured with"), of time ("now") or of addition ("also"). With `opposites`, an
    opposite word stays apart from the word it opposes; a negation compares them."""
    found = {}
    for at, token in enumerate(clause.tokens):
        raw = token.raw.casefold()
        if (leave_out(token) or raw in PREPOSITIONS or raw in lexicon.MORE_PREPOSITIONS
                or raw in lexicon.ADDITIVE
                or raw in lexicon.PRONOUNS
                or raw in lexicon.QUANTIFIERS or raw in lexicon.CONJUNCTIONS
                or _linking(raw) or raw in lexicon.BOUND_WORDS or token.norm in _TIME):
            continue
        # a tool's configuration file is the tool's: "pgbouncer.ini" says "pgbouncer"
        if config := _CONFIG_FILE.match(raw):
            raw = config.group(1)
            token = replace(token, norm=_norm(raw))
        # a setting named with its unit is named without it ("retention.ms" is retention)
        if unit := _UNIT_KEY.match(raw):
            raw = raw[:unit.start(1) - 1]
            token = replace(token, norm=_norm(raw))
        # a setting's snake_case name says its words, as a compound does ("refresh_token")
        if "_" in raw.strip("_"):
            raw = raw.strip("_").replace("_", "-")
            token = replace(token, norm=_norm(raw))
        # "per-file" is "file": a compound's parts that are not function words
        # each part stemmed as a word of its own ("billing-service" is "billing service")
        # (split before stemming: "tidepool-ios" is "tidepool" "ios", not "tidepool" "io")
        whole = _same(raw)
        parts = ([_norm(part) for part in whole.split("-")] if "-" in token.norm and "-" in whole
                 else token.norm.split("-"))
        parts = [part for part in parts
                 if part and part not in _FUNCTION_WORDS and part not in PREPOSITIONS]
        if parts:
            word = "-".join(_RUNNING_THINGS.get(part, part) for part in parts)
            word = _DIMENSIONS.get(word) or _VERB_KINDS.get(word, word)
            # "asynchronous jobs" are not "synchronous calls" said another way
            found[at] = f"not {word}" if opposites and token.opposite else word
    return Subject(clause, found)


_DERIVED_ENDINGS = frozenset({"", "e", "i", "y", "s", "c", "n", "in", "al", "er", "or", "ur",
                              "ic", "iti", "ion", "ment", "ement", "ator", "ation", "ive",
                              "ing", "ed", "ist", "ism", "ness"})


def _kin(a: Subject, b: Subject) -> None:
    """Read two words as one when they share a stem and differ only in their endings
    ("inactive" and "inactivity", "deploy" and "deployment", "manager" and
    "management"): what is said only by one of them."""
    only_a, only_b = a.key - b.key, b.key - a.key
    for x, y in itertools.product(only_a, only_b):
        stem = os.path.commonprefix([x, y])
        # endings a word takes as it is derived, not a name's own letters ("quarryd" is
        # no form of "quarry", "sync_token" none of "sync")
        if (len(stem) >= DERIVED_STEM and len(stem) >= min(len(x), len(y)) - KIN_ENDING
                and {x[len(stem):], y[len(stem):]} <= _DERIVED_ENDINGS):
            for side in (a, b):
                side.words.update({at: stem for at, word in side.words.items()
                                   if word in (x, y)})


def _modifies(subject_of: Subject, unique: set[str], shared: set[str]) -> bool:
    """Whether a word only this statement says (not a number) stands right before a word
    both say, as "free" in "the free plan" or "API" in "the API server": then the two
    are about different things. A function word between them starts a new phrase
    ("scale the API", "the endpoint is served"), and a word after a pronoun, "to" or an
    auxiliary is a verb ("we process background jobs", "users can upload files"), as is
    an "-s" form after its subject ("Renovate checks"), so neither is a modifier."""
    clause = subject_of.clause
    tokens = clause.tokens
    return any(subject_of.word(i) in unique and subject_of.word(i + 1) in shared
               and _number(token.norm) is None
               and token.raw.casefold() not in _DISLIKE  # a verb: "skip type hints"
               # an instruction's verb: "write docs in British English"
               and not (token.at == 0 and subject_of.word(i) in _KINDS)
               and not _FUNCTION_WORDS & set(clause.words[token.at + 1:after.at])
               and clause.word_before(token) not in lexicon.BEFORE_A_VERB
               and clause.word_before(after) not in lexicon.BEFORE_A_VERB
               and not _verb_after_its_subject(clause, token)
               and not _verb_after_its_subject(clause, after)
               # a participle after "are" is the verb: "backups are stored unencrypted"
               and not (clause.word_before(token) in _COPULAS and _participle(token.raw))
               for i, (token, after) in enumerate(itertools.pairwise(tokens)))


def _verb_after_its_subject(clause: Clause, token: Token) -> bool:
    """Whether a word reads as a verb said of the word before it: an "-s" form right after
    a word that opens no phrase ("the CLI supports Windows", "Renovate checks"); after
    "the" it is a noun ("the payments service")."""
    raw = token.raw.casefold()
    before = clause.word_before(token)
    after = clause.words[token.at + 1] if token.at + 1 < len(clause.words) else ""
    # a plural before "are" is a noun: "billing logs are kept"
    return (raw.endswith("s") and not raw.endswith(("ss", "us", "is")) and token.at > 0
            and after not in _COPULAS and after not in ("have", "get", "need")
            and before not in _FUNCTION_WORDS and before not in PREPOSITIONS
            and before not in lexicon.QUANTIFIERS and _number(before) is None)


def _in_phrase(subject_of: Subject, unique: set[str], shared: set[str] = frozenset()) -> bool:
    """Whether a word only this statement says sits after a preposition ("for caching"):
    a value beside it fills that role, maybe not the other statement's. A verb of a kind
    ("... of the service are deployed") is no object of one."""
    clause = subject_of.clause
    slots = arrangement(clause.text).slots

    def slot(token: Token) -> str:
        return slots.get(token.norm) or slots.get(token.raw.casefold()) or ""

    # a phrase whose word of its own comes after words both statements say restates the
    # subject ("the TTL for the product-page cache"): it narrows nothing; one before them
    # narrows them ("for free users")
    restated = [(slot(token), token.at) for at, token in enumerate(clause.tokens)
                if subject_of.word(at) in shared and slot(token)]
    # "in the repo", "across the codebase": the whole of what is remembered narrows nothing
    return any(slot(token) and not any(there == slot(token) and at_shared < token.at
                                       for there, at_shared in restated)
               for at, token in enumerate(clause.tokens)
               if subject_of.word(at) in unique - _KINDS and not token.value
               and token.norm not in _WHOLE_SCOPE)


def _linking(raw: str) -> bool:
    """Whether a word (as written) is a verb that only ties a subject to its value:
    "runs", "ran", "lives"; not "base" in "the base image"."""
    return IRREGULAR.get(raw, raw) in lexicon.LINKING_VERBS


def _phrased_apart(a: Subject, unique_a: set[str], b: Subject, unique_b: set[str],
                   manner: bool, shared: set[str] = frozenset()) -> bool:
    """Whether a statement says words of its own after a preposition ("uses Redis for
    caching"). Of a manner ("warmed lazily" / "warmed eagerly at startup") a phrase on
    one side only narrows when, not what: both must have one."""
    phrased = _in_phrase(a, unique_a, shared), _in_phrase(b, unique_b, shared)
    return all(phrased) if manner else any(phrased)


def _settle(a: Subject, b: Subject) -> None:
    """Make two subjects comparable: kin words read as one, and a kind of verb ("stored")
    left out when the other statement has neither one nor any word of its own ("secrets
    live in ..."); against "we monitor the API" the verb of "we deploy the API" stays."""
    _kin(a, b)
    for side, other in ((a, b), (b, a)):
        if not other.key & _KINDS and not other.key - side.key - _KINDS:
            side.words = {at: word for at, word in side.words.items() if word not in _KINDS}


def subject_match(a: Subject, b: Subject,
                  values: tuple[set[str], set[str]] = (set(), set()), *,
                  lenient: bool = False, manner: bool = False,
                  restated: bool = False) -> float | None:
    """How sure it is that two statements speak of one subject, from their subject
    words: 0.8 when one says nothing the other does not (0.75 when that is a single
    word), 0.75 when most of their words are shared; 0.65 (kept, not queued) when a word
    only one says modifies a shared one ("the free plan" / "the team plan"), or the
    values of both do ("the MySQL host" / "the Postgres host"), or either says words of
    its own after a preposition; else None. `lenient` (two members of one category)
    takes one shared word when each says at most one of its own; of a `manner` ("warmed
    lazily" / "warmed eagerly at startup") a phrase on one side only narrows. With
    `restated` (two values of one measure) a phrase that says a shared word restates the
    subject ("the TTL for the product-page cache")."""
    _settle(a, b)
    key_a, key_b = a.key, b.key
    shared = key_a & key_b
    unique_a, unique_b = key_a - key_b, key_b - key_a
    # lenient (two members of one closed category): one shared word is enough when
    # each says at most one of its own ("the search index" / "search is served")
    # not when the shared word is a verb of a kind ("our blog is built" / "our docs are
    # built"), nor two of them differ ("built" / "hosted")
    single = (lenient and len(unique_a) <= 1 and len(unique_b) <= 1 and shared - _KINDS
              and not (unique_a & _KINDS and unique_b & _KINDS))
    # each names a thing the other does not ("quartz-cli" / "quartz-agent"): two subjects
    if _names(a, unique_a) and _names(b, unique_b):
        return None
    # a compound that puts a word of its own before a shared one names a kind of the
    # thing, another thing ("the homebrew-quarry tap" / "quarry", "legacy-billing")
    if any(_compound_before(side, unique, shared) for side, unique in ((a, unique_a),
                                                                      (b, unique_b))):
        return None
    anchored = _anchored(a, unique_a, b, unique_b, shared)
    if not shared or (len(shared) < KEY_WORDS and unique_a and unique_b and not single
                      and not anchored):
        return None
    if _qualified_apart(a, b) or _headed_apart(a, unique_a, b, unique_b):
        return None
    both = shared | (values[0] & values[1])
    # one named thing: a word modifying it on either side ("the admin API" / "the API"),
    # or a phrase of its own on each ("for free users" / "for paid users"), makes two
    if anchored:
        apart = (_modifies(a, unique_a, both) or _modifies(b, unique_b, both)
                 or (_modifies(a, values[0], both) and _modifies(b, values[1], both))
                 or _phrased_apart(a, unique_a, b, unique_b, True,
                                   shared if restated else frozenset()))
        return None if apart else 0.75
    if (_modifies(a, unique_a, both) or _modifies(b, unique_b, both)
            or (_modifies(a, values[0], both) and _modifies(b, values[1], both))
            or _phrased_apart(a, unique_a, b, unique_b, manner,
                              shared if restated else frozenset())):
        return 0.65
    if not unique_a or not unique_b:
        return 0.8 if len(shared) >= KEY_WORDS else 0.75
    if len(shared) < SAME_SUBJECT * len(key_a | key_b) and not single and not anchored:
        return None
    return 0.75


def _compound_before(side: Subject, unique: set[str], shared: set[str]) -> bool:
    """Whether a compound of `side` ends on a shared word after a word only it says."""
    return any(len(parts := word.split("-")) > 1 and parts[-1] in shared
               and any(part in unique for part in parts[:-1])
               for word in side.words.values())


def _names(side: Subject, among: set[str]) -> set[str]:
    """The words of `among` a statement's subject writes as the name of a thing: a
    compound ("auth-svc", "search-gateway"), a capitalised word inside the sentence
    ("Elasticsearch") or an acronym; not a number, nor a setting's key ("printWidth")."""
    tokens = side.clause.tokens
    return {part for at, word in side.words.items()
            if _number(tokens[at].norm) is None and _thing_name(tokens[at].raw, tokens[at].at)
            for part in word.split("-") if part in among}


def _thing_name(raw: str, at: int) -> bool:
    return "-" in raw.strip("-") or (raw[:1].isupper() and at > 0) or _acronym(raw)


def _anchored(a: Subject, unique_a: set[str], b: Subject, unique_b: set[str],
              shared: set[str]) -> bool:
    """Whether both statements name one thing and neither names another: "search-gateway
    uses Elasticsearch 7.17" / "search-gateway's cluster was upgraded to Elasticsearch 8.11
    last sprint". A shared name pins the subject that shared common words pin elsewhere,
    whatever context either adds; a name of its own on either side ("quartz-cli" /
    "quartz-agent") may be another subject."""
    return bool(_names(a, shared) and _names(b, shared)
                and not _names(a, unique_a) and not _names(b, unique_b)
                and _qualified_alike(a, b)
                # each adding words of its own may speak of two parts of the thing ("the
                # ranking model" / "the spam classifier"), and many words of its own may
                # say another fact of it ("usually finishes by ..., and alerts fire if ...")
                and min(len(unique_a), len(unique_b)) <= 1
                and max(len(unique_a), len(unique_b)) <= ANCHORED_CONTEXT
                # a state in the past tense may be the history of the present one
                and not any(map(_past_state, (a.clause, b.clause)))
                and not _said_of_two_slots(a, unique_a, b, unique_b))


_ROLE_VERBS = frozenset(_norm(verb) for verb in lexicon.ROLE_NOUNS.values())


def _qualified_alike(a: Subject, b: Subject) -> bool:
    """Whether two statements name the same qualifiers of a subject: "staging runs 2
    replicas of the API" need not be what "the API deployment has 3 replicas" speaks of."""
    return len({frozenset(found.member for found in value_categories.qualifiers(side.clause.raws))
                for side in (a, b)}) == 1


def _said_of_two_slots(a: Subject, unique_a: set[str], b: Subject, unique_b: set[str]) -> bool:
    """Whether two statements on one named thing say two of its slots: two measures
    ("is version 15" / "listens on port 5433") or two roles ("maintained by Elena" /
    "changes are reviewed by Aisha")."""
    measured = [_measures_of(side.clause.raws).keys() for side in (a, b)]
    roles = [unique & _ROLE_VERBS for unique in (unique_a, unique_b)]
    return (all(measured) and not measured[0] & measured[1]) or (
        all(roles) and roles[0] != roles[1])


def _past_state(clause: Clause) -> bool:
    """Whether a clause says a state in the past tense ("was in us-west-2", "required Node
    14"); a change told in the passive ("was upgraded to 8.11") says what holds now."""
    words = clause.words
    return any(word in _PAST_STATES and not (word in ("was", "were") and at + 1 < len(words)
                                             and _participle(words[at + 1]))
               for at, word in enumerate(words))


def _was(clause: Clause) -> bool:
    """Whether a clause says a state with "was" or "were" (not a change told in the
    passive: "was bumped to 40")."""
    return bool({"was", "were"} & set(clause.words)) and _past_state(clause)


def _participle(word: str) -> bool:
    return word.endswith("ed") or word in IRREGULAR


def _headed_apart(a: Subject, unique_a: set[str], b: Subject, unique_b: set[str]) -> bool:
    """Whether each statement opens on a word of its own: "each pod requests 256 MB" /
    "each sidecar requests 64 MB" speak of two things, whatever else they share."""
    heads = [side.words[min(side.words)] if side.words else "" for side in (a, b)]
    return heads[0] in unique_a and heads[1] in unique_b


def _qualified_apart(a: Subject, b: Subject) -> bool:
    """Whether the two statements name two of one kind of thing that tells subjects apart
    ("production" / "staging", "frontend" / "backend"): two subjects."""
    said = [{} for _ in (a, b)]
    for side, named in zip((a, b), said, strict=True):
        for found in (*value_categories.qualifiers(side.clause.raws),
                      *_naming_a_noun(side.clause)):
            named.setdefault(found.category, set()).add(found.member)
    return any(said[0][kind] - said[1][kind] and said[1][kind] - said[0][kind]
               for kind in said[0].keys() & said[1].keys())


# Categories whose member, written right before a noun, says which of several things a
# statement is about: "the Python services" and "Go services" are two sets of services
# (while "written in Python" / "written in Go" are two values of one slot).
_NOUN_QUALIFYING = frozenset({"programming language", "cloud", "database"})


def _naming_a_noun(clause: Clause) -> list:
    """The members of _NOUN_QUALIFYING categories that stand right before a plain noun."""
    words = clause.words
    return [found for found in value_categories.members(clause.raws)
            if found.category in _NOUN_QUALIFYING and max(found.at) + 1 < len(words)
            and (following := words[max(found.at) + 1]).isalpha()
            and following == clause.raws[max(found.at) + 1]
            and following not in _FUNCTION_WORDS and following not in PREPOSITIONS
            and not _linking(following) and following not in _COPULAS
            and (not _verb_after_its_subject(clause, _token_at(clause, max(found.at) + 1))
                 or words[max(found.at) + 2:max(found.at) + 3] in (["are"], ["were"])
                 # a plural before a verb of its own: "Go services log with zerolog"
                 or next(iter(words[max(found.at) + 2:max(found.at) + 3]), "")
                 in lexicon.PLURAL_VERBS)]


def _token_at(clause: Clause, at: int) -> Token:
    return next((token for token in clause.tokens if token.at == at),
                Token(clause.raws[at], clause.words[at], at, False))


def _adds(clause: Clause) -> bool:
    """Whether a statement adds to what is known ("CI also tests against 3.12")."""
    return bool(lexicon.ADDITIVE & set(clause.words))


def _role(clause: Clause, token: Token) -> str:
    """The role a preposition gives a value: "goal" in "pushed to ECR", "means" in
    "scanned with Trivy"; "" when no preposition leads to it."""
    for word in reversed(clause.words[max(0, token.at - 3):token.at]):
        if word in lexicon.PREPOSITION_ROLES:
            return lexicon.PREPOSITION_ROLES[word]
    return ""


# --- Verdicts ------------------------------------------------------------------------------

def _preposition_before(clause: Clause, token: Token) -> str:
    """The preposition that leads to a word ("on" in "only on Mondays"), "" if none."""
    for word in reversed(clause.words[max(0, token.at - 3):token.at]):
        if word in PREPOSITIONS:
            return word
    return ""


def _verdict(contradicts: bool, reason: str, confidence: float) -> JudgeVerdict:
    return JudgeVerdict(contradicts=contradicts, reason=reason, confidence=confidence)


def _shown(tokens) -> str:
    return " ".join(token.raw for token in tokens)


def _negation(a: Clause, b: Clause) -> JudgeVerdict | None:
    negated, other = (a, b) if a.negative else (b, a)
    said, also = set(negated.norms), set(other.norms)
    shared = said & also
    if not a.tokens or not b.tokens or _named_apart(a, b):
        return None
    # two names, each statement opening on one, that trade places deny nothing the other
    # says: "pg-2 is not a replica of pg-1" / "pg-1 is a replica of pg-2"
    names = [_names_in_order(clause) for clause in (a, b)]
    if (len(names[0]) == 2 and names[0] == names[1][::-1] and names[0][0] != names[0][1]
            and a.tokens[0].value and b.tokens[0].value):
        return None
    if said == also and len(said) >= KEY_WORDS:  # the same words, in any order
        return _verdict(True, f"one statement negates the other: {negated.text!r} against "
                              f"{other.text!r}", 0.85)
    # "not deployed" says nothing against "manifests live"; "does not run on" negates the
    # tie itself, which the other may say with any verb ("supports")
    tie = negated.negated in _LINKING
    # a compound verb says its first part: "never squash PRs" negates "squash-merge PRs"
    said_by_other = {_VERB_KINDS.get(word, word) for norm in also
                     for word in (norm, *(_norm(part) for part in norm.split("-")[:1]))}
    if (not tie and _VERB_KINDS.get(negated.negated, negated.negated) not in said_by_other
            and not _denied_phrase(negated) & set(also)):
        return None
    if tie and not _object_said(negated, other):
        return None  # "we don't use ORMs here" says nothing of "... uses Postgres"
    if tie or a.norms[0] != b.norms[0]:
        return _reordered_negation(negated, other)
    if len(shared) < KEY_WORDS or len(shared) < NEGATION_OVERLAP * len(said):
        return None
    if _elsewhere(*(subject(clause, _nothing, opposites=False) for clause in (a, b))):
        return None
    exact = said == also
    return _verdict(True, f"one statement negates the other: {negated.text!r} against "
                          f"{other.text!r}", 0.9 if exact else 0.8)


# A rule for every case ("always", "every PR", "must") and the words that count its
# cases rather than say what it is about ("every single time").
_EVERY_CASE = frozenset({"always", "every", "each", "must"})
_COUNTING_CASES = frozenset({"every", "each", "ever", "time", "singl"})
EVERY_CASE_WORDS = 3  # shared words: a rule says more of its subject than a changed value
EVERY_CASE_OVERLAP = 0.5  # share of the shorter clause's words the other must say


def _every_case(clause: Clause) -> bool:
    """Whether a clause states a rule for every case: "always", "must", "every PR"; not
    how often ("every ten seconds", "every week")."""
    words = clause.words
    return any(word in _EVERY_CASE and not (
        word in ("every", "each") and at + 1 < len(words)
        and (words[at + 1] in NUMBER_WORDS or words[at + 1][:1].isdigit()
             or _norm(words[at + 1]) in _SECONDS or words[at + 1] in lexicon.TIME_WORDS))
        for at, word in enumerate(words))


def _every_case_denied(a: Clause, b: Clause) -> JudgeVerdict | None:
    """A rule for every case against its denial, said with other words: "Always write
    tests for bug fixes" / "Bug fixes never need tests", "Every public function must
    have a docstring" / "We never write docstrings on public functions". Most words of
    the shorter clause are in the other, neither narrows to a thing of its own, and the
    denial is not of a word that undoes itself ("no function ships undocumented")."""
    # a statement of several parts is read part by part: its whole says more than either
    if any(";" in clause.text for clause in (a, b)):
        return None
    negated, other = (a, b) if a.negative else (b, a)
    if not _every_case(other) or _named_apart(a, b):
        return None
    # a denial of the rule itself: "never", or a denied word the rule says ("does not
    # need an approval" / "needs one approval"); not a choice set apart ("detailed
    # explanations, not bullet lists")
    if ("never" not in negated.words and negated.negated not in other.norms
            and not any(token.opposite and token.norm == negated.negated
                        for token in negated.tokens)):
        return None
    # a compound by its parts: "squash-merged" says "squash"
    said, also = ({part for word in clause.norms for part in word.split("-")} - _COUNTING_CASES
                  for clause in (negated, other))
    # ... of what the rule speaks of: "never use print()" says nothing of "always log
    # through the logging module"; a denial with no object that says nothing the rule does
    # not ("Skyforge backend: never squash, we keep merge commits" / "we always
    # squash-merge PRs in the Skyforge backend repo") denies the rule's verb itself
    objectless = _objectless(negated) and negated.negated in also and said <= also
    if not objectless and not _object_said(negated, other):
        return None
    if any(_undoing(word) for word in negated.words):
        return None
    shared = said & also
    if not objectless and (
            len(shared) < EVERY_CASE_WORDS
            or len(shared) < EVERY_CASE_OVERLAP * min(len(said), len(also))):
        return None
    # a case the other does not name ("orders-db migrations are never wrapped in a
    # transaction" against "all migrations are") is an exception to the rule, no other thing
    if _elsewhere(*(subject(clause, _nothing, opposites=False) for clause in (negated, other)),
                  either_narrows=False):
        return None
    return _verdict(True, f"a rule for every case against its denial: {negated.text!r} "
                          f"against {other.text!r}", 0.8)


def _negated_at(clause: Clause) -> int:
    """Which token of a clause is its negated word (-1 for none)."""
    return clause.norms.index(clause.negated) if clause.negated in clause.norms else -1


def _objectless(negated: Clause) -> bool:
    """Whether a negated verb ends its clause or a pronoun starts the next part right
    after it ("never squash", "never squash, we keep merge commits")."""
    at = _negated_at(negated)
    if at < 0:
        return False
    after = negated.tokens[at].at + 1
    return after >= len(negated.words) or negated.words[after] in lexicon.BEFORE_A_VERB


def _denied_phrase(clause: Clause) -> set[str]:
    """The words of a thing denied with "no", up to its preposition ("no DB-level unique
    constraint on users.email" denies a constraint, whichever of its words the other
    says); nothing for a denied verb ("does not run")."""
    at = _negated_at(clause)
    if at < 0 or clause.word_before(clause.tokens[at]) != "no":
        return set()
    words, phrase = clause.words, set()
    for token in clause.tokens[at:]:
        if any(word in PREPOSITIONS or word in lexicon.MORE_PREPOSITIONS or word in ",;:"
               for word in words[clause.tokens[at].at:token.at]):
            break
        phrase.add(token.norm)
    return phrase


def _names_in_order(clause: Clause) -> list[str]:
    return [token.norm for token in clause.tokens if token.value]


def _object_said(negated: Clause, other: Clause) -> bool:
    """Whether the word right after a negated verb that ties a subject to its value
    ("Redis" in "we don't use Redis for sessions") is said by the other statement."""
    tokens = negated.tokens
    at = _negated_at(negated)
    if at < 0 or at + 1 >= len(tokens):
        return False
    # the words of its object: up to the next preposition ("run database migrations
    # automatically during a deploy")
    words = negated.words
    end = next((i for i in range(tokens[at + 1].at + 1, len(words))
                if words[i] in PREPOSITIONS or words[i] in lexicon.MORE_PREPOSITIONS),
               len(words))
    return any(token.norm in other.norms for token in tokens[at + 1:]
               if token.at < end)


def _named_apart(a: Clause, b: Clause) -> bool:
    """Whether each statement opens on a name the other does not say ("the
    `new-checkout` flag is enabled" / "the `new-search` flag is disabled"): a negation
    of one says nothing of the other."""
    values = [{token.norm for token in clause.tokens[:SUBJECT_HEAD] if token.value}
              - {token.norm for token in other.tokens}
              for clause, other in ((a, b), (b, a))]
    return bool(values[0]) and bool(values[1])


def _reordered_negation(negated: Clause, other: Clause) -> JudgeVerdict | None:
    """A negation in another word order ("we support Python 3.9 in the SDK" / "the SDK
    doesn't support Python 3.9 anymore"): most subject words of each are in the other,
    and no word of one marks another thing ("the staging database" / "the dev
    database")."""
    said, also = (subject(clause, _nothing, opposites=False) for clause in (negated, other))
    _settle(said, also)
    shared = said.key & also.key
    # the negated verb's kind, said by one only, is how it says it ("skip type hints" /
    # "use type hints"), not what it speaks of
    how = {_VERB_KINDS.get(negated.negated, negated.negated)} - shared
    if len(shared) < KEY_WORDS or any(len(shared) < NEGATION_OVERLAP * len(side.key - how)
                                      for side in (said, also)):
        return None
    if _elsewhere(said, also):
        return None
    return _verdict(True, f"one statement negates the other: {negated.text!r} against "
                          f"{other.text!r}", 0.8)


def _elsewhere(a: Subject, b: Subject, *, either_narrows: bool = True) -> bool:
    """Whether a statement and a negation speak of two things: each puts a word of its
    own after the same preposition ("enabled in development" / "disabled in
    production"), or a word of one marks a shared one ("the repository" / "the
    repository's wiki"). Without `either_narrows`, such a word on one side only speaks of
    a case of the other's thing: against a rule for every case, an exception."""
    _settle(a, b)
    shared = a.key & b.key
    # a known product only one side names, where the other names no other, is what the
    # thing is ("S3 versioning" on the bucket the other says has versioning)
    unique_a, unique_b = (side.key - shared - _products_only_said_by(side, other)
                          for side, other in ((a, b), (b, a)))
    roles_a, roles_b = _roles_of(a, unique_a), _roles_of(b, unique_b)
    # "encrypted at rest" / "not encrypted in transit": each narrows with a phrase of its
    # own, after a preposition of one role (where, when) or another
    # each names a thing of its own, no known value ("media-prod" / "media-staging", not
    # "Europe" / "eu-west-1"): two things
    # "staging deploys" / "production deploys": two of one kind of qualifier
    return bool(roles_a & roles_b) or bool(_PLACE_OR_TIME & roles_a and _PLACE_OR_TIME & roles_b) \
        or _qualified_apart(a, b) \
        or (any if either_narrows else all)(_modifies(side, unique, shared) for side, unique
                                            in ((a, unique_a), (b, unique_b))) \
        or all(_names(side, unique - _known_words(side))
               for side, unique in ((a, unique_a), (b, unique_b)))


def _marked_apart(a: Subject, b: Subject) -> bool:
    """Whether each statement names a thing of its own, or marks a shared word with one
    ("the web repo" / "the ml-training repo"): two things."""
    both = a.key & b.key
    return all(_names(side, side.key - both - _known_words(side))
               or _modifies(side, side.key - both, both) for side in (a, b))


def _known_words(side: Subject) -> set[str]:
    """The subject words of `side` that name a member of a known category."""
    places = {at for found in value_categories.members(side.clause.raws) for at in found.at}
    # a compound's parts too, as the subject's key holds them ("eu", "west", "1")
    return {part for at, word in side.words.items() if side.clause.tokens[at].at in places
            for part in (word, *word.split("-"))}


def _products_only_said_by(side: Subject, other: Subject) -> set[str]:
    """The subject words of `side` that name a known product, when `other` names none
    that `side` does not ("S3 versioning" / "versioning": what the thing is; "Redis
    persistence" / "Postgres persistence": two things)."""
    mine = {f.member for f in value_categories.members(side.clause.raws)}
    if any(f.member not in mine for f in value_categories.members(other.clause.raws)):
        return set()
    return _known_words(side)


# Prepositions that say where or when a statement holds.
_PLACE_OR_TIME = frozenset({"in", "at", "on", "during", "inside", "outside", "within",
                            "before", "after", "across"})


def _roles_of(subject_of: Subject, unique: set[str]) -> set[str]:
    """The prepositions the words in `unique` come after ("in" for "in production")."""
    clause = subject_of.clause
    slots = arrangement(clause.text).slots
    return {slots.get(token.norm) or slots.get(token.raw.casefold())
            for at, token in enumerate(clause.tokens)
            if subject_of.word(at) in unique} - {None, ""}


def _nothing(token: Token) -> bool:
    return False


def _slot_words(segment: Sequence[Token]) -> list[Token]:
    return [token for i, token in enumerate(segment) if not token.value
            and not (i and _number(segment[i - 1].norm) is not None)]


_NOT_A_THING = frozenset({"first", "last", "next", "every", "each", "out", "up", "off"})
_VERBS = frozenset({*_VERB_KINDS, *(_norm(verb) for verb in (*lexicon.PLURAL_VERBS,
                                                             *lexicon.LINKING_VERBS))})


def _things_in(segment: Sequence[Token]) -> list[Token]:
    """The words of a swapped segment that may name a thing: no value, verb or word of
    order ("emailed", "goes out", "last")."""
    return [token for token in _slot_words(segment)
            if token.raw.casefold() not in _NOT_A_THING and token.norm not in _VERBS
            and not token.raw.casefold().endswith(("ed", "ing"))]


def _swap_is_a_value_change(a: Clause, b: Clause, op) -> bool:
    _, a_start, a_end, b_start, b_end = op
    seg_a, seg_b = a.tokens[a_start:a_end], b.tokens[b_start:b_end]
    # the word before each side too: "for 7 days" / "for a week" (an equal amount)
    measured_a, measured_b = (
        measures([NUMBER_WORDS.get(w) or _norm(w)
                  for w in clause.words[max(0, seg[0].at - 1):seg[-1].at + 1]])
        for clause, seg in ((a, seg_a), (b, seg_b)))
    common = measured_a.keys() & measured_b.keys()
    # two times of day in two zones ("10am UTC" / "11am CET") are not compared here
    clocks = [{key for key in measured if key.startswith("time of day")}
              for measured in (measured_a, measured_b)]
    if all(clocks) and not clocks[0] & clocks[1]:
        return False
    # a swap that says two amounts ("in S3 for 30 days and then in Glacier for a year")
    # tells more than one value of one slot
    if common and any(sum(_a_unit(token.norm) for token in seg) > 1 for seg in (seg_a, seg_b)):
        return False
    values_a = [t for t in seg_a if t.value]
    values_b = [t for t in seg_b if t.value]
    # a number and a name changed together ("for CLI v3.0: Fatima" / "for CLI v3.1:
    # Gustavo") change two slots: which one, and who
    if all(_with_digits(values) and not all(_with_digits([value]) for value in values)
           for values in (values_a, values_b)):
        return False
    # what is measured changed with the amount ("search results for 5 minutes" /
    # "product pages for 1 hour"): two things, each with its own
    if common and min(len(_things_in(seg_a)), len(_things_in(seg_b))) >= KEY_WORDS:
        return False
    if common:
        return any(not _same_amount(key, measured_a[key], measured_b[key]) for key in common)
    if values_a and values_b:
        # a number does not replace a name without one ("after 30" / "Unix epoch";
        # "python3.11" / "Python 3.12" are versions)
        if _with_digits(values_a) != _with_digits(values_b):
            return False
        # two known things of two kinds ("Postgres" / "Redis") name two subjects
        if _known_apart(a, {t.norm for t in values_a}, b, {t.norm for t in values_b}):
            return False
        # "uses Redis for caching" / "uses PostgreSQL" or "... for orders": words that
        # change with the value name another slot, unless a shared word after the swap
        # pins it ("a real PostgreSQL database" / "an in-memory SQLite database"). The
        # unit after a number ("3 replicas") is part of the value.
        pinned = a_end < len(a.tokens) and b_end < len(b.tokens)
        return pinned or not (_slot_words(seg_a) or _slot_words(seg_b))
    if len(seg_a) > SHORT_SLOT or len(seg_b) > SHORT_SLOT:
        return False
    if values_a or values_b:
        # a quality is no name ("is `cold-archive`" / "is encrypted")
        if any(not t.value and t.raw.isalpha() and t.raw.casefold().endswith(_QUALITY_ENDINGS)
               for t in (*seg_a, *seg_b)):
            return False
        # a value for a word that is none: one word for one ("is main" / "is v2"), not a
        # verb that brings its value ("run once" / "kept 30")
        said_a, said_b = ([t for t in _slot_words(seg) if t.norm not in _LINKING]
                          for seg in (seg_a, seg_b))
        return len(seg_a) == len(seg_b) == 1 or not (said_a and said_b)
    # Neither is a value: only a slot that holds one thing ("is main", "prefer tabs"),
    # and only one such change ("explicit over wildcard" / "absolute over relative" is
    # another preference, not this one reversed).
    if len(_changes(a, b)) > 1:
        return False
    if "prefer" in a.norms and "prefer" in b.norms:
        return True
    # "use double quotes" / "use single quotes": the word right after "use" is a choice
    chosen_by = a.word_before(seg_a[0])
    if chosen_by in _CHOOSING and chosen_by == b.word_before(seg_b[0]):
        return True
    # "the default branch is main" / "... is trunk": a name after "is"; a quality ("is
    # protected", "is internal") is one more thing said, unless of one scale or category
    if _of_one_category(a, seg_a, b, seg_b):
        return True
    return (_after_a_copula(a, seg_a[0]) and _after_a_copula(b, seg_b[0])
            and not any(token.raw.casefold().endswith(_QUALITY_ENDINGS)
                        for token in (*seg_a, *seg_b)))


def _with_digits(values: Sequence[Token]) -> bool:
    return any(char.isdigit() for token in values for char in token.norm)


# Endings of words that say a quality rather than name a value ("protected", "internal").
_QUALITY_ENDINGS = ("ed", "al", "ive", "ous", "ful", "less", "able", "ible", "ic", "ant",
                    "ent", "ary", "ory", "ile", "y")


def _of_one_category(a: Clause, seg_a, b: Clause, seg_b) -> bool:
    """Whether two swapped words are two members of one category or scale."""
    of = [{f.category for f in value_categories.members(clause.raws)
           if {t.at for t in seg} & set(f.at)} for clause, seg in ((a, seg_a), (b, seg_b))]
    return bool(of[0] & of[1])


def _opcodes(a: Clause, b: Clause):
    return difflib.SequenceMatcher(None, a.norms, b.norms, autojunk=False).get_opcodes()


def _changes(a: Clause, b: Clause):
    return [op for op in _opcodes(a, b) if op[0] != "equal"]


_NAMED = _norm("named")


def _after_a_copula(clause: Clause, token: Token) -> bool:
    """Whether a word follows "is", or "is named" ("is called" is read so)."""
    before = clause.word_before(token)
    return before in _COPULAS or (before == "named" and token.at > 1
                                  and clause.raws[token.at - 2].casefold() in _COPULAS)


def _name_given_as_is(clause: Clause) -> Clause:
    """`clause` with the "named" of "is named X" left out, so a name given says what the
    thing is, as "is X" and a note "thing: X" do ("the default branch is called
    `develop`" / "default branch: main")."""
    tokens = tuple(token for token in clause.tokens
                   if not (token.norm == _NAMED and _after_a_copula(clause, token)))
    return replace(clause, tokens=tokens)


def _changed_slot(a: Clause, b: Clause) -> JudgeVerdict | None:
    if max(len(a.tokens), len(b.tokens)) > MAX_SLOT_WORDS or _adds(a) or _adds(b):
        return None
    if _was(a) != _was(b):  # "the pool size was 10" / "the pool size is 25": its history
        return None
    a, b = _name_given_as_is(a), _name_given_as_is(b)
    a, b = _quantified_alike(a, b), _quantified_alike(b, a)
    ops = _opcodes(a, b)
    changes = [op for op in ops if op[0] != "equal"]
    shared = sum(op[2] - op[1] for op in ops if op[0] == "equal")
    if not changes or any(op[0] != "replace" for op in changes):
        return None
    if shared < KEY_WORDS and not _set_to_another_number(a, b, ops):
        return None
    # one word written two ways ("#releases" / "releases") is no other value
    if any(_shown(a.tokens[i1:i2]).casefold() == _shown(b.tokens[j1:j2]).casefold()
           for _, i1, i2, j1, j2 in changes):
        return None
    if ops[0][0] != "equal":
        return _changed_holder(a, b, ops)
    # each measures something and nothing the other measures ("uses 8 GPUs per node" /
    # "spans 4 nodes"): two quantities, not one set to two values
    measured = [{key for key in _measures_of(clause.raws) if key not in _TIME
                 and _counts_things(key, a, b) and key not in _SCHEDULE_KEYS}
                for clause in (a, b)]
    if all(measured) and not measured[0] & measured[1]:
        return None
    # two places changed at once ("Node 20 in CI" / "Node 18 on developer laptops",
    # "sprint one starts on March 3" / "sprint two ... March 17") say two facts
    if len(changes) > 1:
        return None
    # ... and so does one swap that holds a place and a value ("in dev: 3 replicas" / "in
    # prod: 40 replicas")
    _, i1, i2, j1, j2 = changes[0]
    if all(value_categories.qualifiers(tuple(t.raw for t in span)) and len(span) > 1
           for span in (a.tokens[i1:i2], b.tokens[j1:j2])):
        return None
    # "deploys are only triggered by tagging" leaves no room for "... by merging"
    sole = ((a.exclusive or b.exclusive) and len(changes) == 1 and not _ways_apart(a, b)
            and _preposition_before(a, a.tokens[changes[0][1]])
            == _preposition_before(b, b.tokens[changes[0][3]]))
    if not sole and not all(_swap_is_a_value_change(a, b, op) for op in changes):
        return None
    swaps = "; ".join(f"{_shown(a.tokens[i1:i2])!r} became {_shown(b.tokens[j1:j2])!r}"
                      for _, i1, i2, j1, j2 in changes)
    # A long swap is more likely another statement than another value of one slot.
    long_swap = any(max(i2 - i1, j2 - j1) >= LONG_SWAP for _, i1, i2, j1, j2 in changes)
    return _verdict(True, f"the same statement with another value: {swaps}",
                    0.75 if long_swap else 0.8)


def _quantified_alike(clause: Clause, other: Clause) -> Clause:
    """`clause` without an "all" the other does not say: "the default branch for all new
    repos" is "the default branch for new repos", one slot. ("every" and "each" say how
    often: "taken every night" is no "taken by pgBackRest".)"""
    said = set(other.norms)
    return replace(clause, tokens=tuple(
        token for token in clause.tokens if token.raw.casefold() != "all" or token.norm in said))


def _set_to_another_number(a: Clause, b: Clause, ops) -> bool:
    """"The port is 8080" / "The port is 9090", "Replicas: 3" / "Replicas: 5": one subject,
    said whole before a copula, set to two numbers. Elsewhere two shared words pin a slot;
    here the copula does, and a number after it is a value, not a quality ("is stable")
    nor a name ("sprint 12"). Not a past state ("was 8080"), nor a speaker's own ("my son
    is 5" grows up)."""
    if len(ops) != 2 or ops[0][0] != "equal":
        return False
    _, i1, i2, j1, j2 = ops[1]
    if (i2 - i1, j2 - j1, i2, j2) != (1, 1, len(a.tokens), len(b.tokens)):
        return False
    return all(_number(value.norm) is not None and clause.word_before(value) in ("is", "are")
               and not _FIRST_PERSON.search(clause.text)
               for clause, value in ((a, a.tokens[i1]), (b, b.tokens[j1])))


def _changed_holder(a: Clause, b: Clause, ops) -> JudgeVerdict | None:
    """"Alice owns X" / "Bob owns X": a role has one holder, other subjects do not clash."""
    _, i1, i2, j1, j2 = ops[0]
    if len(ops) != 2 or not _ROLE.search(a.text) or not _ROLE.search(b.text):
        return None
    names = [*a.tokens[i1:i2], *b.tokens[j1:j2]]
    if not all(token.raw[:1].isupper() for token in names) or _ranks(a) != _ranks(b):
        return None
    # the holder is who the role is said of next: not the thing in "Payments is owned by
    # Alice" / "Billing is owned by Alice", nor "Onboarding is the platform team's job"
    if not all(_HOLDER_THEN.match(" ".join(clause.words[clause.tokens[end - 1].at + 1:]))
               for clause, end in ((a, i2), (b, j2))):
        return None
    return _verdict(True, f"{_shown(a.tokens[i1:i2])!r} and {_shown(b.tokens[j1:j2])!r} "
                          f"hold the same role", 0.8)


# Who does what: "the rotation is run by Kenji", "Aisha runs the rotation", "Lena is the
# reviewer for migrations", "the maintainer of the modules is Ravi".
_NAME = r"(?:[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?|@[\w-]+(?:[./][\w-]+)*)"  # "@rpatel", "@acme/ops"
# A team holds a role as a person does: "the Web Platform team", "our Mobile squad".
_TEAMS = ("team", "squad", "guild")
_WHO = (rf"(?:[Tt]he\s+|[Oo]ur\s+)?(?P<agent>{_NAME}(?:\s+(?:{'|'.join(_TEAMS)}))?"
        rf"|(?:[a-z][\w-]*\s+){{1,2}}(?:{'|'.join(_TEAMS)}))")  # "the data team" is someone too
_ROLE_NOUN = "|".join(sorted(lexicon.ROLE_NOUNS, key=len, reverse=True))
# What says a role of the word before it: "Alice owns ...", "Carol is the on-call ...".
_HOLDER_THEN = re.compile(rf"(?:owns?|leads?|maintains?|(?:is|are)\s+(?:responsible\s+for"
                          rf"|in\s+charge\s+of|(?:the\s+)?on[\s-]call"
                          rf"|(?:the|our)\s+(?:[\w-]+\s+){{0,2}}?(?:{_ROLE_NOUN})))\b", _I)
_HOLDINGS = (
    # "ownership of the design system sits with the Mobile team"
    # "... moved to the messaging team": who holds it now
    re.compile(rf"^(?P<noun>owner)ship\s+of\s+(?P<thing>.+?)\s+(?:(?:sits|lies|rests|is|stays)\s+"
               rf"with|(?:moved|passed|went|was\s+handed(?:\s+over)?|transferred)\s+to)\s+"
               rf"{_WHO}\W*$", _I),
    re.compile(rf"^(?P<thing>.+?)\s+(?:is|are|was|were)\s+(?P<verb>[a-z]+)\s+"
               rf"(?:and\s+(?P<also>[a-z]+)\s+)?by\s+{_WHO}\W*$"),
    # "Lena is the reviewer for migrations", "Diego is release manager for Harbor 2.x"
    re.compile(rf"^{_WHO}\s+(?:is|are)\s+(?:(?:the|our|their)\s+)?(?P<pre>(?:[\w-]+\s+){{0,2}}?)"
               rf"(?P<noun>{_ROLE_NOUN})\s+(?:for|of|on)\s+(?P<thing>.+?)\W*$", _I),
    re.compile(rf"^(?:the\s+)?(?P<pre>(?:[\w-]+\s+){{0,2}}?)(?P<noun>{_ROLE_NOUN})\s+"
               rf"(?:for|of|on)\s+(?P<thing>.+?)(?:\s+(?:is|are)|:)\s+{_WHO}\W*$", _I),
    # "the mobile guild lead is Tariq", "Greta is the CI pipeline's owner", a label too:
    # "Android release manager: Kenji"
    re.compile(rf"^(?:the\s+|our\s+)?(?P<thing>.+?)\s+(?P<noun>{_ROLE_NOUN})(?:\s+(?:is|are)|:)\s+"
               rf"{_WHO}\W*$", _I),
    # "onboarding is the platform team's responsibility" (read without its "'s")
    re.compile(rf"^(?:the\s+|our\s+)?(?P<thing>.+?)\s+(?:is|are)\s+{_WHO}\s+"
               rf"(?P<duty>responsibility|job)\W*$", _I),
    re.compile(rf"^{_WHO}\s+(?:is|are)\s+(?:the|our)\s+(?P<thing>.+?)\s+"
               rf"(?P<noun>{_ROLE_NOUN})\W*$", _I),
    # a name, its verb (or two: "owns and maintains"), and what it does it to: not
    # "Squash merges are allowed"
    re.compile(rf"^{_WHO}\s+(?P<verb>[a-z]+)\s+(?:and\s+(?P<also>[a-z]+)\s+)?"
               rf"(?!(?:is|are|was|were|be|been)\b)(?P<thing>.+?)\W*$"),
)


# Verbs of one role read as one: who runs a rotation manages it ("the rotation is managed
# by Priya" / "Tom runs the rotation").
_ROLE_KINDS = {_norm(verb): kind for kind, verbs in lexicon.ROLE_KINDS.items()
               for verb in verbs.split()}


@dataclass(frozen=True)
class Holding:
    agent: str  # who, casefolded
    role: str  # does what, as a verb's stem ("review" for "reviewer" too)
    thing: Clause  # to what
    said: str = ""  # the role as said, before its kind ("maintain" of the kind "own")


def _holdings(clause: Clause) -> list[Holding]:
    """Each reading of `clause` as a named someone doing something to something."""
    found = []
    for pattern in _HOLDINGS:
        said = pattern.match(clause.text)
        # someone, not a thing: "Staging runs 2 replicas", "Kafka is the event bus"; a
        # team is someone, whichever side of its name the word is ("the Frontend team",
        # "Team Vega")
        if not said or said["agent"].split()[0].casefold() in _FUNCTION_WORDS or (
                not _team(said["agent"].casefold())
                and (value_categories.members(tuple(said["agent"].split()))
                     or value_categories.qualifiers(tuple(said["agent"].split())))):
            continue
        groups = said.groupdict()
        verb = (groups.get("verb") or "").casefold()
        if verb and not _gives_a_role(verb, said["thing"]):
            continue  # "Logs are shipped", "Tom prefers MySQL"
        roles = ([lexicon.ROLE_NOUNS[groups["noun"].casefold()]] if groups.get("noun")
                 else ["own"] if groups.get("duty")
                 else [groups["verb"], *([groups["also"]] if groups.get("also")
                                         and _gives_a_role(groups["also"].casefold(), "")
                                         else [])])
        # the words before a role noun say what of the thing it is ("the release manager
        # for Harbor" manages Harbor's releases), as a thing written before it does
        # ("the Harbor release manager"); a rank says which holder, not of what
        thing = " ".join([*(word for word in (groups.get("pre") or "").split()
                            if word.casefold() not in lexicon.ROLE_RANKS), said["thing"]])
        found.extend(Holding(said["agent"].casefold(), _ROLE_KINDS.get(_norm(role), _norm(role)),
                             read_clause(thing), _norm(role)) for role in roles)
    return found


def _gives_a_role(verb: str, thing: str) -> bool:
    """Whether a name doing `verb` to `thing` holds a role one holds at a time: "runs the
    rotation", "is on call for ..."; not "prefers MySQL", "is excited about it"."""
    if verb in _COPULAS:
        return thing.casefold().startswith(lexicon.ROLE_STATES)
    return verb in lexicon.ROLE_VERBS


def _same_thing(a: Clause, b: Clause) -> bool:
    if a.norms == b.norms:
        return bool(a.norms)
    # one thing numbered two ways is two things: "CLI 3.0" / "CLI 3.1", "sprint 4" / "sprint 5"
    # and one release of a thing is not the thing: "iOS 4.2" / "the iOS app"
    numbers = [{t.norm for t in clause.tokens if _VERSION_LIKE.match(t.norm)} for clause in (a, b)]
    if numbers[0] != numbers[1]:
        return False
    sure = subject_match(subject(a, _nothing), subject(b, _nothing))
    return sure is not None and sure >= CONFIDENT


def _changed_agent(a: Clause, b: Clause) -> JudgeVerdict | None:
    """"The on-call rotation is run by Kenji" / "Aisha runs the on-call rotation",
    "database migrations are reviewed by Tom" / "Lena is the reviewer for database
    migrations": one role over one thing, held by two people."""
    if _adds(a) or _adds(b):
        return None
    if _ranks(a) != _ranks(b) or _periods(a) != _periods(b):
        return None
    for first, second in itertools.product(_holdings(a), _holdings(b)):
        # a role said two ways ("owns" / "maintains") is one between two teams or two
        # people ("Maya owns billing" / "billing is maintained by Tomás"), not between a
        # team and a person: a team owns what one of its people maintains
        if (first.said != second.said and first.role == _OWN
                and _team(first.agent) != _team(second.agent)):
            continue
        if (not _same_holder(first.agent, second.agent)
                and first.role == second.role
                and _same_thing(first.thing, second.thing)):
            return _verdict(True, f"{first.agent!r} and {second.agent!r} do the same: "
                                  f"another holder of one role", 0.75)
    return None


_PERIOD = re.compile(r"\b(this|next|last|previous|following|coming)\s+(week|sprint|month|"
                     r"quarter|rotation|shift|year|weekend)\b", _I)


def _periods(clause: Clause) -> set[str]:
    """The periods a role is said to be held in ("this week", "next sprint"): two
    periods, two turns of the role."""
    return {f"{which.casefold()} {period.casefold()}"
            for which, period in _PERIOD.findall(clause.text)}


def _ranks(clause: Clause) -> set[str]:
    """The words that rank a role's holder ("primary", "backup"): two ranks, two roles."""
    return {word for word in clause.words if word in lexicon.ROLE_RANKS}


def _same_holder(a: str, b: str) -> bool:
    """One holder named twice: the same words, or a person's first or last name beside
    their full name ("Jun" / "Jun Park", "Raman" / "Priya Raman"), as a team's notes name
    one colleague both ways. Not a team ("the Platform team" / "the Data Platform team")
    nor a name made of known words ("Payments" / "Payments Platform")."""
    if _who(a) == _who(b):
        return True
    short, full = sorted((a.split(), b.split()), key=len)
    return (len(short) == 1 and 2 <= len(full) <= 3 and short[0] in (full[0], full[-1])
            and full[-1] not in _TEAMS
            and not any(value_categories.members((word,)) or value_categories.qualifiers((word,))
                        for word in full))


_OWN = "own"


def _team(agent: str) -> bool:
    words = agent.split()
    return bool({words[0], words[-1]} & set(_TEAMS))


def _who(agent: str) -> str:
    """A holder without the word that says it is a team: "the Payments team" is
    "Payments"."""
    words = agent.split()
    return " ".join(words[:-1] if len(words) > 1 and words[-1] in _TEAMS else words)


def _preference_order(text: str) -> tuple[str, str] | None:
    """(X, Y) of "prefers X over Y"."""
    found = _PREFERENCE_ORDER.search(text)
    if not found:
        return None
    rest = _PHRASE_AFTER.split(text[found.end():], maxsplit=1)[0].rstrip()
    return found.group(1), (rest[:-1] if rest[-1:] in ".!" else rest).rstrip()


def _reversed_preference(a: Clause, b: Clause) -> JudgeVerdict | None:
    found_a, found_b = _preference_order(a.text), _preference_order(b.text)
    if bool(found_a) != bool(found_b):
        return _passed_over(a, found_a, b) if found_a else _passed_over(b, found_b, a)
    if not (found_a and found_b):
        return None
    first_a, second_a = (read_clause(part).norms for part in found_a)
    first_b, second_b = (read_clause(part).norms for part in found_b)
    # by the same person: an instruction is the speaker's, not what "Maria prefers"
    if _before_preference(a) != _before_preference(b):
        return None
    if first_a == second_b and second_a == first_b and first_a != second_a:
        return _verdict(True, "the preference is reversed", 0.85)
    # "explicit imports over wildcard imports" / "wildcard imports to explicit ones":
    # what tells the two choices apart, swapped
    if (
            _swapped_choices(first_a, second_a, first_b, second_b)
            or _swapped_choices(first_b, second_b, first_a, second_a)):
        return _verdict(True, "the preference is reversed", 0.8)
    return None


def _passed_over(ordered: Clause, order: tuple[str, str], plain: Clause) -> JudgeVerdict | None:
    """"She prefers str.format over f-strings" / "she prefers f-strings for formatting":
    the same person prefers what the other statement passes over."""
    chosen = _PLAIN_PREFERENCE.search(plain.text)
    passed = read_clause(order[1]).norms
    if chosen and _before_preference(ordered) == _before_preference(plain):
        if passed and read_clause(chosen.group(1)).norms == passed:
            return _verdict(True, f"one prefers what the other passes over: {order[1]!r}",
                            0.8)
        return None
    # "the user prefers pytest over unittest" / "the user wants new tests written with
    # unittest": the same person wants, likes or asks for a known thing passed over, and
    # not the one chosen
    wanting = [token for token in plain.tokens
               if _VERB_KINDS.get(token.norm) == "like" and token.norm not in _LINKING]
    if not wanting or plain.negative or _adds(plain) or _REMOVING & set(plain.words):
        return None
    who = _RAW_TOKEN.findall(plain.text[:len(" ".join(plain.raws[:wanting[0].at]))])
    person = _holder(_same(who[-1].casefold())) if who else "i"
    passed_things = {f.member for f in value_categories.members(tuple(order[1].split()))}
    chosen_things = {f.member for f in value_categories.members(tuple(order[0].split()))}
    said = {f.member for f in value_categories.members(plain.raws)}
    if (person == _before_preference(ordered) and passed_things and passed_things <= said
            and not chosen_things & said):
        return _verdict(True, f"one wants what the other passes over: {order[1]!r}", 0.8)
    return None


_REMOVING = frozenset(lexicon.REMOVING)
# What says a holder's preference: "prefers", "likes", "wants", "would rather" (read as
# "prefer to"), "insists on".
_PREFERRING = re.compile(r"\b(?:prefer|prefers|preferred|preferring|like|likes|love|loves|"
                         r"want|wants|insists?)\b", _I)


def _preference_holder(clause: Clause) -> str | None:
    """Who a preference is said of: the last word before its verb ("dana", "user"),
    the team for "we" and "our"; None when the clause says no preference."""
    said = _PREFERRING.search(clause.text)
    return _holder_before(clause, said) if said else None


def _preferred_apart(a: Clause, b: Clause) -> JudgeVerdict | None:
    """One holder preferring two members of one category or scale, each statement one
    the other does not name ("Dana prefers rebase-and-merge for PRs she reviews" / "Dana
    wants every PR she reviews squash-merged", "Olga prefers small PRs" / "Olga would
    rather review one big PR"). Not of two things each statement names apart."""
    holder = _preference_holder(a)
    if holder is None or holder != _preference_holder(b) or _adds(a) or _adds(b):
        return None
    # a member named before the preference says of what ("for Go code the user prefers
    # table-driven tests"), not what is preferred
    found = [[f for f in value_categories.members(clause.raws) if not set(f.at) & behind
              and min(f.at) > _preferred_at(clause)]
             for clause, behind in ((a, _left_behind(a)), (b, _left_behind(b)))]
    for category in sorted({f.category for f in found[0]} & {f.category for f in found[1]}):
        named = [{f.member for f in side if f.category == category} for side in found]
        if named[0] & named[1]:
            continue
        subjects = [subject(clause, _naming(clause, {at for f in side for at in f.at
                                                      if f.category == category}, category))
                    for clause, side in zip((a, b), found)]
        # the holder pins who, not what of: the rest must be one subject, if not surely
        sure = subject_match(*subjects, lenient=True)
        shared = (subjects[0].key & subjects[1].key - {_norm(holder)} - _KINDS
                  - (_MINE_NORMS if holder == "i" else set()))
        if sure is None or not shared or _marked_apart(*subjects):
            continue
        return _verdict(True, f"{holder!r} prefers {', '.join(sorted(named[0]))!r} in one "
                              f"and {', '.join(sorted(named[1]))!r} in the other", 0.75)
    return None


def _preferred_at(clause: Clause) -> int:
    """Where a clause's word of preference stands among its words (-1 for none)."""
    return next((at for at, raw in enumerate(clause.raws) if _PREFERRING.fullmatch(raw)), -1)


def _swapped_choices(first_a, second_a, first_b, second_b) -> bool:
    """Whether words that tell a's choice from the one it passed over are, in b, on the
    passed-over side, and the other way round, and none stays on its side ("pytest
    fixtures over unittest setUp methods" / "unittest.TestCase with setUp over pytest
    fixtures")."""
    chosen_a, passed_a = set(first_a) - set(second_a), set(second_a) - set(first_a)
    chosen_b, passed_b = set(first_b) - set(second_b), set(second_b) - set(first_b)
    return bool(chosen_a and passed_a and chosen_a & passed_b and passed_a & chosen_b
                and not chosen_a & chosen_b and not passed_a & passed_b)


def _before_preference(clause: Clause) -> str:
    """Who prefers: the last word before "prefer" ("he", "user" in "the user"), after a
    phrase put first ("in Go files the user prefers"); the speaker, "i", in an
    instruction ("in the domain layer, prefer ...")."""
    return _holder_before(clause, re.search(r"\bprefer", clause.text, _I))


def _holder_before(clause: Clause, said: re.Match | None) -> str:
    """The holder named last before the preference word `said`."""
    before = _RAW_TOKEN.findall(clause.text[:said.start()].rsplit(",", 1)[-1]) if said else []
    # an instruction ("prefer X over Y") is what the speaker prefers: "I prefer X"
    if not before:
        return "i"
    # the words as the rules read them ("the FE folks" are the frontend team); a team
    # with the field it is named for ("the backend team" is not "the mobile team")
    who = [_same(word.casefold()) for word in before[-2:]]
    return _holder(" ".join(who) if who[-1] in _TEAMS else who[-1])


def _holder(named: str) -> str:
    """One name for each holder: "my preferred merge method" is what I prefer, "the
    payments team" and "payments" are one holder, "our" and "the team" are "we"."""
    if named in _MINE:
        return "i"
    return "we" if named in _OURS else _who(named)


# The speaker's team, however it is named: "we", "our", "the team", "our convention".
_OURS = frozenset({"we", "our", "the team", "our team", "convention", "conventions"})
# ... and the speaker's own, however an agent's notes name them: "the user prefers ..."
# is what "I prefer ..." says in the user's words.
_MINE = frozenset({"my", "me", "mine", "user"})
_MINE_NORMS = frozenset(_norm(word) for word in _MINE)


def _denied_value(a: Clause, b: Clause) -> JudgeVerdict | None:
    """"... with pip-tools, not Poetry" against a statement on the same subject using Poetry."""
    for denier, other in ((a, b), (b, a)):
        if other.negative or not denier.tokens or not other.tokens:
            continue
        if denier.norms[0] != other.norms[0]:
            continue
        # "tabs in Makefiles" / "spaces in Python, not tabs": each names a thing of its own
        names = [{t.norm for t in clause.tokens if t.value and _number(t.norm) is None}
                 - set(rest.norms) for clause, rest in ((denier, other), (other, denier))]
        if all(names):
            continue
        for found in _DENIED.finditer(denier.text):
            raw = found.group(1)
            denied = _norm(raw.casefold())
            # a name, or what the other chooses ("the user prefers tabs" / "... wants
            # spaces, not tabs")
            if not _is_value(raw, 1) and not any(
                    token.norm == denied and _VERB_KINDS.get(_norm(other.word_before(token)))
                    == "like" for token in other.tokens):
                continue
            if denied in other.norms and len(set(denier.norms) & set(other.norms)) >= KEY_WORDS:
                return _verdict(True, f"{raw} is denied by one statement and stated by the "
                                      f"other", 0.75)
    return None


def _amount(value: float | str) -> str:
    return f"{value:.15g}" if isinstance(value, float) else value


def _attributes(*clauses: Clause) -> set[str]:
    """The words that name what a number is ("length" in "a line length of 88")."""
    return {_norm(clause.words[token.at - 2]) for clause in clauses for token in clause.tokens
            if _number(token.norm) is not None and token.at >= 2
            and clause.words[token.at - 1] in _NAMING}


def _changed_measure(a: Clause, b: Clause, when: bool = True) -> JudgeVerdict | None:
    """The same quantity with another value, on one subject; with `when` False, not a
    schedule."""
    if _adds(a) or _adds(b):
        return None
    measured_a, measured_b = _measures_of(a.raws), _measures_of(b.raws)
    common = measured_a.keys() & measured_b.keys()
    if _numbered_apart(a, b):
        return None
    # one rate in two units ("100 requests per minute" / "6000 requests per hour"): what
    # else each number is said to be is the same rate
    if any("/" in key and measured_a[key] == measured_b[key] for key in common):
        return None
    for key in sorted(common):  # in one order, so a pair gets one reason in any process
        if _same_amount(key, measured_a[key], measured_b[key]):
            continue
        if not when and (key in _SCHEDULE_KEYS or key.startswith("time of day")):
            continue
        # a version and a release of it ("16" / "16.2", "5.2" / "5.2.4") agree
        if key.startswith("version of ") and _release_of(measured_a[key], measured_b[key]):
            continue
        # A statement naming both values tells a change ("from 1.25 to 1.29"), no clash;
        # so does one naming both days ("on Tuesdays and Thursdays")
        if _amount(measured_a[key]) in _said(b) or _amount(measured_b[key]) in _said(a):
            continue
        # The rest of each statement, without the measures: the same subject.
        # the unit, or the product of a version; an attribute ("length" of a "line
        # length of 88") stays: it is what the statements are about
        units = (set(_SECONDS) | set(_BYTES) | _COUNTING | _PERCENT | _ADMITTING
                 | _MEASURE_NOUNS.get(key, set())
                 | set(key.removeprefix("version of ").split("/")) - _attributes(a, b))
        schedule = key in _SCHEDULE_KEYS or key.startswith("time of day")
        if schedule:
            units |= _SCHEDULE_WORDS
        if key.startswith("version of "):  # "Go 1.22 is the toolchain for ..."
            # and the versions themselves, "1.9.22" too, which is no number, and an image
            # with its tag ("python:3.11")
            versions = {str(measured_a[key]), str(measured_b[key])}
            units |= _VERSION_NOUNS | _VERSION_RUNNERS | versions | {
                f"{key.removeprefix('version of ')}:{version}" for version in versions} | {
                token.norm for clause in (a, b) for token in clause.tokens
                if _GLUED_RELEASE.match(token.raw.casefold())}
            # the product written one way by one side only ("Node" beside "Node 18" /
            # "the Node 20 runtime"); written by both, it still ties their subjects
            units |= {token.norm for clause, other in ((a, b), (b, a)) for token in clause.tokens
                      if _known_as(f"version of {token.raw.casefold()}") == key
                      and token.norm not in other.norms}
        if key == "attempts":
            units |= _TRYING | set(_ORDINALS)
        if key == "page size":
            units |= _PAGE_WORDS
        subjects = [subject(a, _measuring(a, units, schedule=schedule)),
                    subject(b, _measuring(b, units, schedule=schedule))]
        # a statement that says nothing but the count ("we run 4 worker processes")
        # speaks of what it counts
        if (not subjects[0].key or not subjects[1].key) and _counts_things(key, a, b):
            subjects = [subject(clause, _measuring(clause, units - set(key.split("/")),
                                                   counted=True, schedule=schedule))
                        for clause in (a, b)]
        # "2-space indentation in YAML" / "4-space indentation in Python": each speaks of
        # a thing it names and the other does not
        if all(_names_of_its_own(side, other) for side, other in ((subjects[0], subjects[1]),
                                                                   (subjects[1], subjects[0]))):
            continue
        sure = subject_match(*subjects, restated=True)
        # a statement that says nothing but the product and its version ("Kafka 3.5 is
        # what we run") speaks of the product
        if key.startswith("version of ") and not (subjects[0].key and subjects[1].key):
            sure = 0.75
        # one side saying nothing of its own: a phrase the other adds after the subject
        # ("until the class components are gone", "checks for updates") narrows nothing,
        # unless it names a thing of its own or a word of it modifies a shared one
        if sure == 0.65 and (_adds_only_a_phrase(*subjects)
                             or _narrowed_on_one_side(*subjects)):
            sure = 0.75
        # a product's version where both name one identifier of theirs ("go.mod",
        # "terraform-modules", "Package.swift"): one slot, however else each says it
        if (key.startswith("version of ") and (sure is None or sure < CONFIDENT)
                and _identifiers(a) & _identifiers(b) and not _marked_apart(*subjects)):
            sure = CONFIDENT
        if sure is not None and sure >= CONFIDENT:
            return _verdict(True, f"the {_as_said(key, a, b)} changed: "
                                  f"{_readable(key, measured_a[key])} "
                                  f"against {_readable(key, measured_b[key])}", min(sure, 0.75))
    return None


_IDENTIFIER = re.compile(r"[a-z][-_.][a-z]")


def _identifiers(clause: Clause) -> set[str]:
    """The names a clause gives in the shape of code or files ("terraform-modules",
    "go.mod", "Package.swift"): not a known product, nor a version."""
    return {token.norm for token in clause.tokens
            if token.value and _IDENTIFIER.search(token.raw.casefold())
            and not value_categories.members((token.raw,))
            and not _VERSION_LIKE.match(token.norm)}


def _narrowed_on_one_side(a: Subject, b: Subject) -> bool:
    """Whether only one statement puts a word of its own before a word both say, and the
    other names no rival of it: "Session cache TTL in Redis" / "Redis session keys
    expire" speak of one setting, where "the image-resize queue" / "the email queue" and
    "staging logs" / "production logs" name two things. Neither may speak of the past, nor
    say words of its own after a preposition ("for the export endpoint")."""
    shared = a.key & b.key
    unique_a, unique_b = a.key - shared, b.key - shared
    if (len(shared) < KEY_WORDS or any(map(_past_state, (a.clause, b.clause)))
            or not _qualified_alike(a, b) or _lists_amounts(a.clause) or _lists_amounts(b.clause)
            or _an_earlier_one(a, shared) or _an_earlier_one(b, shared)):
        return False
    # what two holders want ("the data team wants PRs under 400 lines" / "the user likes
    # them under 300") is two preferences
    holders = [_preference_holder(side.clause) for side in (a, b)]
    if all(holders) and not _same_holder(*holders):
        return False
    narrowed = [_modifies(side, unique | _compounds_of(side, unique), shared)
                for side, unique in ((a, unique_a), (b, unique_b))]
    return (narrowed[0] != narrowed[1]
            and not _phrased_apart(a, unique_a, b, unique_b, False, shared)
            and not _named_in_a_phrase(a, unique_a) and not _named_in_a_phrase(b, unique_b))


def _named_in_a_phrase(side: Subject, unique: set[str]) -> bool:
    """Whether a statement names a thing of its own after a preposition ("log retention
    in Loki"): where or with what, which may be only part of what the other speaks of."""
    clause = side.clause
    return any(token.value and side.word(at) in unique
               and clause.word_before(token) in PREPOSITIONS
               for at, token in enumerate(clause.tokens))


def _lists_amounts(clause: Clause) -> bool:
    """Whether a clause gives two durations or two sizes ("raw readings are kept 90 days,
    hourly rollups 2 years"): a list of things, each with its own."""
    words = clause.words
    units = [_norm(after) for word, after in itertools.pairwise(words)
             if _number(word) is not None]
    return any(sum(unit in table for unit in units) > 1 for table in (_SECONDS, _BYTES))


def _an_earlier_one(side: Subject, shared: set[str]) -> bool:
    """Whether a statement calls a thing both name an earlier one ("the old audit
    retention policy"): its history, not what holds now."""
    tokens = side.clause.tokens
    return any(token.raw.casefold() in lexicon.EARLIER and side.word(at + 1) in shared
               for at, token in enumerate(tokens[:-1]))


def _compounds_of(side: Subject, unique: set[str]) -> set[str]:
    """The compounds of a subject made only of words the other does not say
    ("image-resize" before "queue")."""
    return {word for word in side.words.values()
            if "-" in word and set(word.split("-")) <= unique}


def _adds_only_a_phrase(a: Subject, b: Subject) -> bool:
    """Whether one statement's subject says nothing the other's does not, and what the
    other adds is no name of its own and modifies no word both say."""
    shared = a.key & b.key
    unique_a, unique_b = a.key - shared, b.key - shared
    if unique_a and unique_b:
        return False
    adding, unique = (a, unique_a) if unique_a else (b, unique_b)
    other = b if adding is a else a
    return not _names_of_its_own(adding, other) and not _modifies(adding, unique, shared)


# Units a person reads an amount in, largest first: (how many of the measure's own unit,
# name). Durations and periods are kept in seconds, sizes in bytes, times of day in
# minutes after midnight.
_READABLE_UNITS = {
    "duration": ((86400, "days"), (3600, "hours"), (60, "minutes"), (1, "seconds"),
                 (0.001, "ms")),
    "size": ((1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "kB"), (1, "bytes")),
}
_READABLE_UNITS["period"] = _READABLE_UNITS["duration"]


def _as_said(key: str, *clauses: Clause) -> str:
    """What a measure counts, in the words a statement wrote: its key holds them stemmed
    ("messag" for "messages"), and a person reads the reason."""
    said = {token.norm: token.raw.casefold() for clause in reversed(clauses)
            for token in clause.tokens}
    return "/".join(said.get(part, part) for part in key.split("/"))


def _readable(key: str, value: float | str) -> str:
    """An amount as a person would write it: "15 minutes", not 900; "50 MB", not
    50000000; "02:00", not 120."""
    if isinstance(value, str):
        return value
    if key.startswith("time of day") and 0 <= value < 24 * 60:
        return f"{int(value) // 60:02d}:{int(value) % 60:02d}"
    filled = [(size, name) for size, name in _READABLE_UNITS.get(key, ()) if value >= size]
    # the largest unit that counts it whole ("90 seconds"), else the largest it fills
    whole = [(size, name) for size, name in filled
             if math.isclose(round(value / size), value / size)]
    if not filled:
        return _amount(value)
    size, name = (whole or filled)[0]
    count = value / size
    return f"{count:.15g} {name.removesuffix('s') if count == 1 else name}"


def _same_amount(key: str, x, y) -> bool:
    """Whether two amounts of one measure are one; sizes said in decimal and binary units
    are ("2 GB" / "2048 MB", "1 GB" / "1 GiB": their ratio a power of 1.024), and rates
    within rounding."""
    if x == y:
        return True
    # a rate said in another unit is often rounded ("16.7 requests a second" is 1,000 a
    # minute)
    if "/" in key and isinstance(x, float) and isinstance(y, float):
        return math.isclose(x, y, rel_tol=RATE_ROUNDING)
    # "seven years" is "84 months", though a month is counted as 30 days and a year as 365
    if key in ("duration", "period") and (months := _months(x)) is not None:
        return months == _months(y)
    if key != "size" or min(x, y) <= 0:
        return False
    ratio = max(x, y) / min(x, y)
    return any(math.isclose(ratio, 1.024 ** power, rel_tol=1e-6) for power in range(1, 5))


def _months(seconds) -> int | None:
    """How many months a whole number of years or months is, else None."""
    if not isinstance(seconds, float):
        return None
    days = seconds / _SECONDS["day"]
    for size, months in ((365, 12), (30, 1)):
        if days >= size and math.isclose(days / size, round(days / size)):
            return round(days / size) * months
    return None


def _names_of_its_own(side: Subject, other: Subject) -> bool:
    """Whether a statement's subject says a name (not a number) the other's does not."""
    tokens = side.clause.tokens
    return any(tokens[at].value and _number(tokens[at].norm) is None
               and not set(word.split("-")) <= other.key for at, word in side.words.items())


def _release_of(a, b) -> bool:
    """Whether one version is a release of the other ("16.2" of "16")."""
    a, b = str(a), str(b)
    return a.startswith(b + ".") or b.startswith(a + ".")


def _said(clause: Clause) -> set[str]:
    """The words of a clause, and each plural's singular ("tuesdays" says "tuesday")."""
    words = set(clause.words)
    return words | {word[:-1] for word in words if word.endswith("s")}


def _numbered_apart(a: Clause, b: Clause) -> bool:
    """Whether two statements open on one noun numbered two ways ("sprint 1" / "sprint
    2", "phase two" / "phase three"): two things."""
    return (len(a.tokens) > 1 and len(b.tokens) > 1 and a.norms[0] == b.norms[0]
            and _number(a.norms[0]) is None and _number(a.norms[1]) is not None
            and _number(b.norms[1]) is not None and a.norms[1] != b.norms[1])


def _changed_amount(a: Clause, b: Clause) -> JudgeVerdict | None:
    """A changed measure between a statement and a negation: not of when ("not allowed
    on Fridays" / "allowed on Saturdays" name two days, not two answers to one)."""
    return _changed_measure(a, b, when=False)


def _counts_things(key: str, a: Clause, b: Clause) -> bool:
    """Whether a measure is a count of things ("8 processes"), not a kind of measure
    (a duration, a version) nor what "a line length of 88" names."""
    return (key not in _MEASURE_KINDS and key not in _attributes(a, b)
            and not key.startswith(("version of ", "time of day")))


def _swapped_ends(a: Clause, b: Clause) -> bool:
    """Two words, or the words on either side of one, trade places and all else stays
    ("billing calls auth" / "auth calls billing", "the mobile app calls the gateway" /
    "the gateway calls the mobile app"): subject and object exchanged."""
    differ = [i for i, (x, y) in enumerate(zip(a.norms, b.norms)) if x != y]
    # two words side by side in one statement and apart in the other are no ends with a
    # relation between them but a word and its modifier or verb ("new RxJava code" /
    # "RxJava in new code", "override with --timeout" / "--timeout overrides it"): one
    # thing said twice ("staging > prod" / "prod > staging" are ends in both)
    if (len(differ) == 2 and len({clause.tokens[differ[1]].at - clause.tokens[differ[0]].at > 1
                                  for clause in (a, b)}) == 1
            and a.norms[differ[0]] == b.norms[differ[1]]
            and a.norms[differ[1]] == b.norms[differ[0]]):
        return True
    return any(a.norms[:at] != a.norms[at + 1:]
               and b.norms == [*a.norms[at + 1:], a.norms[at], *a.norms[:at]]
               and _around(a, at) == _around(b, len(a.norms) - at - 1)
               for at in range(1, len(a.norms) - 1))


def _around(clause: Clause, at: int) -> set[str]:
    """The prepositions between the words on either side of token `at`: "run on" in
    "jobs run on Sidekiq" is no "runs" in "Sidekiq runs our jobs"."""
    tokens = clause.tokens
    return {word for word in clause.words[tokens[at - 1].at + 1:tokens[at + 1].at]
            if word in PREPOSITIONS}


def _reversed_direction(a: Clause, b: Clause) -> JudgeVerdict | None:
    """The same words, arranged into another fact: "billing depends on auth" / "auth
    depends on billing", "from A to B" / "from B to A" (dedup's conflicting_arrangement,
    without its modal verbs: "must" against "may" is no contradiction)."""
    if len(a.tokens) < KEY_WORDS or sorted(a.norms) != sorted(b.norms):
        return None
    if a.norms == b.norms or not conflicting_arrangement(a.text, b.text, modals=False,
                                                         order=False) and not _swapped_ends(a, b):
        return None
    # "the handbook is built with MkDocs" / "MkDocs builds the handbook": one fact in
    # two voices
    if _passive(a) != _passive(b):
        return None
    return _verdict(True, "the same words in another direction: "
                          f"{a.text!r} against {b.text!r}", 0.8)


def _ends(text: str) -> set[str]:
    """The words that say an end of a flow, or what moves: not the flow's verbs and nouns,
    nor a preposition left where an end was taken out ("we replicate from ... into ...")."""
    # a compound by its parts too: "orders-svc" is "the orders service"
    return {word for norm in read_clause(text).norms
            if norm not in _FLOW_WORDS and norm not in PREPOSITIONS
            for word in {norm, *(_norm(part) for part in norm.split("-") if "-" in norm)} if word}


_FLOW_WORDS = frozenset(_norm(word) for word in (*flows.SENDING.split("|"),
                                                 *flows.RECEIVING.split("|"), "flow", "flows",
                                                 *flows.NEEDING.replace("|", " ").split(),
                                                 "move", "moves", *lexicon.LINKING_VERBS,
                                                 # the nouns of a flow ("replication runs
                                                 # from A to B")
                                                 "replication", "synchronisation",
                                                 "synchronization", "transfer", "transfers"))


def _reversed_flow(a: Clause, b: Clause) -> JudgeVerdict | None:
    """Something moves between the same two ends the other way round, said with other
    words: "events flow from the orders service to the analytics service" / "the
    analytics service sends events to the orders service". Not when what moves differs
    ("orders are synced from A to B" / "stock levels are synced from B to A")."""
    for read in (flows.flow, flows.dependency):
        flow_a, flow_b = read(a.text), read(b.text)
        if flow_a and flow_b and (found := _flow_reversed(flow_a, flow_b,
                                                          moved=read is flows.flow)):
            return found
    return None


def _flow_reversed(flow_a: flows.Flow, flow_b: flows.Flow, *,
                   moved: bool) -> JudgeVerdict | None:
    source_a, target_a = _ends(flow_a.source), _ends(flow_a.target)
    source_b, target_b = _ends(flow_b.source), _ends(flow_b.target)
    if not (source_a and target_a) or source_a == target_a:
        return None
    if not (_same_end(source_a, target_b) and _same_end(target_a, source_b)):
        return None
    # what moves must be one thing; a need is the need whatever it is for
    moved_a, moved_b = (_ends(flow_a.rest), _ends(flow_b.rest)) if moved else ((), ())
    if moved_a and moved_b and not moved_a & moved_b:
        return None
    return _verdict(True, f"the other way round: from {flow_a.source!r} to "
                          f"{flow_a.target!r} against from {flow_b.source!r} to "
                          f"{flow_b.target!r}", 0.8)


def _same_end(a: set[str], b: set[str]) -> bool:
    """Whether two ends of a flow are one: the same words, or one's words all said by the
    other ("Frankfurt" / "the Frankfurt replica")."""
    smaller = min(a, b, key=len)
    return a == b or bool(smaller - set(_RUNNING_THINGS.values()) and (a <= b or b <= a))


def _passive(clause: Clause) -> bool:
    """Whether a clause is in the passive voice: "is" or "are" before a past participle
    ("is built", "are copied")."""
    words = clause.words
    return any(word in _COPULAS and (following.endswith(("ed", "en")) or following in IRREGULAR)
               for word, following in itertools.pairwise(words))


def _measuring(clause: Clause, values: set[str], counted: bool = False,
               schedule: bool = True):
    """Which tokens of `clause` are a value rather than its subject: those in `values`,
    numbers, and the word after a number ("40 characters", "Django 4.2 LTS") unless it
    says what is `counted`; a word of how often ("nightly") only for a `schedule`,
    else it names the subject ("the nightly ETL" / "the hourly ETL"). Of a run of words
    after a number ("12 ingest worker replicas") only the last is what is counted: the
    others say which ones, as "the ingest worker pool" does."""
    words = clause.words
    after_number = {_counted_run(words, before.at) if not _a_unit(after.norm) else after.at
                    for before, after in itertools.pairwise(clause.tokens)
                    if _number(before.norm) is not None and after.at == before.at + 1
                    and not counted}
    # "a full year": the stressing word is part of the amount
    stressed = {at for at in range(1, len(words) - 1) if words[at] in _WHOLE
                and words[at - 1] in ("a", "an") and _norm(words[at + 1]) in _SECONDS}
    return lambda token: ((token.norm in values or token.at in after_number | stressed
                           or _number(token.norm) is not None or schedules.is_clock(token.raw))
                          and (schedule or token.raw.casefold() not in schedules.FREQUENCIES))


def _a_unit(norm: str) -> bool:
    """Whether a word after a number is its unit ("5 minutes", "10 MB", "90 %")."""
    return norm in _SECONDS or norm in _BYTES or norm in _PERCENT


def _amounts(clause: Clause) -> set[str]:
    """The numbers of `clause` a unit or a thing counted follows ("5" in "5 minutes",
    "3" in "3 attempts"): measures, compared by _changed_measure in the same units."""
    return {before.norm for before, after in itertools.pairwise(clause.tokens)
            if _number(before.norm) is not None and after.at == before.at + 1
            and _number(after.norm) is None}


def _numeric(values: set[str]) -> bool:
    """Whether a value is a number or a version ("20", "3.11", "v2", "python3.10"), not a
    name with a digit in it ("prod-eu-1", "s3")."""
    return any(_VERSION_LIKE.match(value) for value in values)


# a port with its protocol ("7777/udp") is a number too
_VERSION_LIKE = re.compile(r"^(?:v?\d[\d.]*(?:[a-z]{0,3}\d*)?|[a-z]+(?:\d+\.)+\d+|\d+/(?:tcp|udp))$")


def _versioned_elsewhere(clause: Clause, values: set[str], other: Clause) -> bool:
    """Whether one of `values` is a version ("1.22", "v2", "20") of a product named right
    before it ("Go", "Unreal Engine", "Node") that `other` never names."""
    tokens = clause.tokens
    for at, token in enumerate(tokens):
        # a whole number is a version after a name ("Node 20") unless a noun it counts
        # follows ("GKE 3 nodes")
        counts = at + 1 < len(tokens) and tokens[at + 1].at == token.at + 1
        if token.norm not in values or not _RELEASE.match(token.norm) or (
                "." not in token.norm and counts):
            continue
        product, start = [], at
        while start > 0 and tokens[start - 1].value and tokens[start - 1].at == tokens[start].at - 1:
            start -= 1
            product.append(tokens[start].norm)
        # named with its version glued on counts too ("python3.10" names Python)
        if product and not any(norm == word or (norm.startswith(word)
                                                and norm[len(word):][:1].isdigit())
                               for norm in other.norms for word in product):
            return True
    return False


_RELEASE = re.compile(r"^v?\d+(?:\.\d+)*$")  # "v2", "1.22", "20"


_HAVING = frozenset({"has", "have", "had"})


def _a_thing_of_its_own(clause: Clause, values: set[str]) -> bool:
    """Whether `values` name a thing of their own in `clause`: a name ("urfave/cli"), a
    number right after a word, the version of what that word names ("Go 1.22"), or a
    number something has, a count of things it leaves unsaid ("train has 32"); not a
    number a statement gives as its slot's value ("the runtime is 18")."""
    tokens = clause.tokens
    return any(not _VERSION_LIKE.match(token.norm)
               or (at > 0 and tokens[at - 1].at == token.at - 1)
               or clause.word_before(token) in _HAVING
               for at, token in enumerate(tokens) if token.norm in values)



def _people(clause: Clause) -> set[str]:
    """The words of `clause` that name someone: who holds a role in it ("Emeka Eze owns
    the image") and a name after a role ("owner: Priya", "maintainer Astrid")."""
    found = {_norm(word) for holding in _holdings(clause) for word in holding.agent.split()}
    return found | {token.norm for before, token in itertools.pairwise(clause.tokens)
                    if token.value and before.raw.casefold() in lexicon.ROLE_NOUNS
                    and token.at == before.at + 1}


def _channel(values: set[str]) -> bool:
    return any(value.startswith("#") for value in values)


def _named_after_one_noun(a: Clause, only_a: set[str], b: Clause, only_b: set[str]) -> bool:
    """Whether, among its first words, each statement puts a value of its own right after
    the same word: "DAG ingest_orders" / "DAG build_marts" (not "owner is Priya" / "owner
    is Tomás", where the value is what is said of the word)."""
    def named(clause: Clause, only: set[str]) -> set[str]:
        head = clause.tokens[:SUBJECT_HEAD + 1]
        return {before.norm for before, after in itertools.pairwise(head)
                if after.at == before.at + 1 and before.norm not in only_a | only_b
                and after.value and after.norm in only}
    return bool(named(a, only_a) & named(b, only_b))


def _changed_value(a: Clause, b: Clause) -> JudgeVerdict | None:
    """The same subject with another value, in any word order: "the docs are built with
    Sphinx 7" / "we build the docs with Sphinx 5.3"; "background jobs run on Sidekiq" /
    "we process background jobs with Resque". Not when either adds to what is known
    ("also"), nor when the values fill different roles ("pushed to ECR" / "scanned with
    Trivy")."""
    if _adds(a) or _adds(b):
        return None
    # a state in the past tense against one in the present is history ("pool_size was 20"
    # / "pool_size: 40"); "was" says it, where "supported platforms" need not
    if _was(a) != _was(b):
        return None
    # A name is a value in both statements though one opens on it ("Prometheus scrapes"),
    # unless either also writes it as a plain word ("secrets" / "AWS Secrets Manager").
    # a plain word each gives as what the thing is, last ("the default branch is main" /
    # "... has been renamed to trunk"), is a value of both
    given_a, given_b = _given(a), _given(b)
    given = given_a | given_b if given_a and given_b else set()
    plain = {t.norm for t in (*a.tokens, *b.tokens) if not t.value and t.raw.islower()} - given
    # an amount with a unit ("5 minutes", "10 MB"), the unit too, is a measure: _changed_measure's
    # and so is a time of day ("3am" is "03:00")
    # and so is a day ("on Mondays", "in January"): a schedule
    named = ({t.norm for t in (*a.tokens, *b.tokens) if (t.value or t.norm in given)
              and not schedules.is_clock(t.raw)
              and t.raw.casefold().removesuffix("s") not in _CALENDAR}
             - plain - _amounts(a) - _amounts(b) - set(_BYTES) - set(_SECONDS)
             - _years(a) - _years(b))
    # a member a statement passes over or moves off ("switched from Bugsnag to Sentry",
    # "tried Rollbar before settling on Sentry") is none of its values
    values_a, values_b = ({t.norm for t in clause.tokens if t.norm in named
                           and t.at not in behind}
                          for clause, behind in ((a, _left_behind(a)), (b, _left_behind(b))))
    only_a, only_b = values_a - values_b, values_b - values_a
    if not only_a or not only_b or max(len(only_a), len(only_b)) > SHORT_SLOT:
        return None
    # each names its own after one noun that opens both ("Airflow DAG ingest_orders" /
    # "Airflow DAG build_marts"): two things of one kind, two subjects
    if _named_after_one_noun(a, only_a, b, only_b):
        return None
    # A number does not take the place of a name ("Node 20" / "Vite"): another slot.
    if _numeric(only_a) != _numeric(only_b):
        return None
    # nor a chat channel a name of another kind ("in #releases" / "through CI")
    if _channel(only_a) != _channel(only_b):
        return None
    # nor a person a thing ("Priya Raman owns payments-api" / "payments-api listens on
    # 8443 (TLS)"): who holds it and what it is are two slots
    if (only_a <= _people(a)) != (only_b <= _people(b)):
        return None
    # nor a name that says which kind of thing a word of its own is ("the p95 latency
    # target is 120 ms", "its Postgres database"): it qualifies, it fills no slot
    if any(only and all(_qualifies(clause, token, other) for token in clause.tokens
                        if token.norm in only)
           for clause, only, other in ((a, only_a, b), (b, only_b, a))):
        return None
    # nor a person and a thing together ("Leila Haddad owns sync-service and its Postgres
    # database" / "sync-service p95 latency target: 300 ms"): they fill two slots
    if any(only & _people(clause) and only - _people(clause)
           for clause, only in ((a, only_a), (b, only_b))):
        return None
    # a version is its product's ("Go 1.22" / "urfave/cli v2 is the CLI framework"): one
    # whose product the other statement never names, against another name, speaks of
    # another thing; against a bare number it may be the value of the same slot ("runs
    # Node 20" / "the runtime is 18")
    if ((_versioned_elsewhere(a, only_a, b) and _a_thing_of_its_own(b, only_b))
            or (_versioned_elsewhere(b, only_b, a) and _a_thing_of_its_own(a, only_a))):
        return None
    # a version and a release of it ("PG 16" / "pg: 16.2") agree
    if any(_release_of(x, y) for x in only_a for y in only_b):
        return None
    # Two unknown names, each with its number ("the SDK supports Python 3.9" / "the CLI
    # supports Python 3.11"): the names are what each speaks of.
    if all(_numeric(only) and _categories_of(clause, only) is None
           for clause, only in ((a, only_a), (b, only_b))):
        return None
    roles = [{_role(clause, t) for t in clause.tokens if t.norm in only} - {""}
             for clause, only in ((a, only_a), (b, only_b))]
    if roles[0] and roles[1] and not roles[0] & roles[1]:
        return None
    if (_known_apart(a, only_a, b, only_b) or _opened_apart(a, b) or _opened_apart(b, a)
            or _numbered_apart(a, b)):
        return None
    # the zone of a time of day is its unit ("10am UTC" / "11am CET" is one time)
    if only_a | only_b <= schedules.ZONES and _both_clocks(a, b):
        return None
    # a value both name stays part of the subject ("the admin API" / "the public API")
    changed = only_a | only_b
    subjects = subject(a, _measuring(a, changed)), subject(b, _measuring(b, changed))
    _named_kinds(subjects[0], only_a, subjects[1])
    _named_kinds(subjects[1], only_b, subjects[0])
    confidence = subject_match(*subjects, (only_a, only_b))
    # one shared word is too little to pin a subject for names no category knows
    # ("the `new-checkout` flag is enabled in production" / "production runs 6 API
    # replicas")
    shared = subjects[0].key & subjects[1].key
    if (confidence is not None and len(shared - _KINDS) < KEY_WORDS
            and max(len(side.key - shared - _KINDS) for side in subjects) >= KEY_WORDS
            and (_categories_of(a, only_a) is None or _categories_of(b, only_b) is None)):
        return None
    if confidence is None or confidence < CONFIDENT:  # order-free: weak unless sure
        return None
    shown_a = " ".join(t.raw for t in a.tokens if t.norm in only_a)
    shown_b = " ".join(t.raw for t in b.tokens if t.norm in only_b)
    return _verdict(True, f"the same subject with another value: {shown_a!r} against "
                          f"{shown_b!r}", confidence)


_YEAR = re.compile(r"^(?:19|20)\d\d$")
_BEFORE_A_YEAR = frozenset({"in", "since", "until", "by", "before", "after", "from", "during"})


def _years(clause: Clause) -> set[str]:
    """The years a clause says when something happened ("moved to Postgres in 2022"):
    a time, no value of the thing."""
    return {token.norm for token in clause.tokens
            if _YEAR.match(token.raw) and clause.word_before(token) in _BEFORE_A_YEAR}


def _qualifies(clause: Clause, token: Token, other: Clause) -> bool:
    """Whether a value stands right before a plain word the other statement does not say,
    as "p95" before "latency": it names a kind of that thing."""
    after = [t for t in clause.tokens if t.at == token.at + 1]
    return bool(after) and not after[0].value and after[0].norm not in set(other.norms) \
        and not _linking(after[0].raw.casefold()) and after[0].norm not in _VERB_KINDS \
        and after[0].norm not in _WHAT_A_NAME_IS


# Nouns that say what a named thing is ("a Tauri app", "an MLflow server"): the name is
# still the value.
_WHAT_A_NAME_IS = frozenset({*_RUNNING_THINGS, *(_norm(word) for word in (
    "app", "application", "instance", "cluster", "library", "framework", "tool", "engine",
    "platform", "runtime"))})


_GIVING = frozenset({"renamed", "set", "changed", "switched"})


def _given(clause: Clause) -> set[str]:
    """The plain word a clause ends on as what its subject is: after "is" or "are", or
    after "renamed to", "set to" ("the default branch is main", "renamed to trunk")."""
    last = clause.tokens[-1] if clause.tokens else None
    # a verb's form or a quality says how it is ("are running", "is stable"), not what
    if (last is None or last.value or not last.raw.isalpha() or not last.raw.islower()
            or last.at != len(clause.raws) - 1 or last.at < 2
            or last.raw.endswith(("ing", *_QUALITY_ENDINGS)) or _participle(last.raw)):
        return set()
    before = clause.words[last.at - 1]
    if before in ("is", "are") or (before == "to" and clause.words[last.at - 2] in _GIVING):
        return {last.norm}
    return set()


def _both_clocks(a: Clause, b: Clause) -> bool:
    """Whether both statements say a time of day: their zones are its units."""
    return all(any(key.startswith("time of day") for key in _measures_of(clause.raws))
               for clause in (a, b))


def _opened_apart(a: Clause, b: Clause) -> bool:
    """Whether `a` opens on a name `b` does not say and `b` on a word `a` does not say:
    "the CLI is built with Node 18" / "the web app is built with Node 20" speak of two
    things, whatever value each gives."""
    said_a, said_b = set(a.norms), set(b.norms)
    return (any(token.value and _number(token.norm) is None and token.norm not in said_b
                for token in a.tokens[:1])
            and any(not token.value and token.norm not in said_a
                    and token.norm not in _LINKING and token.norm not in _VERB_KINDS
                    for token in b.tokens[:SUBJECT_HEAD]))


def _named_kinds(side: Subject, values: set[str], other: Subject) -> None:
    """A known thing says what kind of thing it is: "Staging's Postgres instance" speaks
    of the staging database too. The kind nouns of `values`' categories that the other
    statement says are added to `side`'s subject."""
    found = value_categories.members(side.clause.raws)
    places = {token.at for token in side.clause.tokens if token.norm in values}
    nouns = {_norm(noun) for f in found if places & set(f.at)
             for noun in value_categories.KIND_NOUNS.get(f.category, "").split()}
    if not side.key & other.key - _KINDS:
        return  # a kind alone pins no subject ("the database is Postgres" / "replicas run MySQL")
    for extra, noun in enumerate(sorted(nouns & other.key - side.key), 1):
        side.words[-extra] = noun


def _categories_of(clause: Clause, values: set[str]) -> set[str] | None:
    """The categories the names among `values` in `clause` are members of (numbers are
    no names: "Postgres 14" is Postgres); None when a name is a member of none."""
    found = value_categories.members(clause.raws)
    categories = set()
    for token in clause.tokens:
        if token.norm in values and _number(token.norm) is None:
            of = {f.category for f in found if token.at in f.at}
            if not of:
                return None
            categories |= of
    return categories


def _known_apart(a: Clause, only_a: set[str], b: Clause, only_b: set[str]) -> bool:
    """Whether one statement's values are known members of categories the other's are
    not: "written in YAML" / "validated in CI", "Postgres 14" / "Redis 7" fill two
    slots. Numbers alone say nothing of it."""
    of_a, of_b = _categories_of(a, only_a), _categories_of(b, only_b)
    if of_a == set() or of_b == set():
        return False
    return (of_a is None) != (of_b is None) or bool(of_a and of_b and not of_a & of_b)


def _changed_member(a: Clause, b: Clause) -> JudgeVerdict | None:
    """Two members of one closed category (value_categories) in statements of one
    subject: "configuration files are written in YAML" / "our config files use TOML",
    "backups run on Jenkins" / "we run backups from GitHub Actions". Not when either also
    names the other's member, nor when either adds ("also")."""
    if _adds(a) or _adds(b):
        return None
    # what a statement passes over or moves off is none of its members ("we tried Kafka"),
    # though it still names it ("use pnpm, not npm" names npm)
    said_a, said_b = (value_categories.members(clause.raws) for clause in (a, b))
    found_a, found_b = ([f for f in said if not set(f.at) & behind]
                        for said, behind in ((said_a, _left_behind(a)), (said_b, _left_behind(b))))
    for category in sorted({f.category for f in found_a} & {f.category for f in found_b}):
        if category == _ZONE_CATEGORY and _both_clocks(a, b):
            continue
        named_a = {f.member for f in found_a if f.category == category}
        named_b = {f.member for f in found_b if f.category == category}
        if named_a & {f.member for f in said_b} or named_b & {f.member for f in said_a}:
            continue
        places_a = {at for f in found_a if f.category == category for at in f.at}
        places_b = {at for f in found_b if f.category == category for at in f.at}
        scale = category in value_categories.SCALES
        values = ((set(), set()) if scale
                  else ({t.norm for t in a.tokens if t.at in places_a},
                        {t.norm for t in b.tokens if t.at in places_b}))
        # a word two members' names share is no value of its own ("British English" /
        # "American English")
        values = (values[0] - values[1], values[1] - values[0])
        subjects = (subject(a, _naming(a, places_a, category)),
                    subject(b, _naming(b, places_b, category)))
        sure = subject_match(*subjects, values, lenient=True, manner=scale)
        # a statement that says nothing but the category's words and its member
        # ("Experiment tracking: Weights & Biases") speaks of the project's whole, as one
        # of a word more that says them too does ("ML experiments are tracked in MLflow")
        if ((sure is None or sure < CONFIDENT) and not scale
                and min(len(side.key) for side in subjects) == 0
                and max(len(side.key) for side in subjects) <= 1
                and all(value_categories.kind_nouns(category) & set(clause.words)
                        for clause in (a, b))):
            sure = CONFIDENT
        if (sure is None or sure < CONFIDENT) and not scale and _the_only_one(
                a, b, *subjects, category):
            sure = CONFIDENT
        if sure is not None and sure >= CONFIDENT:
            return _verdict(True, f"another {category} for the same subject: "
                                  f"{', '.join(sorted(named_a))!r} against "
                                  f"{', '.join(sorted(named_b))!r}", min(sure, 0.8))
    return None


_ZONE_CATEGORY = "time zone"


def _the_only_one(a: Clause, b: Clause, subject_a: Subject, subject_b: Subject,
                  category: str) -> bool:
    """Whether one statement says its member is the only one ("provisioned exclusively
    with Terraform", "Rollbar, our only error tracker") and the two share a word of
    their subject: then any other member of the category, on that subject, clashes,
    however else each statement words it. Subjects as subject_match left them."""
    shared = subject_a.key & subject_b.key - _KINDS
    # both saying the category's own words ("error tracking" / "exceptions are reported
    # to ..."), or one saying nothing else ("Error tracking -> Sentry"), speak of the
    # project's whole
    kinds = value_categories.kind_nouns(category)
    whole = all(kinds & set(clause.words) for clause in (a, b)) or not (
        subject_a.key and subject_b.key)
    return (a.exclusive or b.exclusive) and bool(shared or whole) \
        and not _marked_apart(subject_a, subject_b) \
        and not _ways_apart(a, b) \
        and not _qualified_apart(subject_a, subject_b)


_SENDING = frozenset({*flows.SENDING.split("|"), *lexicon.VERB_KINDS["answer"].split()})
_RECEIVING = frozenset(flows.RECEIVING.split("|"))


def _ways_apart(a: Clause, b: Clause) -> bool:
    """Whether one statement speaks of what comes in ("the API only accepts JSON") and
    the other of what goes out ("the API returns XML errors"): two slots."""
    ways = [(bool(_SENDING & set(clause.words)), bool(_RECEIVING & set(clause.words)))
            for clause in (a, b)]
    return ways[0] != ways[1] and any(ways[0]) and any(ways[1])


# Words that say where something is denied without narrowing it: "there is no Celery
# anywhere in the stack" denies Celery for the whole project.
_WHOLE_SCOPE = frozenset(_norm(word) for word in (
    "anywhere", "stack", "project", "codebase", "repository", "monorepo", "here", "all",
    "company", "org", "organisation", "organization", "team"))


_CHOSEN = frozenset(_norm(word) for word in (*_CHOOSING, "picked", "chose", "chosen"))
_WORKED_BY = frozenset({"by", "with", "via", "through"})


def _denied_outright(a: Clause, b: Clause) -> JudgeVerdict | None:
    """A known thing denied with nothing to narrow it ("pnpm is not used", "there is no
    Celery anywhere in the stack", "we don't use Sentry") against a statement that uses
    or chose it ("the team uses pnpm to manage dependencies")."""
    denier, other = (a, b) if a.negative else (b, a)
    # "caches keys in memory, not in Redis": a "not" and a phrase, with no verb of its own,
    # denies the thing only for what the clause before it does
    if _adds(other) or (denier.words[:1] == ["not"] and denier.words[1:2]
                        and denier.words[1] in PREPOSITIONS):
        return None
    for found in value_categories.members(denier.raws):
        rest = subject(denier, lambda token, at=found.at: token.at in at).key - _WHOLE_SCOPE
        said = [f for f in value_categories.members(other.raws) if f.member == found.member]
        uses = {word for word in other.words if _linking(word) or _norm(word) in _CHOSEN}
        # "jobs are processed by Celery workers", "goes through RQ": what does the work
        worked_by = any(other.words[at - 1] in _WORKED_BY for f in said for at in f.at[:1]
                        if at > 0)
        # a denial narrowed only by what the other says too ("CI doesn't run mypy" /
        # "type checking with mypy is a required step in CI") denies it there
        if rest:
            others = subject(other, lambda token: False).key
            rest = rest - others
        if not rest and said and (uses or worked_by):
            return _verdict(True, f"{' '.join(denier.raws[at] for at in found.at)!r} is "
                                  f"denied outright by one statement and used by the other",
                            0.75)
    return None


# Words that deny a thing in every case: "does not use Redis at all", "no retries of any
# kind".
_AT_ALL = re.compile(r"\b(?:at\s+all|whatsoever|of\s+any\s+kind)\b", _I)


def _denied_at_all(a: Clause, b: Clause) -> JudgeVerdict | None:
    """A thing denied in every case ("CI doesn't run mypy at all", "there's no rate
    limiting on the public API at all") against a statement that says it is there ("type
    checking with mypy is a required step in CI"): what is denied is said by the other,
    which shares a word of the rest, and neither narrows to a thing of its own."""
    denier, other = (a, b) if a.negative else (b, a)
    if not _AT_ALL.search(denier.text):
        return None
    said = {_VERB_KINDS.get(word, word) for word in other.norms}
    phrase = _denied_phrase(denier)
    if phrase:
        # the thing itself, if not each word of how it is set up ("no Vault audit device
        # configured at all" / "Vault has a file audit device enabled")
        if len(phrase & said) < max(1, len(phrase) - 1):
            return None
        denied = phrase
    elif denier.negated in _LINKING:  # "does not use Redis": Redis is what is denied
        if not _object_said(denier, other):
            return None
        denied = set()
    elif _VERB_KINDS.get(denier.negated, denier.negated) in said:
        denied = {denier.negated}
    else:
        return None
    sides = [subject(clause, _nothing, opposites=False) for clause in (denier, other)]
    rest = (sides[0].key & sides[1].key) - denied - _WHOLE_SCOPE
    if not rest or _elsewhere(*sides, either_narrows=False):
        return None
    return _verdict(True, f"one statement denies in every case what the other says: "
                          f"{denier.text!r} against {other.text!r}", 0.8)


# Words right before a member that say it was passed over, not chosen: "Zustand
# instead of Redux", "rather than Jenkins", "in place of MySQL", "replaced Webpack with
# Vite", "moved off Heroku", "migrated away from Travis".
_PASSED_OVER = re.compile(r"(?:\binstead\s+of|\brather\s+than|\bin\s+place\s+of|\breplac(?:e|es|ed|ing)"
                          r"|\b(?:tried|trialled|trialed)"
                          r"|\b(?:moved|moving|migrated|migrating|switched|switching)\s+"
                          r"(?:[\w-]+\s+){0,2}(?:off|away\s+from|from)|\bover|\bnot"
                          r"|\bno\s+longer\s+\w+)"
                          r"(?:\s+(?:the|a|an|our|any|in|with|on|via))?\s*$", _I)


_MOVING = re.compile(r"\b(?:mov|migrat|switch|port|upgrad|chang)(?:e|es|ed|ing)\b", _I)


def _moved_from(clause: Clause) -> set[str]:
    """The members a move is from ("we are moving the cron jobs from Jenkins to Argo"):
    passed over, however many words stand between the verb and them."""
    moved = flows.flow(clause.text) if _MOVING.search(clause.text) else None
    return ({found.member for found in value_categories.members(tuple(moved.source.split()))}
            if moved else set())


def _left_behind(clause: Clause) -> set[int]:
    """Where `clause` names members it passes over or moves off."""
    moved, passed = _moved_from(clause), _passed_over_members(clause)
    return {at for found in value_categories.members(clause.raws)
            if found in passed or found.member in moved for at in found.at}


def _passed_over_members(clause: Clause) -> list:
    """The members of a category that `clause` names as passed over ("instead of
    Redux"), not as its choice."""
    return [found for found in value_categories.members(clause.raws)
            if _PASSED_OVER.search(" ".join(clause.raws[max(0, min(found.at) - 4):min(found.at)]))]


def _chosen_instead(a: Clause, b: Clause) -> JudgeVerdict | None:
    """One statement chooses a member of a category over another ("the SPA uses Zustand
    stores instead of Redux", "we replaced Jenkins with GitHub Actions") and the other
    states the one passed over ("the frontend manages state with Redux Toolkit"), on a
    subject the two share a word of."""
    for chooser, other in ((a, b), (b, a)):
        if other.negative or _adds(other):
            continue
        passed = _passed_over_members(chooser)
        if not passed:
            continue
        found_chooser = value_categories.members(chooser.raws)
        found_other = value_categories.members(other.raws)
        for left in passed:
            chosen = {f.member for f in found_chooser if f.category == left.category
                      and f not in passed}
            # a member both pass over ("moving from Jenkins" / "moving off Jenkins") is no
            # member one states
            said = ({f.member for f in found_other if f.category == left.category}
                    - {f.member for f in _passed_over_members(other)} - _moved_from(other))
            # "relies on server-side sessions instead of JWTs" passes JWTs over too
            if left.member not in said or chosen & said:
                continue
            subjects = tuple(
                subject(clause, _naming(clause, {at for f in found for at in f.at
                                                 if f.category == left.category},
                                        left.category))
                for clause, found in ((chooser, found_chooser), (other, found_other)))
            _settle(*subjects)
            shared = subjects[0].key & subjects[1].key - _KINDS
            unique = [side.key - shared for side in subjects]
            if (len(shared) < KEY_WORDS or _qualified_apart(*subjects) or _ways_apart(a, b)
                    or _headed_apart(subjects[0], unique[0], subjects[1], unique[1])):
                continue
            return _verdict(True, f"one statement passes over {left.member!r}, which the "
                                  f"other states", 0.8)
    return None


def _naming(clause: Clause, places: set[int], category: str):
    """Which tokens name a member (at `places` among the clause's words), give its
    version ("Vue 3") or the kind of thing it is ("the backend language is Rust")."""
    kinds = value_categories.kind_nouns(category)
    return lambda token: (token.at in places or token.raw.casefold() in kinds
                          or (_number(token.norm) is not None and token.at - 1 in places))


def _in_the_past_tense(clause: Clause) -> bool:
    """Whether a clause states something in the past tense: a past form of a state verb
    that is no participle ("is used", "are required")."""
    words = clause.words
    return any(word in _PAST_STATES and (at == 0 or words[at - 1] not in _COPULAS | {"been"})
               for at, word in enumerate(words))


def _then_and_now(a: Clause, b: Clause) -> bool:
    return any(_in_the_past_tense(then) and not _NOW & set(then.words) and _NOW & set(now.words)
               for then, now in ((a, b), (b, a)))


def _clause_verdict(a: Clause, b: Clause) -> JudgeVerdict | None:
    if a.past or b.past or _then_and_now(a, b):
        return None
    if a.negative != b.negative:
        rules = (_negation, _denied_value, _denied_outright, _changed_amount, _every_case_denied,
                 _denied_at_all)
    else:
        rules = (_reversed_preference, _reversed_direction, _reversed_flow, _changed_slot,
                 _changed_measure, _changed_value, _changed_member, _chosen_instead,
                 _changed_agent, _preferred_apart)
    for rule in rules:
        if found := rule(a, b):
            return found
    return None


# What a move leaves out of what it is of: when it was made, and its own verbs.
_WHEN_MOVED = frozenset(_norm(word) for word in (
    "last", "year", "month", "quarter", "week", "sprint", "ago", "recently", "team", "move",
    "moved", "migrate", "migrated", "switch", "switched", "upgrade", "upgraded", "change",
    "changed", "port", "ported"))


def _moved_off(a: str, b: str) -> JudgeVerdict | None:
    """A move off one member onto another of its category ("we migrated search from Solr
    to OpenSearch") against a statement that still states the first, in the present, of
    the same thing ("search runs on Solr"): the other is out of date. Not when the other
    tells of a move too, speaks of the past, or each names a thing of its own ("the
    marketing site" / "the billing app")."""
    for mover, other in ((a, b), (b, a)):
        moved = flows.flow(mover) if _MOVING.search(mover) else None
        if not moved or _MOVING.search(other) or _PAST.search(other):
            continue
        read, still = read_clause(mover), read_clause(other)
        if read.negative or still.negative or _in_the_past_tense(still):
            continue
        old, new = ({f.category: f.member for f in value_categories.members(
            tuple(end.split()))} for end in (moved.source, moved.target))
        said = {f.category: f.member for f in value_categories.members(still.raws)}
        for category in sorted(old.keys() & new.keys() & said.keys()):
            if old[category] == new[category] or said[category] != old[category]:
                continue
            keys = [subject(clause, _naming(clause, {at for f in value_categories.members(
                clause.raws) if f.category == category for at in f.at}, category)).key
                - _WHEN_MOVED for clause in (read, still)]
            shared = keys[0] & keys[1]
            if not (keys[0] - shared and keys[1] - shared):
                return _verdict(True, f"one moved off {old[category]!r}, which the other "
                                      f"still states", 0.75)
    return None


def _speaking_of_themselves(a: str, b: str) -> bool:
    """Two transcript lines by different speakers, one saying "I": two people, not one
    subject ("Tim: I've played for four months" / "John: I've played for a year")."""
    speakers = [found.group("speaker") for found in (_STAMP.match(a), _STAMP.match(b))]
    return (all(speakers) and speakers[0] != speakers[1]
            and any(_FIRST_PERSON.search(asserted(text)) for text in (a, b)))


_DENYING = re.compile(r"\b(?:not|never|no\s+longer|isn't|aren't|wasn't)\b", _I)


def _swapped_source(a: str, b: str) -> JudgeVerdict | None:
    """One named thing the source in one statement and a copy in the other ("db-east-1 is
    the primary" / "db-west-2 is primary and replicates to db-east-1", "redis-b is a
    replica of redis-a" / "redis-a is a replica of redis-b"), or two sources of one thing
    where each statement names the other's ("the source of truth is api-contracts" /
    "lumen-frontend is the source of truth, and api-contracts imports from it"); not
    of a past state, a denial, or two environments."""
    if any(_PAST.search(text) or _DENYING.search(text) for text in (a, b)):
        return None
    if _qualified_apart(*(subject(read_clause(text), _nothing) for text in (a, b))):
        return None
    ranked = [sources.ranks(text) for text in (a, b)]
    for name in sorted(ranked[0].keys() & ranked[1].keys()):
        if (len(ranked[0][name]) == len(ranked[1][name]) == 1
                and ranked[0][name] != ranked[1][name]):
            return _verdict(True, f"{name!r} is the source in one statement and a copy in the "
                                  f"other", 0.8)
    # two sources: each said to be one, not implied by what copies it
    tops = [{name for name, found in sources.ranks(text, inferred=False).items()
             if found == {sources.SOURCE}} for text in (a, b)]
    said = [text.casefold() for text in (a, b)]
    if all(tops) and not tops[0] & tops[1] and (
            any(name in said[1] for name in tops[0]) and any(name in said[0] for name in tops[1])):
        return _verdict(True, f"two sources of one thing: {min(tops[0])!r} against "
                              f"{min(tops[1])!r}", 0.75)
    return None


def _compared_clauses(read: list[Clause], other: list[Clause]) -> list[Clause]:
    """A statement's clauses to compare; not the whole of one whose own clause restates
    the other whole ("Nightly artifacts expire after 14 days; those of tagged releases
    never expire" says the first as the other does, and its whole negates nothing of
    it): its clauses are compared one by one."""
    if len(read) > 1 and any(part.norms == other[0].norms and part.negative == other[0].negative
                             for part in read[1:]):
        return read[1:]
    return read


def rules_verdict(a: str, b: str) -> JudgeVerdict:
    """Whether statements `a` and `b` contradict, by the rules in this module's docstring."""
    if _speaking_of_themselves(a, b):
        return _verdict(False, "two speakers, each speaking of themselves", 0.8)
    a, b = asserted(a), asserted(b)
    if not a or not b:
        return _verdict(False, "a statement asserts nothing: a question, a greeting or a "
                               "reaction", ASSERTS_NOTHING_CONFIDENCE)
    if found := _swapped_source(a, b):
        return found
    if found := _moved_off(a, b):
        return found
    read_a, read_b = clauses(a), clauses(b)
    for clause_a in _compared_clauses(read_a, read_b):
        for clause_b in _compared_clauses(read_b, read_a):
            found = _clause_verdict(clause_a, clause_b)
            if found:
                penalty = TALK_PENALTY * (talk_marks(a) + talk_marks(b))
                return found.model_copy(
                    update={"confidence": round(max(0.0, found.confidence - penalty), 2)})
    return _verdict(False, "no rule found the same subject with a conflicting value",
                    NO_RULE_CONFIDENCE)
