"""Which way something moves, and which thing needs which, read from the words that say
it: "events flow from the orders service to the analytics service", "the analytics
service sends events to the orders service", "the CRM pulls contacts from the
warehouse"; "billing depends on auth", "auth is called by billing". The contradiction
judge compares two statements' ends: the same two ends, swapped, cannot both be true.

Pure: text in, the source, the target and the rest of the text out, as written.
"""

import re
from dataclasses import dataclass

# Verbs whose subject is where something goes from ("A sends events to B").
SENDING = ("sends|send|pushes|push|publishes|publish|emits|emit|forwards|forward|writes|"
           "write|streams|stream|exports|export|syncs|sync|replicates|replicate|copies|copy|"
           "ships|ship|delivers|deliver|posts|post|uploads|upload|feeds|feed|mirrors|mirror")
# Verbs whose subject is where something goes to ("B pulls events from A").
RECEIVING = ("receives|receive|pulls|pull|reads|read|consumes|consume|fetches|fetch|"
             "imports|import|downloads|download|polls|poll|ingests|ingest|loads|load|"
             "accepts|accept")
# Where an end stops: a clause's punctuation or the start of another phrase.
_END = (r"(?=\s*[,;.!?(]|\s+(?:every|each|nightly|daily|hourly|weekly|via|with|using|through|"
        r"when|whenever|after|before|on|at|in|for|over|and|but|as|once|twice|by)\b|\s*$)")
# "off A onto B" is "from A to B": "moving off Temporal onto Celery"
_FROM_TO = re.compile(rf"\b(?:from|off(?:\s+of)?)\s+(?P<source>.+?)\s+(?:to|into|onto)\s+"
                      rf"(?P<target>.+?){_END}", re.IGNORECASE)
_SENDS = re.compile(rf"^(?P<source>.+?)\s+(?:{SENDING})\b(?P<what>.*?)\s+(?:to|into|onto)\s+"
                    rf"(?P<target>.+?){_END}", re.IGNORECASE)
_RECEIVES = re.compile(rf"^(?P<target>.+?)\s+(?:{RECEIVING})\b(?P<what>.*?)\s+from\s+"
                       rf"(?P<source>.+?){_END}", re.IGNORECASE)


# What a receiver takes in, said with the sender after it: "A consumes events published
# by B", "A subscribes to the events that B publishes".
_SENT = ("published|sent|emitted|produced|pushed|exported|streamed|written|forwarded|"
         "shipped|delivered|posted|uploaded|fed|mirrored|replicated|synced|copied")
_TAKING = rf"(?:{RECEIVING}|subscribes\s+to|subscribe\s+to|listens\s+(?:to|for))"
_TAKES_SENT_BY = re.compile(rf"^(?P<target>.+?)\s+{_TAKING}\b(?P<what>.*?)\s+(?:{_SENT})\s+"
                            rf"by\s+(?P<source>.+?){_END}", re.IGNORECASE)
# What a sender gives, said with its receiver after it: "A publishes events that B
# consumes".
_SENDS_THAT = re.compile(rf"^(?P<source>.+?)\s+(?:{SENDING})\b(?P<what>.*?)\s+(?:that|which)\s+"
                         rf"(?P<target>.+?)\s+{_TAKING}\b", re.IGNORECASE)
# A thing that feeds another names its target right after the verb: "the dedupe stage
# feeds the enrichment stage".
_FEEDS = re.compile(rf"^(?P<source>.+?)\s+(?:feeds|feed|supplies|supply)\s+"
                    rf"(?!(?:to|into|onto)\b)(?P<target>.+?){_END}",
                    re.IGNORECASE)
_TAKES_THAT = re.compile(rf"^(?P<target>.+?)\s+{_TAKING}\b(?P<what>.*?)\s+(?:that|which)\s+"
                         rf"(?P<source>.+?)\s+(?:{SENDING})\b", re.IGNORECASE)


# The passive: "production config gets copied from staging", "the user table is exported
# to LDAP".
_MOVED = rf"(?:{_SENT}|loaded|imported|pulled|fetched|downloaded|ingested)"
_MOVED_FROM = re.compile(rf"^(?P<target>.+?)\s+(?:is|are|gets|get|got)\s+(?:\w+ly\s+)?{_MOVED}\s+"
                         rf"from\s+(?P<source>.+?){_END}", re.IGNORECASE)
_MOVED_TO = re.compile(rf"^(?P<source>.+?)\s+(?:is|are|gets|get|got)\s+(?:\w+ly\s+)?{_MOVED}\s+"
                       rf"(?:to|into|onto)\s+(?P<target>.+?){_END}", re.IGNORECASE)
