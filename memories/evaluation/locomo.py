"""LoCoMo (Maharana et al., ACL 2024) in Engram's terms: parsing, evidence clean-up and
the text of one memory per dialog turn. Pure: the path is always given by the caller."""

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

CATEGORY_NAMES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop",
                  5: "adversarial"}

# The frozen split (issue 12): tune on the first five conversations of the file, report
# the last five as held out. By position, so any LoCoMo-shaped file splits the same way,
# unless a sample names its own split (as a set written for the tests does).
SPLITS = ("dev", "heldout")
DEV_CONVERSATIONS = 5


def split_of(position: int) -> str:
    """The split of the conversation at this 0-based position in its file."""
    return "dev" if position < DEV_CONVERSATIONS else "heldout"


_SESSION_KEY = re.compile(r"^session_(\d+)$")
_EVIDENCE_ID = re.compile(r"^D:?(\d+):(\d+)$")
_EVIDENCE_SPLIT = re.compile(r"[;,\s]+")


@dataclass
class Turn:
    dia_id: str
    session: int
    speaker: str
    text: str
    date: datetime | None
    date_text: str
    caption: str = ""

    @property
    def content(self) -> str:
        return turn_content(self)


@dataclass
class Question:
    question: str
    answer: str
    category: int
    evidence: list[str]  # normalised dia_ids that exist in the conversation
    raw_evidence: list[str] = field(default_factory=list)


@dataclass
class Conversation:
    sample_id: str
    speakers: tuple[str, str]
    sessions: dict[int, list[Turn]]
    questions: list[Question]
    evidence_fixes: Counter = field(default_factory=Counter)
    split: str = "dev"

    @property
    def turns(self) -> list[Turn]:
        return [turn for number in sorted(self.sessions) for turn in self.sessions[number]]

    @property
    def asked_at(self) -> datetime | None:
        """When its questions are asked, for fitting the ranker: as its last turn was said,
        so that "last year" or "in May" in a question names the same period on every day
        the fit is run (at the wall clock the fitted weights drift from day to day)."""
        return max((turn.date for turn in self.turns if turn.date), default=None)


def parse_session_date(text: str) -> datetime | None:
    """ "1:56 pm on 8 May, 2023" -> 2023-05-08 13:56 UTC; None when it does not parse."""
    cleaned = re.sub(r"\s+", " ", (text or "").strip())
    for pattern in ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y", "%I:%M %p on %d %B %Y"):
        try:
            return datetime.strptime(cleaned, pattern).replace(tzinfo=UTC)
        except ValueError:
            continue
    return None


# How a turn becomes a memory's text. "dated" opens with its session's date, as a
# transcript line does; "plain" is the speaker and the words alone, as an agent that
# hands the date over in `valid_from` (or not at all) would store it. The ranker is fitted
# on both, so that it does not lean on dates being written into the text.
TURN_FORMATS = ("dated", "plain")


def turn_content(turn: Turn, turn_format: str = "dated") -> str:
    """ "[8 May 2023] Caroline: text [shared a photo: caption]", or without the date."""
    if turn_format not in TURN_FORMATS:
        raise ValueError(f"turn_format must be one of {', '.join(TURN_FORMATS)}.")
    when = f"{turn.date.day} {turn.date:%B %Y}" if turn.date else turn.date_text
    prefix = f"[{when}] " if when and turn_format == "dated" else ""
    text = f"{prefix}{turn.speaker}: {turn.text.strip()}"
    if turn.caption:
        text += f" [shared a photo: {turn.caption.strip()}]"
    return text


def normalise_evidence(raw: list, known: set[str]) -> tuple[list[str], Counter]:
    """Clean one question's evidence list; returns (dia_ids, what was fixed).

    Fixes the defects of the published file: several ids in one string ("D8:6; D9:17",
    "D9:1 D4:4"), a stray colon ("D:11:26"), a zero-padded turn ("D30:05"). Ids that
    still name no turn of the conversation ("D", "D10:19" where session 10 is shorter)
    are dropped. Order is kept, repeats are removed.
    """
    fixes: Counter = Counter()
    result: list[str] = []
    for entry in raw or []:
        parts = [p for p in _EVIDENCE_SPLIT.split(str(entry).strip()) if p]
        if len(parts) > 1:
            fixes["split"] += 1
        for part in parts:
            match = _EVIDENCE_ID.match(part)
            if not match:
                fixes["dropped_malformed"] += 1
                continue
            dia_id = f"D{int(match[1])}:{int(match[2])}"
            if dia_id != part:
                fixes["reformatted"] += 1
            if dia_id not in known:
                fixes["dropped_unknown"] += 1
                continue
            if dia_id not in result:
                result.append(dia_id)
    return result, fixes


def parse_sample(sample: dict) -> Conversation:
    conversation = sample["conversation"]
    sessions: dict[int, list[Turn]] = {}
    for key, value in conversation.items():
        match = _SESSION_KEY.match(key)
        if not match or not isinstance(value, list):
            continue
        number = int(match[1])
        date_text = conversation.get(f"{key}_date_time", "") or ""
        date = parse_session_date(date_text)
        sessions[number] = [
            Turn(dia_id=turn["dia_id"], session=number, speaker=turn["speaker"],
                 text=turn.get("text", ""), date=date, date_text=date_text,
                 caption=turn.get("blip_caption") or "")
            for turn in value
        ]
    known = {turn.dia_id for turns in sessions.values() for turn in turns}
    questions, all_fixes = [], Counter()
    for qa in sample.get("qa", []):
        evidence, fixes = normalise_evidence(qa.get("evidence", []), known)
        all_fixes += fixes
        questions.append(Question(
            question=qa["question"],
            answer=str(qa.get("answer", qa.get("adversarial_answer", ""))),
            category=int(qa["category"]), evidence=evidence,
            raw_evidence=list(qa.get("evidence", [])),
        ))
    return Conversation(
        sample_id=str(sample.get("sample_id", "")),
        speakers=(conversation.get("speaker_a", ""), conversation.get("speaker_b", "")),
        sessions=dict(sorted(sessions.items())), questions=questions,
        evidence_fixes=all_fixes,
    )


def load(path: Path) -> list[Conversation]:
    samples = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(samples, list):
        raise TypeError(f"{path}: expected a JSON list of LoCoMo samples")
    conversations = [parse_sample(sample) for sample in samples]
    for index, conversation in enumerate(conversations):
        if not conversation.sample_id:
            conversation.sample_id = f"sample-{index}"
        named = samples[index].get("split")
        if named is not None and named not in SPLITS:
            raise ValueError(f"{conversation.sample_id}: split must be one of "
                             f"{', '.join(SPLITS)}, not {named!r}")
        conversation.split = named or split_of(index)
    return conversations
