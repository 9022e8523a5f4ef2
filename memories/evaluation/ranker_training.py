"""Fitting the learned ranker (memories/engine/ranker.py) on the dev splits only.

Every dev question of LoCoMo (conversations 1-5, one memory a turn, as `engram_eval
locomo` stores them, once with each turn's date written into its text and once without)
and every dev query of the paraphrase set is asked through recall's own candidate path;
each candidate is a row of features, labelled 1 when it holds evidence for the question.
The fit is listwise (engine/ranker.py's `fit`): the two sets weigh the same, and within
a set every question weighs the same, so long candidate lists and the larger set do not
decide the model alone. The held-out splits are never read here.
"""

from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from memories.engine import ranker
from memories.services.recall import candidate_features

from .locomo import TURN_FORMATS, Conversation
from .paraphrases import Pair
from .runner import load_or_reuse, locomo_username, store_texts

TRAINING_SPLIT = "dev"
DEPTH = 20  # the candidates recall weighs when `engram_eval` asks for its top 20


def _rows(ids: Sequence, features: np.ndarray, relevant: set) -> tuple[np.ndarray, np.ndarray]:
    labels = np.array([1.0 if memory_id in relevant else 0.0 for memory_id in ids])
    return features, labels


def locomo_rows(conversations: Sequence[Conversation], *, categories: Sequence[int],
                reuse: Path | None = None,
                progress: Callable[[str], None] = lambda message: None) -> list[tuple]:
    """(features, labels) per dev question that has evidence, asked of the conversation
    stored in each turn format (locomo.TURN_FORMATS)."""
    questions = []
    for turn_format in TURN_FORMATS:
        for conversation in conversations:
            if conversation.split != TRAINING_SPLIT:
                continue
            loaded = load_or_reuse(
                conversation, username=locomo_username(conversation.sample_id, turn_format),
                reuse=reuse, turn_format=turn_format)
            asked = 0
            for question in conversation.questions:
                if question.category not in categories or not question.evidence:
                    continue
                ids, features = candidate_features(owner=loaded.owner,
                                                   query=question.question, limit=DEPTH,
                                                   now=conversation.asked_at)
                evidence = {loaded.dia_map[dia_id] for dia_id in question.evidence}
                questions.append(_rows(ids, features, evidence))
                asked += 1
            progress(f"{conversation.sample_id} ({turn_format}): {asked} dev questions")
    return questions


def paraphrase_rows(pairs: Sequence[Pair], distractors: Sequence[str], *,
                    username: str = "paraphrase-train",
                    reuse: Path | None = None) -> list[tuple]:
    """(features, labels) per dev query; every memory of the set is stored, as in the
    evaluation, so held-out answers still compete as distractors."""
    owner, stored = store_texts([pair.memory for pair in pairs] + list(distractors),
                                username=username, reuse=reuse)
    questions = []
    for pair, memory_id in zip(pairs, stored):
        if pair.split != TRAINING_SPLIT:
            continue
        ids, features = candidate_features(owner=owner, query=pair.query, limit=DEPTH)
        questions.append(_rows(ids, features, {memory_id}))
    return questions


def fit(sets: Sequence[list[tuple]], *, l2: float = 1.0) -> dict:
    """Fit on the questions of each set, each set weighing the same in total and each
    question the same within its set; report what was fitted on."""
    questions, weights = [], []
    per_set = sum(len(one) for one in sets) / len(sets)  # the L2 penalty's scale
    for one in sets:
        questions += one
        weights += [per_set / len(one)] * len(one)
    coefficients = ranker.fit(questions, weights, l2=l2)
    labels = np.concatenate([y for _, y in questions])
    return {"coefficients": coefficients, "rows": len(labels),
            "positives": int(labels.sum()),
            "questions": [len(one) for one in sets]}
