"""The shapes every extractor produces (rules or model), validated strictly.

"Extraction Pipeline": a cheap gate says whether a chunk holds anything worth keeping;
only then the extractor turns it into memories. Model replies are parsed into these
models, so whatever reaches `remember()` has already been checked field by field.
"""

from typing import Literal

from pydantic import Field, field_validator

from .llm_json import StrictReply

MemoryTypeName = Literal["episodic", "semantic", "procedural"]
KindName = Literal[
    "fact", "episode", "pattern", "workflow", "decision",
    "preference", "error", "insight", "instruction",
]
MAX_EXTRACTED_CONTENT = 2_000
MAX_EXTRACTED_TAGS = 10
MAX_EXTRACTED_ENTITIES = 20


class ExtractedEntity(StrictReply):
    name: str = Field(min_length=1, max_length=200)
    type: str = Field(default="concept", min_length=1, max_length=50)


class ExtractedRelationship(StrictReply):
    """An edge between two entities the memory names, e.g. (api, uses, PostgreSQL)."""

    source: str = Field(min_length=1, max_length=200)
    type: str = Field(min_length=1, max_length=50)
    target: str = Field(min_length=1, max_length=200)
    strength: float = Field(default=0.8, ge=0.0, le=1.0)


class ExtractedMemory(StrictReply):
    content: str = Field(min_length=1, max_length=MAX_EXTRACTED_CONTENT)
    memory_type: MemoryTypeName = "semantic"
    kind: KindName = "fact"
    importance: float = Field(default=5.0, ge=1.0, le=10.0)
    tags: list[str] = Field(default_factory=list, max_length=MAX_EXTRACTED_TAGS)
    entities: list[ExtractedEntity] = Field(default_factory=list,
                                            max_length=MAX_EXTRACTED_ENTITIES)
    relationships: list[ExtractedRelationship] = Field(default_factory=list,
                                                       max_length=MAX_EXTRACTED_ENTITIES)
    # The id of an existing memory this one restates or corrects, when the extractor was
    # shown similar memories; the write still goes through remember()'s own dedup.
    updates: str | None = None

    @field_validator("tags")
    @classmethod
    def _clean_tags(cls, tags: list[str]) -> list[str]:
        cleaned = []
        for tag in tags:
            tag = tag.strip().lower()[:64]
            if tag and tag not in cleaned:
                cleaned.append(tag)
        return cleaned


class Extraction(StrictReply):
    memories: list[ExtractedMemory] = Field(default_factory=list, max_length=50)


class GateDecision(StrictReply):
    worth_remembering: bool
    reason: str = Field(default="", max_length=500)


def canonical_entity_name(name: str) -> str:
    """The form two mentions of one entity share: case, spacing and edge punctuation
    removed ("  PostgreSQL " and "postgresql." are one entity)."""
    return " ".join(name.split()).strip(" .,;:!?\"'`()[]{}").casefold()