# A job that moves something names its source after the verb: "the nightly job loads
# Snowflake tables into Postgres".
_MOVER = r"(?:job|jobs|sync|pipeline|script|cron|task|workflow|dag|etl|process|importer)"
_MOVES = re.compile(rf"^(?P<doer>(?:[\w-]+\s+){{0,3}}{_MOVER})\s+(?:{SENDING}|loads|load|moves|"
                    rf"move)\s+(?P<source>.+?)\s+(?:to|into|onto)\s+(?P<target>.+?){_END}",
                    re.IGNORECASE)


# Upstream and downstream: "fct_revenue is upstream of fct_invoices" is a flow from it.
_UPSTREAM = re.compile(rf"^(?P<source>.+?)\s+(?:is|are|sits|sit)\s+upstream\s+of\s+"
                       rf"(?P<target>.+?){_END}", re.IGNORECASE)
_DOWNSTREAM = re.compile(rf"^(?P<target>.+?)\s+(?:is|are|sits|sit)\s+downstream\s+of\s+"
                         rf"(?P<source>.+?){_END}", re.IGNORECASE)

# A thing that needs another: "A depends on B", "A calls B", "A imports from B", "A is
# built on top of B", "A is the one that calls B"; and the passive, "B is called by A".
NEEDING = ("depends on|depend on|relies on|rely on|calls|call|invokes|invoke|imports from|"
           "import from|imports|import|refs|ref|references|reference|talks to|talk to|"
           "triggers|trigger|kicks off|kick off|starts|start|launches|launch|"
           "has a dependency on|have a dependency on|"
           "is built on top of|are built on top of|is built on|are built on|requires|require")
# (the target opens on no preposition: "upstream calls after 30 seconds" is a noun)
_NEEDS = re.compile(rf"^(?P<source>[^;:]+?)\s+(?:(?:is|are)\s+the\s+one\s+that\s+|"
                    rf"(?:always|also|directly|synchronously|only)\s+)?(?:{NEEDING})\s+"
                    rf"(?!(?:to|after|before|at|in|on|for|from|per|every|with)\b)"
                    rf"(?P<target>.+?){_END}", re.IGNORECASE)
_CALLED_BY = re.compile(rf"^(?P<target>.+?)\s+(?:is|are|gets|get)\s+(?:called|invoked|started|"
                        rf"launched|imported|triggered|required|referenced|kicked off)\s+by\s+"
                        rf"(?P<source>.+?){_END}", re.IGNORECASE)
_DEPENDENCY_OF = re.compile(rf"^(?P<target>.+?)\s+(?:is|are)\s+(?:a\s+)?dependency\s+of\s+"
                            rf"(?P<source>.+?){_END}", re.IGNORECASE)


@dataclass(frozen=True)
class Flow:
    source: str
    target: str
    rest: str  # the clause without its two ends: what moves, and how


def flow(text: str) -> Flow | None:
    """The source and target `text` says something moves between, if it says one."""
    return _first(text, (_FROM_TO, _MOVED_FROM, _MOVED_TO, _MOVES, _SENDS, _RECEIVES,
                         _TAKES_SENT_BY, _TAKES_THAT, _SENDS_THAT, _FEEDS, _UPSTREAM, _DOWNSTREAM))


def dependency(text: str) -> Flow | None:
    """What `text` says needs another thing, as the source, and that other thing, as the
    target: "billing depends on auth", "billing calls auth", "auth is called by billing",
    "the core package imports from api", "auth is a dependency of billing"."""
    found = _first(text, (_CALLED_BY, _DEPENDENCY_OF, _NEEDS))
    # people call and start one another in chat ("my mom calls me"): no need of a thing
    if found and any(_PERSONAL.search(end) for end in (found.source, found.target)):
        return None
    return found


_PERSONAL = re.compile(r"\b(?:i|me|my|mine|you|your|he|him|his|she|her|they|them|their|we|us|"
                       r"our)\b", re.IGNORECASE)
# A relation denied right after its source ("accounts must never import billing") is
# none.
_DENIED = re.compile(r"\b(?:not|never|n't)\b", re.IGNORECASE)
_DENIAL_REACH = 12


def _first(text: str, patterns) -> Flow | None:
    for pattern in patterns:
        found = pattern.search(text)
        if found and not _DENIED.search(text, 0, found.end("source") + _DENIAL_REACH):
            (start, stop), (start2, stop2) = sorted((found.span("source"), found.span("target")))
            rest = f"{text[:start]} {text[stop:start2]} {text[stop2:]}"
            return Flow(found["source"], found["target"], rest)
    return None
